package mdterm

import (
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"# Review of HEAD against main", "\033[1m\033[4m\033[35mReview of HEAD against main\033[39m\033[24m\033[22m"},
		{"## Findings (2)", "\033[1m\033[35mFindings (2)\033[39m\033[22m"},
		{"**Suggestion:** use `bcrypt`", "\033[1mSuggestion:\033[22m use \033[36mbcrypt\033[39m"},
		{"- one\n  - two", "• one\n  • two"},
		{"1. first", "1. first"},
		{"_The model did not submit._", "\033[3mThe model did not submit.\033[23m"},
		{"snake_case_name and a*b*c", "snake_case_name and a\033[3mb\033[23mc"},
		{"```go\nx := `a`  **b**\n```\nafter", "  \033[36mx := `a`  **b**\033[39m\n\nafter"},
		{"````\n```\n````", "  \033[36m```\033[39m"},
		{"---", "\033[2m" + strings.Repeat("─", 20) + "\033[22m"},
		{"> quoted", "\033[2m│\033[22m quoted"},
		{`a \*literal\* star`, "a *literal* star"},
		{"see [docs](https://x.test/a)", "see \033[4mdocs\033[24m \033[2m(https://x.test/a)\033[22m"},
		{"<details><summary>2 findings left out</summary>\n\n- a\n\n</details>\n", "\033[1m2 findings left out\033[22m\n\n• a\n"},
		{"3. three\n4. four\n   - sub\n\n   more", "3. three\n\n4. four\n\n   • sub\n\n   more"},
		{"- a\n- b", "• a\n• b"},
		{"| k | value |\n|---|---|\n| a | bb |", "\033[1mk\033[22m\033[2m │ \033[22m\033[1mvalue\033[22m\n" + "a\033[2m │ \033[22mbb"},
		{"~~gone~~ &amp; &#65; <br>", "\033[9mgone\033[29m & A <br>"},
		{"> - quoted item", "\033[2m│\033[22m • quoted item"},
		{"unclosed `tick and **bold", "unclosed `tick and **bold"},
		{"ends\n", "ends\n"},
	} {
		if got := Render(c.in, 20); got != c.want {
			t.Errorf("Render(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// The only escape sequences in the output are the renderer's: one in
// the input is neutralised first.
func TestRenderNeutralises(t *testing.T) {
	got := Render("# \033]8;;https://evil.test\033\\title\n\033[2Jbody", 80)
	if strings.Contains(got, "\033]") || strings.Contains(got, "\033[2J") {
		t.Errorf("escape sequence passed: %q", got)
	}
}

func FuzzRender(f *testing.F) {
	f.Add("# h\n**b** _i_ `c` [l](u)\n```\ncode\n```\n- x\n> q")
	f.Fuzz(func(t *testing.T, md string) {
		out := Render(md, 80)
		if strings.Contains(out, "\033]") {
			t.Fatalf("OSC in output of %q", md)
		}
	})
}
