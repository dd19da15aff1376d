package redact

import (
	"strings"
	"testing"

	"github.com/reviewdev/review/internal/redact/redacttest"
)

// maxWorkPerByte bounds the bytes the rules' expressions run over, per
// byte of a minified bundle. Each rule holding a keyword on the bundle's
// one line once ran over all of it, and gitleaks' allowlists for lines
// over all of it again for every secret found: 55 bytes a byte, most of a
// second for 340 KB.
const maxWorkPerByte = 4

// A minified bundle is scanned around its keywords, not whole for every
// rule: the work stays a few times the text, and the bundle's secrets are
// still found. The speed itself is BenchmarkRedactMinified's.
func TestMinifiedWork(t *testing.T) {
	text := redacttest.Bundle(340 << 10)
	ms, work := New(Options{}).scan("static/js/main.min.js", text)
	if per := float64(work) / float64(len(text)); per > maxWorkPerByte {
		t.Errorf("the rules ran over %d bytes, %.1f a byte of the bundle; at most %d", work, per, maxWorkPerByte)
	}
	out := rewrite(text, ms)
	if strings.Contains(out, redacttest.SearchKey) {
		t.Errorf("the bundle's search key was not redacted")
	}
}

// A secret on a line of hundreds of kilobytes is found as on a short one,
// by the same rule.
func TestLongLines(t *testing.T) {
	secrets := []struct{ stmt, secret string }{
		{`var t="` + githubToken + `";`, githubToken},
		{`e.stripe={key:"` + stripeKey + `"};`, stripeKey},
		{`n.slack="` + slackToken + `";`, slackToken},
		{`r.auth="` + jwtToken + `";`, jwtToken},
		{`o.aws_access_key_id="AKIAIOSFODNN7EXAMPLE";`, "AKIAIOSFODNN7EXAMPLE"},
		{`i.client_secret="` + fake(5, alnum, 32) + `";`, fake(5, alnum, 32)},
		{`a.password="s3cr3t-Pa55w0rd!";`, "s3cr3t-Pa55w0rd!"},
		{`s.db="postgres://app:Tr0ub4dor-3@db.internal:5432/app";`, "Tr0ub4dor-3"},
	}
	r := New(Options{})
	filler := redacttest.Bundle(64 << 10)
	filler = filler[strings.IndexByte(filler, '\n')+1 : len(filler)-1] // the bundle's one line of code
	for _, s := range secrets {
		_, short := r.Redact(s.stmt)
		if len(short) == 0 {
			t.Fatalf("%q: no secret found on a short line", s.stmt)
		}
		for _, at := range []int{0, len(filler) / 2, len(filler)} {
			line := filler[:at] + s.stmt + filler[at:]
			out, ms := r.Redact(line)
			if strings.Contains(out, s.secret) {
				t.Errorf("%q at %d of a long line: the secret is left", s.stmt, at)
			}
			if !strings.Contains(out, short[0].Placeholder) {
				t.Errorf("%q at %d of a long line: no %s (found %v)", s.stmt, at, short[0].Placeholder, ms)
			}
		}
	}
}

// BenchmarkRedactMinified scans a 340 KB minified bundle, one line of
// code full of the words the rules look for: the case that made the scan
// the slowest part of a dry run.
func BenchmarkRedactMinified(b *testing.B) {
	text := redacttest.Bundle(340 << 10)
	r := New(Options{})
	r.Redact("warm up")
	b.SetBytes(int64(len(text)))
	var n, work int
	for b.Loop() {
		var ms []Match
		ms, work = r.scan("static/js/main.min.js", text)
		n = len(ms)
	}
	b.ReportMetric(float64(n), "secrets")
	b.ReportMetric(float64(work)/float64(len(text)), "work/byte")
}
