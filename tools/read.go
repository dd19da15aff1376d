package tools

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/reviewdev/review/internal/toolname"
)

// Limits of read_file_hunk. There is no limit on the lines of a read: the
// whole range is stored in tool memory and the conversation carries a
// preview of it, so a large read costs the model no more than a small one.
const (
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
		Description: "Numbered lines of a file at head or base, up to the whole file; a large read costs only its preview.",
		Params: []Param{
			String("path", `E.g. "src/main.go".`).Required().Example("src/main.go"),
			Integer("start_line", "First line to show.").Required().Min(1).Example(1),
			Integer("end_line", "Last line (inclusive); past the end reads to the end.").Required().Example(120),
			String("revision", `"head" (the change) or "base" (before it).`).Enum(string(revHead), string(revBase)).Default(string(revHead)).Example(nil),
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
	p = s.reveal(ctx, rev, p)
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
	var b strings.Builder
	b.Grow(len(data) + 8*(end-a.StartLine+1))
	fmt.Fprintf(&b, "%s, lines %d-%d of %d:\n", name, a.StartLine, end, total)
	n, cut := 0, 0
	for line := range bytes.Lines(data) {
		n++
		if n < a.StartLine {
			continue
		}
		if n > end {
			break
		}
		text := strings.TrimSuffix(string(bytes.TrimSuffix(line, []byte{'\n'})), "\r")
		if len(text) > readMaxLine {
			cut++
		}
		fmt.Fprintf(&b, "%d: %s\n", n, cutLine(text, readMaxLine))
	}
	if cut > 0 {
		// Said once at the end too: a preview may not show the cut lines.
		fmt.Fprintf(&b, "[%s cut at %d bytes (minified or generated code); "+toolname.SearchInProject+" finds text in them]\n", plural(cut, "line"), readMaxLine)
	}
	return Result{Output: b.String()}, nil
}
