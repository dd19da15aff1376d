package redact

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// fake returns n characters drawn from alphabet with a fixed seed: secrets
// shaped like real ones without being any.
func fake(seed uint64, alphabet string, n int) string {
	rng := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

const (
	alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	base64 = alnum + "+/"
)

// pemKey is a private key block of random base64, as a file holds it.
func pemKey() string {
	var b strings.Builder
	b.WriteString("-----BEGIN RSA PRIVATE KEY-----\n")
	for i := range 6 {
		b.WriteString(fake(uint64(100+i), base64, 64) + "\n")
	}
	b.WriteString(fake(200, base64, 20) + "==\n-----END RSA PRIVATE KEY-----\n")
	return b.String()
}

var (
	githubToken = "ghp_" + fake(1, alnum, 36)
	slackToken  = "xoxb-2345678901-2345678901234-" + fake(2, alnum, 24)
	stripeKey   = "sk_live_" + fake(3, alnum, 24)
	jwtToken    = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)

func TestDetects(t *testing.T) {
	tests := []struct {
		name, text, secret, rule string
	}{
		{"aws key id", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n", "AKIAIOSFODNN7EXAMPLE", "aws-access-token"},
		{"github token", "GITHUB_TOKEN=" + githubToken + "\n", githubToken, "github-pat"},
		{"slack token", `slack := "` + slackToken + `"`, slackToken, "slack-bot-token"},
		{"stripe key", `stripe.api_key = "` + stripeKey + `"`, stripeKey, "stripe-access-token"},
		{"jwt", `auth = "` + jwtToken + `"`, jwtToken, "jwt"},
		{"private key", pemKey(), fake(101, base64, 64), "private-key"},
		{"password in python", `DB_PASSWORD = "s3cr3t-Pa55w0rd!"`, "s3cr3t-Pa55w0rd!", RuleAssignment},
		{"password in go", `cfg.Password := "hunter2-but-longer"`, "hunter2-but-longer", RuleAssignment},
		{"password in yaml", "db:\n  password: Tr0ub4dor&3\n", "Tr0ub4dor&3", RuleAssignment},
		{"key in .env", "export API_KEY=8f14e45fceea167a\n", "8f14e45fceea167a", RuleAssignment},
		{"random key in .env", "export API_KEY=" + fake(4, alnum, 32) + "\n", fake(4, alnum, 32), "generic-api-key"},
		{"token comparison", `if token == "tok_93jd82kd" {`, "tok_93jd82kd", RuleAssignment},
		{"header pair", `req.Header.Set("X-Api-Key", "a8Fk2-p0Qz")`, "a8Fk2-p0Qz", RuleAssignment},
		{"json", `{"client_secret": "9f8e7d6c5b4a"}`, "9f8e7d6c5b4a", "generic-api-key"},
		{"url", `DATABASE_URL=postgres://app:Tr0ub4dor-3@db.internal:5432/app`, "Tr0ub4dor-3", RuleURL},
		{"url without user", `redis://:p4ssw0rd-x@cache:6379/0`, "p4ssw0rd-x", RuleURL},
	}
	r := New(Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, ms := r.Redact(tt.text)
			if strings.Contains(out, tt.secret) {
				t.Errorf("the secret is still there:\n%s", out)
			}
			if len(ms) == 0 || ms[0].Rule != tt.rule {
				t.Fatalf("matches %+v, want rule %s", ms, tt.rule)
			}
			if !strings.Contains(out, ms[0].Placeholder) || !strings.HasPrefix(ms[0].Placeholder, "[secret:"+tt.rule+"#") {
				t.Errorf("placeholder %q, text:\n%s", ms[0].Placeholder, out)
			}
		})
	}
}

