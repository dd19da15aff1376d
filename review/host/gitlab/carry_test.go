package gitlab

import (
	"context"
	"strings"
	"testing"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/review/host/hosttest"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/result"
)

const (
	h3 = "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"
	h4 = "ffffffffffffffffffffffffffffffffffffffff"
)

var (
	utilDoc    = result.Finding{Path: "lib/util.go", Severity: result.Medium, Category: "docs", Title: "Missing doc", Body: "Say what it does."}
	utilMagic  = result.Finding{Path: "lib/util.go", Severity: result.Low, Category: "style", Title: "Magic number", Body: "Name 42."}
	handlerLen = result.Finding{Path: "app/handler.go", Severity: result.Info, Category: "style", Title: "Long function", Body: "Split it."}
)

// sinceDiff is a review of the commits since an earlier one: they changed
// the files named touched; the change's other files are context.
func sinceDiff(touched ...string) *diffctx.Diff {
	all := append(testDiff().Files, &diffctx.File{Path: "lib/util.go", OldPath: "lib/util.go", Status: diffctx.Modified,
		Hunks: []diffctx.Hunk{{OldStart: 10, OldLines: 1, NewStart: 10, NewLines: 1, Body: "-x\n+y\n"}}})
	d := &diffctx.Diff{}
	for _, f := range all {
		if strings.Contains(" "+strings.Join(touched, " ")+" ", " "+f.Path+" ") {
			d.Files = append(d.Files, f)
		} else {
			d.Earlier = append(d.Earlier, f)
		}
	}
	return d
}

func since(r *result.Result, sha string) *result.Result { r.Since = sha; return r }

func summaryBody(t *testing.T, g *hosttest.GitLab) string {
	t.Helper()
	sums := summaries(g.Notes("group/proj", 3))
	if len(sums) != 1 {
		t.Fatalf("%d summary notes", len(sums))
	}
	return sums[0]["body"].(string)
}

// TestPostCarry: a run of the commits since an earlier review keeps, in
// the note it updates, the findings the note listed on files those
// commits did not change, under the review that found them, each once;
// one on a file they changed goes unless found again. A run of the same
// head posts nothing; a whole review replaces them all.
func TestPostCarry(t *testing.T) {
	ctx := context.Background()
	g := &hosttest.GitLab{}
	o := start(t, g, false)

	// Run 1, the whole change: offDiff, handlerLen and both lib/util.go
	// findings are in the note only.
	o.HeadSHA = h1
	d1 := sinceDiff("app/handler.go", "gone.go", "lib/util.go")
	rep, err := Post(ctx, testResult("run-1", onAdded, offDiff, handlerLen, utilDoc, utilMagic), d1, o)
	if err != nil || rep.Inline != 1 || rep.InBody != 4 {
		t.Fatalf("run 1: %+v, %v", rep, err)
	}

	// Run 2, since h1, changed app/handler.go: offDiff found again,
	// handlerLen not; lib/util.go's findings are carried.
	o.HeadSHA = h2
	rep, err = Post(ctx, since(testResult("run-2", offDiff, later), h1), sinceDiff("app/handler.go"), o)
	if err != nil || rep.Inline != 1 || rep.InBody != 1 || !rep.Updated {
		t.Fatalf("run 2: %+v, %v", rep, err)
	}
	body := summaryBody(t, g)
	for w, n := range map[string]int{
		"**1. [info] No test** · `app/handler.go:40` · tests":         1,
		"<details><summary>Findings of earlier reviews (2)</summary>": 1,
		"##### Found by the review of `cccccccccccc`\n\n**1. [medium] Missing doc** · `lib/util.go` · docs\n\nSay what it does.\n\n**2. [low] Magic number** · `lib/util.go` · style": 1,
		"No test":       1,
		"Missing doc":   1,
		"Long function": 0,
		"stay in their discussions, and those this note listed on files these commits did not change stay below._": 1,
	} {
		if got := strings.Count(body, w); got != n {
			t.Errorf("run 2: %q %d times, want %d:\n%s", w, got, n, body)
		}
	}
	if got := seam.ReadListed(body); len(got) != 3 || got[0].Head != h1 || got[0].Title != utilDoc.Title || got[2].Head != h2 || got[2].Title != offDiff.Title {
		t.Errorf("run 2: listed %+v", got)
	}

	// Run 3, since h2, changed only gone.go: everything listed is
	// carried, grouped by review, oldest first.
	o.HeadSHA = h3
	if _, err = Post(ctx, since(testResult("run-3"), h2), sinceDiff("gone.go"), o); err != nil {
		t.Fatal(err)
	}
	body = summaryBody(t, g)
	first, second := strings.Index(body, "Found by the review of `cccccccccccc`"), strings.Index(body, "Found by the review of `dddddddddddd`")
	if first < 0 || second < first || strings.Count(body, "No test") != 1 || strings.Count(body, "Magic number") != 1 ||
		!strings.Contains(body, "**3. [info] No test** · `app/handler.go:40` · tests") {
		t.Errorf("run 3:\n%s", body)
	}

	// The same head again: nothing posted.
	before := len(g.Notes("group/proj", 3))
	rep, err = Post(ctx, since(testResult("run-4"), h2), sinceDiff("gone.go"), o)
	if err != nil || !rep.Skipped || summaryBody(t, g) != body || len(g.Notes("group/proj", 3)) != before {
		t.Fatalf("same head: %+v, %v", rep, err)
	}

	// A whole review: its findings replace the earlier ones.
	o.HeadSHA = h4
	if _, err = Post(ctx, testResult("run-5", utilMagic), d1, o); err != nil {
		t.Fatal(err)
	}
	body = summaryBody(t, g)
	if strings.Contains(body, "Findings of earlier reviews") || strings.Contains(body, "No test") || strings.Count(body, "Magic number") != 1 || len(seam.ReadListed(body)) != 1 {
		t.Errorf("whole review:\n%s", body)
	}
}
