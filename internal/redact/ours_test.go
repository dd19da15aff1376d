package redact

import (
	"bytes"
	"encoding/json"
	"github.com/reviewdev/review/internal/redact/redacttest"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// oursOnly returns a Redactor applying only what this package adds to
// gitleaks' rules for providers, webhooks, headers and values on the next
// line: ourRules and the next-line part of RuleAssignment.
func oursOnly(t testing.TB) *Redactor {
	t.Helper()
	r := New(Options{})
	var rs []*rule
	for _, rl := range loadRules().rules {
		if rl.prio == prioOurs || rl.desc == descNextLine {
			rs = append(rs, rl)
		}
	}
	if len(rs) != len(ourRules)+1 {
		t.Fatalf("%d rules of ours, want %d", len(rs), len(ourRules)+1)
	}
	r.rules.Store("", rs)
	return r
}

// TestGitleaksFalsePositives holds this package's own rules to the false
// positives gitleaks tests its rules with (testdata/gitleaks/fps.json,
// written by go generate from the gitleaks module): none finds a secret
// in any of them.
func TestGitleaksFalsePositives(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "gitleaks", "fps.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		FPs []struct{ File, Text string }
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.FPs) < 400 {
		t.Fatalf("%d false positives, want gitleaks' 424", len(doc.FPs))
	}
	r := oursOnly(t)
	for _, fp := range doc.FPs {
		if _, ms := r.Redact(fp.Text); len(ms) > 0 {
			t.Errorf("%s: %q: %s finds %q", fp.File, fp.Text, ms[0].Rule, fp.Text[ms[0].Start:ms[0].End])
		}
	}
}

// TestScanTree measures the false alarms of this package's own rules (see
// oursOnly) on a tree of real code and documentation, when
// $REVIEW_REDACT_SCAN names one (the module cache, say): it lists every
// secret found, and fails on none, as the tree may hold real ones. Without
// the variable it is skipped.
func TestScanTree(t *testing.T) {
	root := os.Getenv("REVIEW_REDACT_SCAN")
	if root == "" {
		t.Skip("set REVIEW_REDACT_SCAN to a directory to scan")
	}
	r := oursOnly(t)
	files, lines, found := 0, 0, 0
	byRule := map[string]int{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil || len(b) > 8<<20 || bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0 {
			return nil // binary, or too large to be source
		}
		files++
		lines += bytes.Count(b, []byte("\n")) + 1
		_, ms := r.Redact(string(b))
		for _, m := range ms {
			found++
			byRule[m.Rule]++
			t.Logf("%s:%d: %s %q", p, m.Line, m.Rule, clip(string(b[m.Start:m.End])))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var rules []string
	for id, n := range byRule {
		rules = append(rules, id+" "+strconv.Itoa(n))
	}
	slices.Sort(rules)
	t.Logf("%d files, %d lines, %d found %v", files, lines, found, rules)
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// TestProviderForms holds which rule names each form of redacttest's
// provider keys, webhooks, headers and next-line values: gitleaks' where
// it has one, else ours.
func TestProviderForms(t *testing.T) {
	want := []string{
		"groq-api-key", "xai-api-key", "openrouter-api-key", "deepseek-api-key", "openai-compatible-api-key",
		"together-api-key", "fireworks-api-key", "mistral-api-key", "anthropic-oauth-token", "openai-api-key",
		"azure-ai-services-key", "gcp-oauth-client-secret", "sentry-org-token", "sentry-org-token",
		"discord-webhook-url", "slack-webhook-url", "microsoft-teams-webhook", "teams-workflow-webhook",
		"authorization-header", "authorization-header",
		"generic-password", "generic-password", "generic-api-key", "generic-password",
	}
	forms := redacttest.Forms()
	forms = forms[len(forms)-len(want):]
	r := New(Options{})
	for i, f := range forms {
		out, ms := r.Redact(f.Text)
		if len(ms) != 1 || ms[0].Rule != want[i] || strings.Contains(out, f.Secret) {
			t.Errorf("%q: %+v, want one match of %s", f.Text, ms, want[i])
		}
	}
}

// TestNextLine holds where a value on the line after its name is found,
// in each layout a text has, and where it is not.
func TestNextLine(t *testing.T) {
	const v = "Zq8xLw2vK9pT4mR7"
	for _, c := range []struct {
		text string
		want bool
	}{
		{"password: |\n  " + v + "\nuser: x", true},
		{"db:\n  password: >-\n    " + v + "\n  user: x", true},
		{"db:\n  password: |+ # rotated\n\n    " + v + "\n", true},
		{"db:\n  password:\n    " + v + "\n  user: x", true},
		{"- password: |\n    " + v, true},
		{"export API_TOKEN=\\\n  " + v + " && ./deploy", true},
		{"token = \\\n    \"" + v + "\"", true},
		{"\"password\":\n  \"" + v + "\",", true},
		{"12: password: |\n13:   " + v + "\n14: user: x", true},        // read_file_hunk
		{"+db:\n+  password: |\n+    " + v + "\n+  user: x", true},     // get_file_diff
		{" db:\n-  password: |\n+  password: |\n+    " + v, true},      // a changed key
		{"cfg.yaml:3: password: |\ncfg.yaml-4-   " + v + "\n--", true}, // search_in_project
		{"see password: |\n  " + v, true},                              // a finding's body
		{"db:\n  password:\n    user: x\n", false},                     // a mapping
		{"password:\n  - " + v + "\n", false},                          // a list
		{"password: |\n  ${{ secrets.DB_PASSWORD }}\n", false},         // a reference
		{"password:\n  process.env.DB_PASSWORD\n", false},              // code
		{"password: |\n" + v + "\n", false},                            // not indented: not the block's
		{"case \"password\":\n    return " + v, false},                 // code
		{"12: password: |\n" + v, false},                               // another layout
		{"password: |\n  changeme-please\n", false},                    // a placeholder
		{"password_hint: |\n  " + v, false},                            // not a secret's name
	} {
		out, ms := New(Options{}).Redact(c.text)
		if got := len(ms) > 0; got != c.want || got && strings.Contains(out, v) {
			t.Errorf("%q: redacted %v, want %v: %q %+v", c.text, got, c.want, out, ms)
		}
	}
}

// TestOursLeaveAlone holds values our rules must not take for secrets.
func TestOursLeaveAlone(t *testing.T) {
	r := oursOnly(t)
	for _, text := range []string{
		"fw_UpdateFirmwareVersionX = 3",
		`req.Header.Set("Authorization", "Bearer "+token)`,
		"Authorization: Bearer YOUR_ACCESS_TOKEN_HERE",
		"Authorization: Bearer ${GITHUB_TOKEN}",
		"Authorization: Basic Q0xJRU5UX0lEOkNMSUVOVF9TRUNSRVQ=", // CLIENT_ID:CLIENT_SECRET
		"Authorization: Basic dXNlcjpwYXNzd29yZA==",             // user:password
		"Authorization: Basic aGVsbG8gd29ybGQgdGhlcmU=",         // no colon
		"task-0123456789abcdef0123456789abcdef",
		"the together = true flag",
		"mistral: mistral-large-latest",
	} {
		if out, ms := r.Redact(text); len(ms) > 0 {
			t.Errorf("%q: %q", text, out)
		}
	}
}
