package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/toolmem"
)

type outputArgs struct {
	Ref       string  `json:"ref"`
	StartLine int     `json:"start_line"`
	LineCount int     `json:"line_count"`
	Grep      *string `json:"grep"`
}

func (s *Set) outputTool() Tool {
	return s.repoTool(Spec{
		Name:        toolname.ReadToolOutput,
		Description: fmt.Sprintf("Page or grep an output shown as a preview; its header gives the ref and the next call. At most %d lines per call.", toolmem.MaxPageLines),
		Params: []Param{
			String("ref", "The ref in the preview's header.").Required().Example("abcdefgh23"),
			Integer("start_line", "First line of the page. Ignored with grep.").Min(1).Default(1).Example(81),
			Integer("line_count", "Lines per page (with grep: most matches).").Min(1).Max(toolmem.MaxPageLines).Default(toolmem.DefaultPageLines).Example(toolmem.DefaultPageLines),
			String("grep", `RE2 expression selecting lines instead of a page, e.g. "(?i)error|warn". Null to page.`).Example(nil),
		},
		// Its results are pages of stored outputs.
		Unstored: true,
	}, func(ctx context.Context, args Args) (Result, error) {
		var a outputArgs
		if err := args.Decode(&a); err != nil {
			return Result{}, err
		}
		return s.output(a, args)
	})
}

func (s *Set) output(a outputArgs, args Args) (Result, error) {
	if s.env.Store == nil {
		return Result{}, errors.New(toolname.ReadToolOutput + " is unavailable: this session keeps no tool outputs; call the original tool again with narrower arguments")
	}
	if strings.TrimSpace(a.Ref) == "" {
		return Result{}, errors.New(`ref is empty; send the ref from a preview header, e.g. {"ref": "abcdefgh23"}`)
	}
	start, count := a.StartLine, a.LineCount
	notes := args.Notes()
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
		g, err := s.env.Store.Grep(meta.Ref, *a.Grep, count, s.env.PageChars)
		if err != nil {
			return Result{}, storeError(a.Ref, err)
		}
		if args.Given("start_line") {
			notes = append(notes, "start_line is ignored with grep")
		}
		verb := "lines match"
		if g.Matches == 1 {
			verb = "line matches"
		}
		fmt.Fprintf(&b, "output %s (%s; %d lines): %d %s %s", g.Ref, source, g.Total, g.Matches, verb, text.QuoteJSON(g.Pattern))
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
		return Result{Output: b.String()}, nil
	}
	p, err := s.env.Store.Page(meta.Ref, start, count, s.env.PageChars)
	if err != nil {
		return Result{}, storeError(a.Ref, err)
	}
	if p.Total == 0 {
		fmt.Fprintf(&b, "output %s (%s) is empty\n", p.Ref, source)
		return Result{Output: b.String()}, nil
	}
	fmt.Fprintf(&b, "output %s (%s): lines %d-%d of %d\n", p.Ref, source, p.Start, p.End, p.Total)
	writeNotes(&b, notes)
	b.WriteString(p.Text + "\n")
	if p.End < p.Total {
		fmt.Fprintf(&b, "[%d more lines: call "+toolname.ReadToolOutput+" %s]\n", p.Total-p.End,
			jsonArgs("ref", p.Ref, "start_line", p.End+1, "line_count", count))
	} else {
		b.WriteString("[end of output]\n")
	}
	return Result{Output: b.String()}, nil
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
