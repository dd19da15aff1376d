package report

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/review/result"
)

func TestNames(t *testing.T) {
	for k, want := range map[Kind][]string{
		Result: {"markdown", "json", "sarif", "github", "rdjson", "codequality"},
		Answer: {"markdown", "json"},
		DryRun: {"markdown", "json"},
	} {
		if got := Names(k); !slices.Equal(got, want) {
			t.Errorf("Names(%s) = %v, want %v", k, got, want)
		}
	}
	seen := map[string]bool{}
	for _, f := range registry {
		if seen[f.Name] {
			t.Errorf("format %s is registered twice", f.Name)
		}
		seen[f.Name] = true
		if !f.Writes(Result) && !f.Writes(Answer) && !f.Writes(DryRun) {
			t.Errorf("format %s writes nothing", f.Name)
		}
	}
}

func TestLookup(t *testing.T) {
	tests := []struct {
		name string
		kind Kind
		want string // "" when there is no such format for kind
	}{
		{"", Result, "markdown"},
		{"", Answer, "markdown"},
		{"", DryRun, "markdown"},
		{"sarif", Result, "sarif"},
		{"json", Answer, "json"},
		{"sarif", Answer, ""},
		{"github", DryRun, ""},
		{"yaml", Result, ""},
		{"Markdown", Result, ""},
	}
	for _, tt := range tests {
		f, ok := Lookup(tt.name, tt.kind)
		if ok != (tt.want != "") || f.Name != tt.want {
			t.Errorf("Lookup(%q, %s) = %q, %v; want %q", tt.name, tt.kind, f.Name, ok, tt.want)
		}
	}
}

// TestEveryFormatWrites writes each kind in each format that names it, and
// checks that a format asked for a kind it does not write says so instead
// of writing another format.
func TestEveryFormatWrites(t *testing.T) {
	answer := &result.Answer{RunID: "r", Turn: 2, Answer: "Because.", Model: "m",
		Findings: []result.Finding{{Path: "a.go", Line: 3, Severity: result.Low, Title: "t"}}}
	dry := &result.DryRun{Model: "m", Tokenizer: "estimate",
		Messages: []result.DryRunMessage{{Role: conversation.System, Layer: conversation.Static, Tokens: 3, Content: "You are review"}}}
	for _, f := range registry {
		for _, k := range []Kind{Result, Answer, DryRun} {
			var b bytes.Buffer
			var err error
			switch k {
			case Result:
				err = f.WriteResult(&b, hostileResult(), "v1")
			case Answer:
				err = f.WriteAnswer(&b, answer)
			case DryRun:
				err = f.WriteDryRun(&b, dry)
			}
			switch {
			case f.Writes(k) && (err != nil || b.Len() == 0):
				t.Errorf("%s %s: %v, %d bytes", f.Name, k, err, b.Len())
			case !f.Writes(k) && (err == nil || b.Len() > 0 || !strings.Contains(err.Error(), f.Name)):
				t.Errorf("%s cannot write a %s, yet: %v, %q", f.Name, k, err, b.String())
			}
		}
	}
}

func TestWriteDryRun(t *testing.T) {
	d := &result.DryRun{
		Revisions: result.Revisions{Base: "main", Head: "HEAD", BaseSHA: "0123456789abcdef", HeadSHA: "fedcba9876543210", MergeBase: "0123456789abcdef"},
		Model:     "gpt-4o-mini", Tokenizer: "tiktoken o200k_base",
		Messages: []result.DryRunMessage{
			{Role: conversation.System, Layer: conversation.Static, Tokens: 120, Content: "You are review."},
			{Role: conversation.User, Layer: conversation.Loop, Tokens: 30, Content: "Review it.\n"},
		},
		Tools: []result.DryRunTool{{Name: "read_file_hunk"}, {Name: "submit_review"}},
	}
	d.Budget.ContextWindow, d.Budget.AnswerReserve, d.Budget.Input = 128000, 8192, 119808
	d.Budget.ToolTokens, d.Budget.TotalTokens = 400, 550
	var b bytes.Buffer
	if err := writeDryRun(&b, d); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Dry run: main (0123456789ab) → HEAD (fedcba987654), merge base 0123456789ab\n",
		"Model gpt-4o-mini, tokenizer tiktoken o200k_base. Nothing is sent.\n\n",
		"━━ message 1 · system · static layer · 120 tokens ━━\nYou are review.\n\n",
		"━━ message 2 · user · loop layer · 30 tokens ━━\nReview it.\n\n",
		"━━ tools · static layer · 400 tokens ━━\nread_file_hunk, submit_review\n\n",
		"Budget: context window 128,000, answer reserve 8,192, input 119,808 tokens.\n",
		"First request: 550 tokens (0.5% of input).\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("dry run lacks %q:\n%s", want, b.String())
		}
	}
}

// BenchmarkWriters writes a review of 200 findings in each format that
// writes one and reports the output's size per finding.
func BenchmarkWriters(b *testing.B) {
	r := &result.Result{RunID: "bench", Model: "gpt-4o-mini", Submitted: true, Usage: result.RunUsage{Requests: 12, Prompt: 400_000, Cached: 250_000, Completion: 9000}}
	for i := range 200 {
		r.Findings = append(r.Findings, result.Finding{
			Path: fmt.Sprintf("pkg/mod%d/file%d.go", i%17, i), Line: 10 + i, EndLine: 12 + i,
			Severity: []result.Severity{result.Critical, result.High, result.Medium, result.Low, result.Info}[i%5], Category: []string{"correctness", "security", "performance"}[i%3],
			Title: fmt.Sprintf("Problem number %d in the handler", i), Body: strings.Repeat("The handler forgets to close the body. ", 8),
			Suggestion: "```suggestion\n\tdefer resp.Body.Close()\n```",
		})
	}
	for _, name := range Names(Result) {
		f, _ := Lookup(name, Result)
		b.Run(name, func(b *testing.B) {
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := f.WriteResult(&buf, r, "v1"); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(buf.Len())/float64(len(r.Findings)), "bytes/finding")
		})
	}
}