// Text that names secrets without holding one is left alone: the model
// needs the code, and each false alarm in the diff is a critical finding.
func TestLeavesAlone(t *testing.T) {
	texts := []string{
		`password = os.Getenv("DB_PASSWORD")`,
		`token: ${{ secrets.GITHUB_TOKEN }}`,
		`password: "${DB_PASSWORD}"`,
		`api_key = "{{ .Values.apiKey }}"`,
		`func hash(password string) []byte {`,
		`tokenizer = "cl100k_base"`,
		`max_tokens = 4096`,
		`password_hint = "your first pet"`,
		`url = "https://user:password@example.com"`,
		`DATABASE_URL=postgres://postgres:postgres@localhost:5432/db`,
		`password = "changeme123"`,
		`secret = "<your secret here>"`,
		`token := generateToken(user, 24*time.Hour)`,
		`password: !vault |`,
		`apiKey: string;`,
		`lacks(t, res.Output, "outside secret", "root:x:0", "[core]")`,
		`Password string ` + "`json:\"password\"`",
		`key = "user:12345"`,
		"aws_access_key_id = AKIA\n", // too short
		"already [secret:github-pat#1a2b] here",
		// Names followed by more on their line: code, not values.
		`conn = connect(user=u, password=db_pass2, port=5432)`,
		`login({password: hashed_pw1, user})`,
		`token = newToken42(user) // fresh`,
		`secret: getSecret(name), other: 1`,
		`if password == confirm { ok() }`,
		`the password: see docs/setup.md for it`,
	}
	r := New(Options{})
	for _, text := range texts {
		if out, ms := r.Redact(text); len(ms) > 0 || out != text {
			t.Errorf("%q: redacted as %q (%+v)", text, out, ms)
		}
	}
}

func TestPlaceholders(t *testing.T) {
	r := New(Options{})
	other := "ghp_" + fake(9, alnum, 36)
	text := "a = " + githubToken + "\nb = " + githubToken + "\nc = " + other + "\n"
	out, ms := r.Redact(text)
	if len(ms) != 3 {
		t.Fatalf("%d matches, want 3: %+v", len(ms), ms)
	}
	if ms[0].Placeholder != ms[1].Placeholder {
		t.Errorf("one secret, two placeholders: %s, %s", ms[0].Placeholder, ms[1].Placeholder)
	}
	if ms[0].Placeholder == ms[2].Placeholder {
		t.Errorf("two secrets, one placeholder %s", ms[0].Placeholder)
	}
	if !regexp.MustCompile(`^\[secret:github-pat#[0-9a-f]{4}\]$`).MatchString(ms[0].Placeholder) {
		t.Errorf("placeholder %q", ms[0].Placeholder)
	}
	if ms[2].Line != 3 || ms[2].EndLine != 3 || text[ms[2].Start:ms[2].End] != other {
		t.Errorf("match %+v does not locate the third secret", ms[2])
	}
	// Placeholders are the same in another run, for replay and follow-ups.
	if again, _ := New(Options{}).Redact(text); again != out {
		t.Errorf("a second redactor wrote %q, the first %q", again, out)
	}
}

// Redaction keeps every line where it was: a key over eight lines leaves
// eight placeholder lines, with what laid them out.
func TestKeepsLines(t *testing.T) {
	r := New(Options{})
	key := strings.Split(strings.TrimSuffix(pemKey(), "\n"), "\n")
	tests := []struct {
		name   string
		lines  func(i int, l string) string
		layout string // what each line of the key must still start with
	}{
		{"file", func(_ int, l string) string { return l }, ""},
		{"indented", func(_ int, l string) string { return "    " + l }, "    "},
		{"read_file_hunk", func(i int, l string) string { return strconv.Itoa(i+10) + ": " + l }, ": "},
		{"diff", func(_ int, l string) string { return "+" + l }, "+"},
		{"crlf", func(_ int, l string) string { return l + "\r" }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in []string
			in = append(in, "before")
			for i, l := range key {
				in = append(in, tt.lines(i, l))
			}
			in = append(in, "after")
			text := strings.Join(in, "\n")
			out, ms := r.Redact(text)
			got := strings.Split(out, "\n")
			if len(got) != len(in) || len(ms) != 1 {
				t.Fatalf("%d lines, %d matches:\n%s", len(got), len(ms), out)
			}
			if ms[0].Rule != "private-key" || ms[0].Line != 2 || ms[0].EndLine != len(in)-1 {
				t.Errorf("match %+v", ms[0])
			}
			for i, l := range got[1 : len(got)-1] {
				if !strings.Contains(l, ms[0].Placeholder) || !strings.Contains(l, tt.layout) {
					t.Errorf("line %d: %q", i+2, l)
				}
				if tt.name == "crlf" && !strings.HasSuffix(l, "\r") {
					t.Errorf("line %d lost its carriage return: %q", i+2, l)
				}
			}
			if got[0] != "before" || got[len(got)-1] != "after" {
				t.Errorf("lines around the key changed:\n%s", out)
			}
		})
	}
}

