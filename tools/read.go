package tools

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/reviewdev/review/tools/toolname"
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

func (s *Set) readTool() Tool {
	return s.repoTool(Spec{
		Name:        toolname.ReadFileHunk,
		Description: fmt.Sprintf("Read numbered lines of a file at the reviewed head revision (default) or at the base revision. At most %d lines per call; the result says how to get more.", readMaxLines),
		Params: []Param{
			String("path", `File path relative to the repository root, e.g. "src/main.go".`).Required().Example("src/main.go"),
			Integer("start_line", "First line to show.").Required().Min(1).Example(1),
			Integer("end_line", fmt.Sprintf("Last line to show (inclusive); at most %d lines per call.", readMaxLines)).Required().Example(120),
			String("revision", `"head" (the change under review) or "base" (before it).`).Enum(string(revHead), string(revBase)).Default(string(revHead)).Example(nil),
		},
	}, func(ctx context.Context, args Args) (Result, error) {
		var a readArgs
		if err := args.Decode(&a); err != nil {
			return Result{}, err
		}
		return s.read(ctx, a)
	})
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
	if a.EndLine < a.StartLine {
		return Result{}, fmt.Errorf("end_line %d is before start_line %d; ask for end_line >= start_line", a.EndLine, a.StartLine)
	}
	t, err := s.pathTree(ctx, rev)
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
		return Result{}, fmt.Errorf("%q is %d bytes, too large to read; use "+toolname.SearchInProject+" to find the lines you need", resolved, e.size)
	}
	data, err := s.content(ctx, e)
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
		fmt.Fprintf(&b, "[%d lines per call at most; the file goes on to line %d: call "+toolname.ReadFileHunk+" %s]\n", readMaxLines, total, jsonArgs(next...))
	}
	return Result{Output: b.String()}, nil
}
