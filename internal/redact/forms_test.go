package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/reviewdev/review/internal/redact/redacttest"
)

// TestForms holds that a secret is hidden wherever its value ends: before
// more words, punctuation, quotes or brackets, as at the end of its line.
func TestForms(t *testing.T) {
	r := New(Options{})
	forms := redacttest.Forms()
	if len(forms) < 40 {
		t.Fatalf("%d forms, want at least 40", len(forms))
	}
	for _, f := range forms {
		if out, _ := r.Redact(f.Text); strings.Contains(out, f.Secret) {
			t.Errorf("%q: the secret is still there: %q", f.Text, out)
		}
		if out, _ := r.Redact("notes:\n" + f.Text + "\nend\n"); strings.Contains(out, f.Secret) {
			t.Errorf("%q, a line of a file: the secret is still there", f.Text)
		}
	}
}

// TestFormsInJSON holds that a tool call's arguments quoting the forms
// stay valid JSON with every secret replaced.
func TestFormsInJSON(t *testing.T) {
	r := New(Options{})
	for _, f := range redacttest.Forms() {
		doc, _ := json.Marshal(map[string]any{"summary": f.Text, "findings": []any{map[string]any{"body": "see: " + f.Text, "line": 3}}})
		out, _ := r.RedactJSON(string(doc))
		if !json.Valid([]byte(out)) {
			t.Errorf("%q: not JSON after redaction: %s", f.Text, out)
		}
		if strings.Contains(out, f.Secret) {
			t.Errorf("%q: the secret is still there: %s", f.Text, out)
		}
	}
	pair := `{"password": "Zq8-x` + `Lw2!vK9", "user": "app"}`
	if out, ms := r.RedactJSON(pair); len(ms) == 0 || strings.Contains(out, "Lw2!vK9") || !json.Valid([]byte(out)) {
		t.Errorf("a name and value apart: %s (%+v)", out, ms)
	}
	if out, _ := r.RedactJSON(`{"path": "a.go", "start_line": 1}`); out != `{"path": "a.go", "start_line": 1}` {
		t.Errorf("a document without secrets changed: %s", out)
	}
}