// A page of a key file can stop before the END line or start after the
// BEGIN line; neither leaves key material in the text.
func TestKeyPages(t *testing.T) {
	r := New(Options{})
	key := strings.Split(pemKey(), "\n")
	head := strings.Join(key[:4], "\n") + "\n"
	out, ms := r.Redact(head)
	if len(ms) != 1 || ms[0].Rule != "private-key" || ms[0].Guard {
		t.Fatalf("head of a key: %+v", ms)
	}
	for _, l := range key[1:4] {
		if strings.Contains(out, l) {
			t.Errorf("key line left: %q", l)
		}
	}
	middle := strings.Join(key[2:6], "\n") + "\n"
	out, ms = r.Redact(middle)
	if len(ms) != 1 || ms[0].Rule != RuleKeyLines || !ms[0].Guard {
		t.Fatalf("middle of a key: %+v", ms)
	}
	for _, l := range key[2:6] {
		if strings.Contains(out, l) {
			t.Errorf("key line left: %q", l)
		}
	}
}

func TestIdempotent(t *testing.T) {
	r := New(Options{})
	text := "token = " + githubToken + "\n" + pemKey() + `password = "s3cr3t-Pa55w0rd!"` + "\n"
	once, ms := r.Redact(text)
	if len(ms) != 3 {
		t.Fatalf("%d matches: %+v", len(ms), ms)
	}
	twice, ms := r.Redact(once)
	if twice != once || len(ms) != 0 {
		t.Errorf("second pass changed the text (%+v):\n%s\n---\n%s", ms, once, twice)
	}
}

func TestAllow(t *testing.T) {
	text := "see " + githubToken + "\n" + `password = "s3cr3t-Pa55w0rd!"` + "\n"
	var r *Redactor
	if out, ms := r.Redact(text); out != text || ms != nil {
		t.Errorf("a nil Redactor redacted")
	}
	r = New(Options{AllowPaths: []string{"testdata/**"}, AllowRules: []string{"github-pat"}})
	if out, ms := r.RedactFile("testdata/fixtures/creds.txt", text); out != text || ms != nil {
		t.Errorf("an allowed path was redacted: %+v", ms)
	}
	out, ms := r.RedactFile("cmd/main.go", text)
	if len(ms) != 1 || ms[0].Rule != RuleAssignment || !strings.Contains(out, githubToken) {
		t.Errorf("allowed rule: %+v\n%s", ms, out)
	}
	// gitleaks' global allowlist: lockfiles and the like.
	if _, ms := New(Options{}).RedactFile("web/package-lock.json", text); ms != nil {
		t.Errorf("package-lock.json: %+v", ms)
	}
	// A rule for some files runs on their text only.
	tf := `administrator_login_password = "Abc123def456"`
	if _, ms := New(Options{AllowRules: []string{RuleAssignment}}).RedactFile("main.tf", tf); len(ms) != 1 || ms[0].Rule != "hashicorp-tf-password" {
		t.Errorf("main.tf: %+v", ms)
	}
}

func TestRules(t *testing.T) {
	rules := Rules()
	if len(rules) < 200 {
		t.Fatalf("%d rules: gitleaks' default configuration did not load", len(rules))
	}
	for _, id := range []string{"aws-access-token", "github-pat", "private-key", "generic-api-key", RuleAssignment, RuleURL, RuleKeyLines} {
		if !Known(id) {
			t.Errorf("rule %s is unknown", id)
		}
	}
	if Known("no-such-rule") {
		t.Error("an unknown rule is known")
	}
	seen := map[string]bool{}
	for _, r := range rules {
		if seen[r.ID] || r.Description == "" {
			t.Errorf("rule %q listed twice or undescribed", r.ID)
		}
		seen[r.ID] = true
	}
}

