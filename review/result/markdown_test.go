package result

import (
	"testing"
)

func TestMarkdownHelpers(t *testing.T) {
	for in, want := range map[string]string{
		"a < b":            "a &lt; b",
		"`a < b` < c":      "`a < b` &lt; c",
		"``a ` < b`` <":    "``a ` < b`` &lt;",
		"`unclosed < b":    "`unclosed &lt; b",
		"<!-- x -->":       "&lt;!-- x -->",
		"no angles at all": "no angles at all",
	} {
		if got := EscapeAngles(in); got != want {
			t.Errorf("escapeAngles(%q) = %q, want %q", in, got, want)
		}
	}
	if got := CountFindings([]Finding{{Severity: High}}); got != "1 finding (1 high)" {
		t.Errorf("countFindings = %q", got)
	}
}
