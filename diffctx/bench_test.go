package diffctx

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/internal/redact"
)

// synthDiff returns a git diff with about changed changed lines: files of
// ten hunks, each deleting four lines and adding six amid three lines of
// context on either side, under a mix of paths that get different tags.
func synthDiff(changed int) []byte {
	const hunks, del, add, ctx, gap = 10, 4, 6, 3, 20
	var b bytes.Buffer
	files := max(1, changed/(hunks*(del+add)))
	for i := range files {
		path := fmt.Sprintf("pkg%d/file%d.go", i%17, i)
		switch {
		case i%11 == 5:
			path = fmt.Sprintf("internal/auth/session%d.go", i)
		case i%7 == 3:
			path = fmt.Sprintf("pkg%d/file%d_test.go", i%17, i)
		case i%13 == 6:
			path = fmt.Sprintf("docs/page%d.md", i)
		}
		fmt.Fprintf(&b, "diff --git a/%s b/%s\nindex 1234567..89abcde 100644\n--- a/%s\n+++ b/%s\n", path, path, path, path)
		oldLine, newLine := 1, 1
		for h := range hunks {
			fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@ func step%d() {\n", oldLine, 2*ctx+del, newLine, 2*ctx+add, h)
			for k := range ctx {
				fmt.Fprintf(&b, " \tvalue%d := compute(alpha, beta, %d) // keep the behaviour\n", k, oldLine+k)
			}
			for k := range del {
				fmt.Fprintf(&b, "-\tresult%d = legacy(result%d, gamma) // old path %d\n", k, k, h)
			}
			for k := range add {
				fmt.Fprintf(&b, "+\tresult%d, err = modern(ctx, result%d, gamma) // new path %d\n", k, k, h)
			}
			for k := range ctx {
				fmt.Fprintf(&b, " \tvalue%d := compute(alpha, beta, %d) // keep the behaviour\n", k, oldLine+ctx+del+k)
			}
			oldLine += 2*ctx + del + gap
			newLine += 2*ctx + add + gap
		}
	}
	return b.Bytes()
}

func BenchmarkRender1k(b *testing.B)   { benchmarkRender(b, 1000, nil) }
func BenchmarkRender100k(b *testing.B) { benchmarkRender(b, 100000, nil) }

// BenchmarkRender100kRedacted is BenchmarkRender100k with the secrets of
// the hunks redacted between Parse and Render, as a review does: the
// difference is the cost of the scanner.
func BenchmarkRender100kRedacted(b *testing.B) {
	benchmarkRender(b, 100000, redact.New(redact.Options{}))
}

// benchmarkRender measures the way from raw diff to static context: Parse,
// then Render within the default static budget of gpt-4o, counted with
// tiktoken; with a redactor, Redact in between.
func benchmarkRender(b *testing.B, changed int, r *redact.Redactor) {
	raw := synthDiff(changed)
	c := tiktoken(b)
	c.Count("warm up")  // build the encoder outside the measurement
	r.Redact("warm up") // and compile the rules
	budget := conversation.DefaultBudget(128000).Static()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	var ctx *Context
	var lines int
	for b.Loop() {
		files, err := Parse(raw)
		if err != nil {
			b.Fatal(err)
		}
		d := &Diff{Files: files}
		d.Redact(r)
		lines = 0
		for _, f := range files {
			lines += f.Additions + f.Deletions
		}
		ctx = Render(d, budget, c)
	}
	b.ReportMetric(float64(len(raw)), "diff-bytes")
	b.ReportMetric(float64(lines), "changed-lines")
	b.ReportMetric(float64(ctx.Tokens), "tokens")
	b.ReportMetric(float64(len(ctx.Files)), "files")
}