func BenchmarkRedact(b *testing.B) {
	// A megabyte of code that talks about keys and tokens on many lines,
	// with a few secrets: the keyword-heavy case.
	var src strings.Builder
	for i := 0; src.Len() < 1<<20; i++ {
		src.WriteString("func handler" + strconv.Itoa(i%100) + "(w http.ResponseWriter, r *http.Request) {\n")
		src.WriteString("\tkey := r.URL.Query().Get(\"key\")\n\ttoken, err := auth.Verify(ctx, key)\n")
		src.WriteString("\tif err != nil {\n\t\treturn fmt.Errorf(\"access denied for %s: %w\", key, err)\n\t}\n")
		if i%500 == 0 {
			src.WriteString("\tconst apiKey = \"" + stripeKey + "\"\n")
		}
		src.WriteString("\treturn token.Secret()\n}\n\n")
	}
	text := src.String()
	r := New(Options{})
	r.Redact("warm up")
	b.SetBytes(int64(len(text)))
	var n int
	for b.Loop() {
		_, ms := r.Redact(text)
		n = len(ms)
	}
	b.ReportMetric(float64(n), "secrets")
}

// TestRulesCompile compiles every rule's expression, which the rules
// otherwise put off until a text holds one of their keywords.
func TestRulesCompile(t *testing.T) {
	n := 0
	for _, rl := range loadRules().rules {
		if rl.src == "" {
			continue
		}
		rl.compile()
		if rl.re == nil || rl.re.String() != rl.src {
			t.Errorf("rule %s: expression not compiled", rl.id)
		}
		n++
	}
	if n < 100 {
		t.Errorf("only %d rules with expressions", n)
	}
}

// A path holding a token reads as its placeholder, as in any text, and
// the placeholder path names the file.
func TestPaths(t *testing.T) {
	r := New(Options{})
	path := "notes/" + githubToken + ".txt"
	red, ms := r.RedactPath(path)
	if strings.Contains(red, githubToken) || len(ms) != 1 || ms[0].Rule != "github-pat" {
		t.Fatalf("RedactPath(%q) = %q, %+v", path, red, ms)
	}
	if listed, _ := r.Redact("12 " + path + "\n"); !strings.Contains(listed, red) {
		t.Errorf("a listing shows %q, the path reads %q", listed, red)
	}
	if !r.Names(red, path) {
		t.Errorf("%q does not name %q", red, path)
	}
	other := "notes/ghp_" + fake(21, alnum, 36) + ".txt"
	for _, p := range []string{other, "docs/" + githubToken + ".txt", path + ".bak"} {
		if r.Names(red, p) {
			t.Errorf("%q names %q", red, p)
		}
	}
	if p, ms := r.RedactPath("cmd/review/main.go"); p != "cmd/review/main.go" || ms != nil {
		t.Errorf("a plain path was redacted: %q %+v", p, ms)
	}
	var none *Redactor
	if p, _ := none.RedactPath(path); p != path || !none.Names(path, path) {
		t.Errorf("a nil Redactor changed a path")
	}
}

// BenchmarkRedactJSON is a request body as a review sends it: many short
// strings (400 messages), each scanned on its own.
func BenchmarkRedactJSON(b *testing.B) {
	var msgs []map[string]string
	for i := range 400 {
		msgs = append(msgs, map[string]string{"role": "tool", "name": fmt.Sprintf("read_file_hunk_%d", i), "content": fmt.Sprintf("func f%d() int { return %d } // a line of code with words in it", i, i)})
	}
	body, err := json.Marshal(map[string]any{"model": "gpt-4o", "messages": msgs})
	if err != nil {
		b.Fatal(err)
	}
	r := New(Options{})
	b.ReportAllocs()
	for b.Loop() {
		r.RedactJSON(string(body))
	}
}

// TestScanNoKeyword: a text without any keyword costs no table of hits,
// and one with a keyword finds it where it is.
func TestScanNoKeyword(t *testing.T) {
	k := loadRules().kw
	if hits := k.scan("func f() int { return 1 }"); hits != nil {
		t.Errorf("hits for a text with no keyword: %v", hits)
	}
	hits := k.scan("x := 1 // password here")
	if hits == nil {
		t.Fatal("no hits for a text with a keyword")
	}
	if i := k.index("password"); i < 0 || len(hits[i]) != 1 || hits[i][0] != 10 {
		t.Errorf("password at %v, want [10]", hits[max(i, 0)])
	}
}
