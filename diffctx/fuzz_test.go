package diffctx

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reviewdev/review/internal/redact"
)

// FuzzParse feeds Parse arbitrary input, seeded with every diff in
// testdata. Parse must never panic, and what it accepts must hold together:
// hunk bodies match their headers, counts match the bodies, and rendering
// and line queries work.
func FuzzParse(f *testing.F) {
	for _, dir := range []string{"git", "parse", "invalid"} {
		paths, _ := filepath.Glob(filepath.Join("testdata", dir, "*.diff"))
		for _, p := range paths {
			raw, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(raw)
		}
	}
	f.Add(synthDiff(100))
	f.Add([]byte("diff --git a/x b/x\n"))
	f.Add([]byte("diff --git \"a/\\303\" \"b/\\303\"\nnew file mode 100644\nindex 0000000..e69de29\n"))

	f.Fuzz(func(t *testing.T, raw []byte) {
		files, err := Parse(raw)
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T %v, want *ParseError", err, err)
			}
			return
		}
		for _, f := range files {
			if f.Path == "" || (f.Status != Added && f.OldPath == "") {
				t.Fatalf("file without a path: %+v", f)
			}
			adds, dels := 0, 0
			for _, h := range f.Hunks {
				var ctx, a, d int
				h.walk(func(op byte, _ string, _ int) bool {
					switch op {
					case ' ':
						ctx++
					case '+':
						a++
					case '-':
						d++
					case '\\':
					default:
						t.Fatalf("%s: line with op %q in %q", f.Path, op, h.Body)
					}
					return true
				})
				if ctx+d != h.OldLines || ctx+a != h.NewLines || !strings.HasSuffix(h.Body, "\n") && h.Body != "" {
					t.Fatalf("%s: hunk %+v does not match its body", f.Path, h)
				}
				adds += a
				dels += d
			}
			if !f.Binary && (f.Additions != adds || f.Deletions != dels) {
				t.Fatalf("%s: +%d -%d, body has +%d -%d", f.Path, f.Additions, f.Deletions, adds, dels)
			}
		}
		d := &Diff{Files: files}
		for _, budget := range []int{0, 200, 1 << 20} {
			ctx := Render(d, budget, nil)
			if ctx.Tokens > budget && strings.Contains(ctx.Markdown, hunksHeading) {
				t.Fatalf("budget %d exceeded: %d tokens", budget, ctx.Tokens)
			}
			if len(ctx.Files) != len(files) {
				t.Fatalf("%d entries for %d files", len(ctx.Files), len(files))
			}
		}
		for _, f := range files {
			for _, line := range []int{-1, 0, 1, 2, 3, 1000} {
				d.Changed(f.Path, line)
				d.InHunk(f.Path, line)
			}
		}
	})
}

// FuzzRedact checks that redacting any parsed diff keeps every hunk's
// lines and markers, reports secrets on added lines only, and never
// panics mapping a secret back to its lines.
func FuzzRedact(f *testing.F) {
	f.Add([]byte("diff --git a/k.pem b/k.pem\nnew file mode 100644\n--- /dev/null\n+++ b/k.pem\n@@ -0,0 +1,3 @@\n+-----BEGIN RSA PRIVATE KEY-----\n+MIIEowIBAAKCAQEAx4Lh9Tq3dB1wYpQz8sKf0aVnR2mJcT6uXeH7oLgWbN5yZrD1\n+-----END RSA PRIVATE KEY-----\n"))
	f.Add([]byte("diff --git a/c.py b/c.py\n--- a/c.py\n+++ b/c.py\n@@ -1,2 +1,2 @@\n-password = \"old-Pa55word\"\n+password = \"new-Pa55word\"\n key = 1\n\\ No newline at end of file\n"))
	r := redact.New(redact.Options{})
	f.Fuzz(func(t *testing.T, raw []byte) {
		files, err := Parse(raw)
		if err != nil {
			return
		}
		lines := func() (n []int) {
			for _, f := range files {
				for _, h := range f.Hunks {
					n = append(n, strings.Count(h.Body, "\n"))
				}
			}
			return n
		}
		before := lines()
		leaks := (&Diff{Files: files}).Redact(r)
		if after := lines(); !slices.Equal(before, after) {
			t.Fatalf("hunk line counts %v became %v", before, after)
		}
		for _, l := range leaks {
			if l.Line < 1 || (l.EndLine != 0 && l.EndLine < l.Line) {
				t.Fatalf("leak at bad lines: %+v", l)
			}
		}
	})
}
