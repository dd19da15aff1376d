package redact

import (
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
