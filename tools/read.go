package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Limits of read_file_hunk.
const (
	readMaxLines = 400
	// readMaxLine cuts single lines (minified code) to this many bytes.
	readMaxLine = 2000
	// readMaxFile is the largest file read at all; larger ones are data
	// dumps rather than code to review.
	readMaxFile = 32 << 20
)

type readArgs struct {
	Path      string  `json:"path"`
	StartLine int     `json:"start_line"`
	EndLine   int     `json:"end_line"`
	Revision  *string `json:"revision"`
}

func (s *Set) readTool() *tool {
	t := newTool("read_file_hunk",
		fmt.Sprintf("Read numbered lines of a file at the reviewed head revision (default) or at the base revision. At most %d lines per call; the result says how to get more.", readMaxLines),
		`{"path": "src/main.go", "start_line": 1, "end_line": 120, "revision": null}`,
		[]param{
			{name: "path", typ: typeString, required: true, desc: `File path relative to the repository root, e.g. "src/main.go".`},
			{name: "start_line", typ: typeInteger, required: true, desc: "First line to show, from 1."},
			{name: "end_line", typ: typeInteger, required: true, desc: fmt.Sprintf("Last line to show (inclusive); at most %d lines per call.", readMaxLines)},
			{name: "revision", typ: typeString, enum: []string{string(revHead), string(revBase)}, desc: `"head" (the change under review) or "base" (before it). Null for "head".`},
		}, nil)
	t.run = func(ctx context.Context, raw json.RawMessage) (Result, error) {
		var a readArgs
		if err := t.decode(raw, &a); err != nil {
			return Result{}, err
		}
		return s.read(ctx, a)
	}
	return t
}

func (s *Set) read(ctx context.Context, a readArgs) (Result, error) {
	p, err := s.cleanPath("path", a.Path, false)
	if err != nil {
		return Result{}, err
	}
	rev := revHead
	if a.Revision != nil {
		rev = revision(*a.Revision)
	}
	if a.StartLine < 1 {
		return Result{}, fmt.Errorf("start_line must be 1 or more (lines are numbered from 1), got %d", a.StartLine)
	}
	if a.EndLine < a.StartLine {
		return Result{}, fmt.Errorf("end_line %d is before start_line %d; ask for end_line >= start_line", a.EndLine, a.StartLine)
	}
	t, err := s.tree(ctx, rev)
	if err != nil {
		return Result{}, err
	}
	e, resolved, err := s.lookup(ctx, t, p, rev)
	if err != nil {
		if rev == revBase && !strings.Contains(err.Error(), "symlink") {
			return Result{}, fmt.Errorf("%w (a file new in this change exists only at head)", err)
		}
		return Result{}, err
	}
	if e.submodule() {
		return Result{}, fmt.Errorf("%q is a submodule (commit %s); its files belong to another repository and cannot be read", resolved, e.oid)
	}
	if e.size > readMaxFile {
		return Result{}, fmt.Errorf("%q is %d bytes, too large to read; use search_in_project to find the lines you need", resolved, e.size)
	}
	data, err := s.blob(ctx, e.oid)
	if err != nil {
		return Result{}, fmt.Errorf("reading %q at %s: %w", resolved, rev, err)
	}
	name := fmt.Sprintf("%q at %s", p, rev)
	if resolved != p {
		name = fmt.Sprintf("%q (symlink to %q) at %s", p, resolved, rev)
	}
	if isBinary(data) {
		return Result{}, fmt.Errorf("%s is a binary file (%d bytes); its content cannot be shown", name, len(data))
	}
	total := lineCount(data)
	if total == 0 {
		return Result{Output: fmt.Sprintf("%s is empty (0 lines)", name)}, nil
	}
	if a.StartLine > total {
		return Result{}, fmt.Errorf("%s has %d lines; ask for start_line <= %d", name, total, total)
	}
	end := min(a.EndLine, total)
	cut := false
	if end-a.StartLine+1 > readMaxLines {
		end = a.StartLine + readMaxLines - 1
		cut = true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s, lines %d-%d of %d:\n", name, a.StartLine, end, total)
	n := 0
	for line := range bytes.Lines(data) {
		n++
		if n < a.StartLine {
			continue
		}
		if n > end {
			break
		}
		text := strings.TrimSuffix(string(bytes.TrimSuffix(line, []byte{'\n'})), "\r")
		fmt.Fprintf(&b, "%d: %s\n", n, cutLine(text, readMaxLine))
	}
	if cut {
		next := []any{"path", p, "start_line", end + 1, "end_line", min(end+readMaxLines, total)}
		if rev == revBase {
			next = append(next, "revision", string(revBase))
		}
		fmt.Fprintf(&b, "[%d lines per call at most; the file goes on to line %d: call read_file_hunk %s]\n", readMaxLines, total, jsonArgs(next...))
	}
	return Result{Output: b.String()}, nil
}
