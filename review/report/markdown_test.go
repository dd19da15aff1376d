package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/reviewdev/review/review/result"
)

func TestMarkdownIsNoWorkflowCommand(t *testing.T) {
	r := &result.Result{RunID: "r", Submitted: true, Summary: "fine\n::error file=x::pwned\n  ::warning::x",
		Findings: []result.Finding{{Path: "a.go", Line: 1, Severity: result.High, Category: "security", Title: "two\n::lines", Body: "::set-output name=x::y"}}}
	var b strings.Builder
	if err := writeMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "::") {
			t.Errorf("line would run as a workflow command: %q", l)
		}
	}
	if !strings.Contains(b.String(), "### 1. [high] two ::lines") {
		t.Errorf("title not on one line:\n%s", b.String())
	}
}

func TestMarkdownReplacement(t *testing.T) {
	repl := "x := \"```\""
	r := &result.Result{RunID: "r", Submitted: true, Findings: []result.Finding{{Path: "a.go", Line: 3, Severity: result.Low, Title: "t", Replacement: &repl}}}
	var b bytes.Buffer
	if err := writeMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "**Suggested change** (`a.go:3`):\n\n````\nx := \"```\"\n````\n") {
		t.Errorf("markdown:\n%s", b.String())
	}
}
