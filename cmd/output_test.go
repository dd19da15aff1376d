package cmd

import (
	"io"
	"strings"
	"testing"

	"github.com/reviewdev/review/review/report"
)

// The Markdown review is rendered for a terminal only when it goes to
// standard output, that is a terminal, and NO_COLOR is unset; a pipe, a
// file and every other format get it as written.
func TestForTerminal(t *testing.T) {
	md, _ := report.Lookup("markdown", report.Result)
	js, _ := report.Lookup("json", report.Result)
	write := func(w io.Writer) error {
		_, err := io.WriteString(w, "# Review\n\n**Suggestion:** use `x`\n")
		return err
	}
	for _, c := range []struct {
		name    string
		tty     bool
		noColor string
		path    string
		format  report.Format
		styled  bool
	}{
		{"terminal", true, "", "", md, true},
		{"terminal, -", true, "", "-", md, true},
		{"NO_COLOR", true, "1", "", md, false},
		{"pipe", false, "", "", md, false},
		{"file", true, "", "review.md", md, false},
		{"json", true, "", "", js, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out strings.Builder
			s := &IOStreams{Out: &out, OutTTY: c.tty}
			getenv := func(k string) string {
				if k == "NO_COLOR" {
					return c.noColor
				}
				return ""
			}
			if err := forTerminal(s, getenv, c.path, c.format, write)(&out); err != nil {
				t.Fatal(err)
			}
			got := out.String()
			if styled := strings.Contains(got, "\033["); styled != c.styled {
				t.Errorf("styled %v, want %v: %q", styled, c.styled, got)
			}
			if c.styled && strings.Contains(got, "**") {
				t.Errorf("Markdown left in the terminal's output: %q", got)
			}
			if !c.styled && got != "# Review\n\n**Suggestion:** use `x`\n" {
				t.Errorf("plain output changed: %q", got)
			}
		})
	}
}
