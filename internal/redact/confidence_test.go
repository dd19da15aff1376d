package redact

import (
	"os"
	"strings"
	"testing"
)

func TestSetting(t *testing.T) {
	long := strings.Repeat("a", minifiedLine+1)
	tests := []struct{ path, line, want string }{
		{"README.md", "x", SettingDocs},
		{"docs/api/v1.44.yaml", "x", SettingDocs},
		{"api/swagger.yaml", "x", SettingDocs},
		{"web/openapi.json", "x", SettingDocs},
		{"examples/oauth/main.go", "x", SettingDocs},
		{"internal/auth/testdata/config.yaml", "x", SettingFixture},
		{"server/handler_test.go", "x", SettingFixture},
		{"web/src/app.spec.ts", "x", SettingFixture},
		{"tests/test_client.py", "x", SettingFixture},
		{"spec/fixtures/users.yml", "x", SettingFixture},
		{"static/js/main.min.js", "x", SettingMinified},
		{"web/dist/app.js", long, SettingMinified},
		{"", long, SettingMinified},
		{"config/prod.env", "x", ""},
		{"cmd/docsearch/main.go", "x", ""},
		{"swagger-ui.js", "x", ""},
		{"testdata", "x", ""}, // a file, not a folder, of that name
		{"", "x", ""},
	}
	for _, tt := range tests {
		if got := Setting(tt.path, tt.line); got != tt.want {
			t.Errorf("Setting(%q, %d bytes) = %q, want %q", tt.path, len(tt.line), got, tt.want)
		}
	}
}

func TestConfidence(t *testing.T) {
	r := New(Options{})
	for text, want := range map[string]Confidence{
		"GITHUB_TOKEN=" + githubToken:              High,
		"aws_access_key_id = AKIAIOSFODNN7EXAMPLE": High,
		pemKey():                               High,
		`DB_PASSWORD = "s3cr3t-Pa55w0rd!"`:     Low,
		"export API_KEY=" + fake(4, alnum, 32): Low,
		`adafruit_key = "` + fake(6, "abcdef0123456789", 32) + `"`:     Low,
		"DATABASE_URL=postgres://app:Tr0ub4dor-3@db.internal:5432/app": Low,
	} {
		_, ms := r.Redact(text)
		if len(ms) != 1 || ms[0].Confidence != want {
			t.Errorf("%.40q: %+v, want one match of %s confidence", text, ms, want)
		}
	}
}

// Certificates and module hashes are public: never redacted, whole or in
// part, in a file or a tool's page of it; a token of a known format
// inside a certificate block still is.
func TestPublic(t *testing.T) {
	bundle, err := os.ReadFile("testdata/corpus/certs/testdata/ca-bundle.pem")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(bundle)), "\n")
	var gutter []string
	for i, l := range lines {
		gutter = append(gutter, strings.Repeat(" ", 2)+string(rune('1'+i%9))+": "+l)
	}
	hashes := "golang.org/x/oauth2 v0.21.0 h1:tsimM75w1tF/uws5rbeHzIWxEqElMehnc+iW793zsZs=\n" +
		"github.com/hashicorp/vault/api v1.14.0 h1:Ah3CFLixD5jmjusOgm8grfN9M0d+Y8fVR2SW0K6pJLU=\n"
	r := New(Options{})
	for name, text := range map[string]string{
		"bundle":        string(bundle),
		"page":          strings.Join(lines[5:], "\n"), // no BEGIN line
		"read":          strings.Join(gutter, "\n"),
		"json":          `{"ca": "` + strings.ReplaceAll(string(bundle), "\n", `\n`) + `"}`,
		"go.sum":        hashes,
		"read of a sum": "1: " + strings.ReplaceAll(hashes, "\n", "\n2: "),
	} {
		if out, ms := r.Redact(text); len(ms) > 0 || out != text {
			t.Errorf("%s: redacted %+v", name, ms)
		}
	}
	inside := "-----BEGIN CERTIFICATE-----\n" + githubToken + "\n-----END CERTIFICATE-----\n"
	if out, _ := r.Redact(inside); strings.Contains(out, githubToken) {
		t.Errorf("a token inside a certificate block was left:\n%s", out)
	}
}
