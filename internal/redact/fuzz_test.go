package redact

import (
	"strings"
	"testing"

	"github.com/reviewdev/review/internal/redact/redacttest"
)

// FuzzRedact feeds the redactor untrusted text: whatever it is, redaction
// keeps its lines, names every replaced span in order, and redacting the
// result again changes nothing.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		"",
		"token = " + githubToken + "\n",
		pemKey(),
		"12: " + strings.ReplaceAll(pemKey(), "\n", "\n13: "),
		"+" + strings.ReplaceAll(pemKey(), "\n", "\n+"),
		`DB_PASSWORD = "s3cr3t-Pa55w0rd!"` + "\r\n" + `url = "postgres://app:Tr0ub4dor-3@db:5432/x"`,
		"key: [secret:github-pat#1a2b]\npassword: hunter22x\n",
		"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7",
		"export API_KEY=" + fake(4, alnum, 32),
		"\xff\xfe api_key = \"\xe2\x82\xac1234567\"",
		// A minified line, scanned around its keywords, with a token and
		// a generic key far into it.
		strings.Repeat("e.key=t.token||{},", 150) + `n="` + githubToken + `",apiKey:"` + fake(7, alnum, 32) + `"`,
		"-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n-----END CERTIFICATE-----\n",
		"golang.org/x/oauth2 v0.21.0 h1:tsimM75w1tF/uws5rbeHzIWxEqElMehnc+iW793zsZs=\n",
		// Values on the next line, in the layouts of the tools.
		"db:\n  password: |-\n    " + fake(8, alnum, 20) + "\n\n    more\n  user: app\n",
		"cfg.yaml:3: password:\ncfg.yaml-4-   " + fake(9, alnum, 20) + "\n--\n",
		"+export API_TOKEN=\\\n+  \"" + fake(10, alnum, 24) + "\"\n",
		"GET /\r\nAuthorization: Basic ZGVwbG95OmJqRE1BVG5xWjN4\r\n",
	} {
		f.Add(s)
	}
	for _, fm := range redacttest.Forms() {
		f.Add(fm.Text)
	}
	r := New(Options{})
	f.Fuzz(func(t *testing.T, in string) {
		out, ms := r.Redact(in)
		if strings.Count(out, "\n") != strings.Count(in, "\n") {
			t.Fatalf("lines changed: %q -> %q", in, out)
		}
		if len(ms) == 0 && out != in {
			t.Fatalf("no match, but %q -> %q", in, out)
		}
		prev := 0
		for _, m := range ms {
			if m.Start < prev || m.End <= m.Start || m.End > len(in) || m.Line > m.EndLine || m.Line < 1 {
				t.Fatalf("bad match %+v in %q", m, in)
			}
			if !strings.Contains(out, m.Placeholder) {
				t.Fatalf("placeholder %s missing from %q", m.Placeholder, out)
			}
			prev = m.End
		}
		if again, ms2 := r.Redact(out); again != out {
			t.Fatalf("not idempotent (%+v):\n%q\n%q", ms2, out, again)
		}
	})
}
