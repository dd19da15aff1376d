package review

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/redact"
	"github.com/reviewdev/review/review/result"
)

// A token of a known format is a critical finding wherever it is; a
// generic match is a low one, and in documentation, test fixtures and
// minified code none unless report_all_secrets asks for it.
func TestLeakFindings(t *testing.T) {
	leaks := []diffctx.Leak{
		{Path: "config/prod.env", Line: 1, Rule: "github-pat", Confidence: redact.High},
		{Path: "config/prod.env", Line: 2, Rule: "generic-password", Confidence: redact.Low},
		{Path: "docs/api.md", Line: 3, Rule: "generic-api-key", Confidence: redact.Low, Setting: redact.SettingDocs},
		{Path: "docs/api.md", Line: 4, Rule: "aws-access-token", Confidence: redact.High, Setting: redact.SettingDocs},
		{Path: "static/app.min.js", Line: 1, Rule: "generic-api-key", Confidence: redact.Low, Setting: redact.SettingMinified},
		{Path: "testdata/creds.env", Line: 1, Rule: "url-credentials", Confidence: redact.Low, Setting: redact.SettingFixture},
		{Path: "fixtures/keys.env", Line: 1, Rule: "stripe-access-token", Confidence: redact.High},
	}
	severities := func(ls []diffctx.Leak) map[string]result.Severity {
		out := map[string]result.Severity{}
		for _, f := range leakFindings(ls) {
			out[f.Path+":"+f.Title] = f.Severity
		}
		return out
	}
	got := severities(allowLeaks(append([]diffctx.Leak(nil), leaks...), []string{"fixtures/**"}, nil, false))
	want := map[string]result.Severity{
		"config/prod.env:Secret committed: github-pat":       result.Critical,
		"config/prod.env:Secret committed: generic-password": result.Low,
		"docs/api.md:Secret committed: aws-access-token":     result.Critical,
	}
	if len(got) != len(want) {
		t.Errorf("findings %v, want %v", got, want)
	}
	for k, s := range want {
		if got[k] != s {
			t.Errorf("%s: %q, want %q (all: %v)", k, got[k], s, got)
		}
	}
	all := severities(allowLeaks(append([]diffctx.Leak(nil), leaks...), nil, nil, true))
	if len(all) != len(leaks) || all["docs/api.md:Secret committed: generic-api-key"] != result.Low {
		t.Errorf("report_all_secrets: %v", all)
	}
}

// TestRedactOutcome holds that what the model wrote of a result or an
// answer reaches the formats with placeholders, whatever path made it.
func TestRedactOutcome(t *testing.T) {
	pw := "Sup3rS3cret" + "Passw0rd!xQ7"
	form := "DB_PASSWORD=" + pw + ", ok?"
	rep := form
	out := &Outcome{
		Result: &result.Result{Summary: form, Findings: []result.Finding{{Title: form, Body: form, Suggestion: form, Note: form, Replacement: &rep}},
			Dropped: []result.Dropped{{Finding: result.Finding{Body: form}, Reason: form}}},
		Answer: &result.Answer{Answer: form, Question: form, Findings: []result.Finding{{Body: form}}},
	}
	redactOutcome(redact.New(redact.Options{}), out)
	b, err := json.Marshal(out.Result)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(out.Answer)
	if strings.Contains(string(b)+string(a), pw) {
		t.Errorf("a secret is left:\n%s\n%s", b, a)
	}
	if rep != form {
		t.Errorf("the finding's replacement was changed in place")
	}
}
