package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/reviewdev/review/toolmem"
)

type outputArgs struct {
	Ref       string  `json:"ref"`
	StartLine *int    `json:"start_line"`
	LineCount *int    `json:"line_count"`
	Grep      *string `json:"grep"`
}

func (s *Set) outputTool() *tool {
	t := newTool("read_tool_output",
		fmt.Sprintf("Read more of an earlier tool output that was shown only as a preview: a page of its lines, or the lines matching a regular expression. The preview's header gives the ref and the exact call for the next page. At most %d lines per call.", toolmem.MaxPageLines),
		`{"ref": "abcdefgh23", "start_line": 81, "line_count": 80, "grep": null}`,
		[]param{
			{name: "ref", typ: typeString, required: true, desc: "The output's ref, from the preview header."},
			{name: "start_line", typ: typeInteger, desc: "First line of the page, from 1. Null for 1. Ignored with grep."},
			{name: "line_count", typ: typeInteger, desc: fmt.Sprintf("Lines per page (with grep: most matching lines), 1-%d. Null for %d.", toolmem.MaxPageLines, toolmem.DefaultPageLines)},
			{name: "grep", typ: typeString, desc: `Regular expression (RE2/Go syntax) selecting the lines to show instead of a page, e.g. "(?i)error|warn". Null to page.`},
		}, nil)
	t.run = func(ctx context.Context, raw json.RawMessage) (Result, error) {
		var a outputArgs
		if err := t.decode(raw, &a); err != nil {
			return Result{}, err
		}
		return s.output(a)
	}
	t.paged = true
	return t
}

func (s *Set) output(a outputArgs) (Result, error) {
	if s.env.Store == nil {
		return Result{}, errors.New("read_tool_output is unavailable: this session keeps no tool outputs; call the original tool again with narrower arguments")
	}
	if strings.TrimSpace(a.Ref) == "" {
		return Result{}, errors.New(`ref is empty; send the ref from a preview header, e.g. {"ref": "abcdefgh23"}`)
	}
	start, count := 1, toolmem.DefaultPageLines
	var notes []string
	if a.StartLine != nil {
		if *a.StartLine < 1 {
			return Result{}, fmt.Errorf("start_line must be 1 or more (lines are numbered from 1), got %d", *a.StartLine)
		}
		start = *a.StartLine
	}
	if a.LineCount != nil {
		if *a.LineCount < 1 {
			return Result{}, fmt.Errorf("line_count must be 1 or more (or null for %d)", toolmem.DefaultPageLines)
		}
		count = *a.LineCount
		if count > toolmem.MaxPageLines {
			notes = append(notes, fmt.Sprintf("line_count %d lowered to the maximum, %d", count, toolmem.MaxPageLines))
			count = toolmem.MaxPageLines
		}
	}
	meta, err := s.env.Store.Meta(a.Ref)
	if err != nil {
		return Result{}, storeError(a.Ref, err)
	}
	source := meta.Tool
	if meta.Args != "" {
		source += " " + cutLine(meta.Args, 200)
	}
	var b strings.Builder
	if a.Grep != nil {
		if *a.Grep == "" {
			return Result{}, errors.New(`grep is empty; send a regular expression, or null to page`)
		}
		g, err := s.env.Store.Grep(meta.Ref, *a.Grep, count)
		if err != nil {
			return Result{}, storeError(a.Ref, err)
		}
		if a.StartLine != nil {
			notes = append(notes, "start_line is ignored with grep")
		}
		fmt.Fprintf(&b, "output %s (%s; %d lines): %d lines match %s", g.Ref, source, g.Total, g.Matches, quoteJSON(g.Pattern))
		if g.Shown < g.Matches {
			fmt.Fprintf(&b, ", first %d shown", g.Shown)
		}
		b.WriteString("\n")
		writeNotes(&b, notes)
		if g.Text != "" {
			b.WriteString(g.Text + "\n")
		}
		if g.Shown < g.Matches {
			fmt.Fprintf(&b, "[%d more matching lines: narrow grep, or page through the output with start_line and line_count]\n", g.Matches-g.Shown)
		}
		return Result{Output: b.String(), Paged: true}, nil
	}
	p, err := s.env.Store.Page(meta.Ref, start, count)
	if err != nil {
		return Result{}, storeError(a.Ref, err)
	}
	if p.Total == 0 {
		fmt.Fprintf(&b, "output %s (%s) is empty\n", p.Ref, source)
		return Result{Output: b.String(), Paged: true}, nil
	}
	fmt.Fprintf(&b, "output %s (%s): lines %d-%d of %d\n", p.Ref, source, p.Start, p.End, p.Total)
	writeNotes(&b, notes)
	b.WriteString(p.Text + "\n")
	if p.End < p.Total {
		fmt.Fprintf(&b, "[%d more lines: call read_tool_output %s]\n", p.Total-p.End,
			jsonArgs("ref", p.Ref, "start_line", p.End+1, "line_count", count))
	} else {
		b.WriteString("[end of output]\n")
	}
	return Result{Output: b.String(), Paged: true}, nil
}

func writeNotes(b *strings.Builder, notes []string) {
	for _, n := range notes {
		fmt.Fprintf(b, "(%s)\n", n)
	}
}

// storeError words a tool memory error for the model.
func storeError(ref string, err error) error {
	if errors.Is(err, toolmem.ErrNotFound) {
		return fmt.Errorf("no stored output with ref %q; use the ref exactly as a preview header gives it", ref)
	}
	return err
}
