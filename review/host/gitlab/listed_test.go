package gitlab

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/review/host/hosttest"
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
	if got := readListed(body); len(got) != 3 || got[0].head != h1 || got[0].Title != utilDoc.Title || got[2].head != h2 || got[2].Title != offDiff.Title {
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
	if strings.Contains(body, "Findings of earlier reviews") || strings.Contains(body, "No test") || strings.Count(body, "Magic number") != 1 || len(readListed(body)) != 1 {
		t.Errorf("whole review:\n%s", body)
	}
}

// TestReadListed: a finding is read back exactly, a file name that is not
// UTF-8 too; a marker that does not follow the review marker directly, as
// one quoted in a finding's text, does not count, nor does a broken one.
func TestReadListed(t *testing.T) {
	cafe := result.Finding{Path: "caf\xe9.txt", Line: 3, EndLine: 4, Severity: result.Low, Category: "docs", Title: "Greeting", Body: "Say <!-- more -->.",
		Replacement: replacement("hello"), Note: "kept"}
	quoted := listedMarker(listed{h2, utilDoc})
	body := "<!-- review:run=r head=" + h1 + " -->\n" + listedMarker(listed{h1, cafe}) + "\n" +
		"<!-- review:listed head=" + h1 + " finding=bm90IGpzb24 -->\n" + listedMarker(listed{h1, utilMagic}) + "\n" +
		"### review\n\n```\n" + quoted + "\n```\n"
	got := readListed(body)
	if len(got) != 2 || got[0].head != h1 || got[1].Title != utilMagic.Title {
		t.Fatalf("read %+v", got)
	}
	g := got[0].Finding
	if g.Path != cafe.Path || g.Line != 3 || g.EndLine != 4 || g.Body != cafe.Body || g.Note != "kept" || g.Replacement == nil || *g.Replacement != "hello" || g.Fingerprint() != cafe.Fingerprint() {
		t.Errorf("read back %+v", g)
	}
	if m := listedMarker(listed{h1, cafe}); strings.Contains(m, "Greeting") || strings.Count(m, "-->") != 1 {
		t.Errorf("marker %s", m)
	}
}

// TestNoteBound: the findings of earlier reviews that do not fit are cut,
// the oldest first, and the note says so; the run's own stay.
func TestNoteBound(t *testing.T) {
	r := since(testResult("run"), h1)
	big := strings.Repeat("word ", 1000)
	var p summaryPlan
	for i := range maxCarried + 20 {
		f := utilDoc
		f.Title, f.Body = "Old "+strings.Repeat("x", i%7)+string(rune('a'+i%26)), big
		p.carried = append(p.carried, listed{h1, f})
	}
	p.body = []result.Finding{offDiff}
	body := p.note(r, []string{h1, h2})
	if len(body) > maxBody {
		t.Fatalf("%d bytes, over %d", len(body), maxBody)
	}
	ls := readListed(body)
	kept := len(ls) - 1
	if kept >= maxCarried || len(body) < maxBody-2*carriedCost(p.carried[0]) || ls[len(ls)-1].Title != offDiff.Title || ls[kept-1].Title != p.carried[len(p.carried)-1].Title {
		t.Fatalf("kept %d of %d", kept, len(p.carried))
	}
	if want := fmt.Sprintf("_The oldest %d findings left out: this note keeps at most 100, within GitLab's length limit._", len(p.carried)-kept); !strings.Contains(body, want) || strings.Contains(body, "cut to fit") {
		t.Errorf("no %q:\n%.2000s", want, body)
	}

	// Under the count cap only.
	p.carried = p.carried[:maxCarried+3]
	for i := range p.carried {
		p.carried[i].Body = "short"
	}
	body = p.note(r, []string{h1, h2})
	if n := len(readListed(body)) - 1; n != maxCarried || !strings.Contains(body, "_The oldest 3 findings left out") {
		t.Errorf("kept %d:\n%.3000s", n, body)
	}
}

// FuzzReadListed: a note's text never panics the reader, and a finding
// written with its marker is read back with its fingerprint, whatever its
// words and the bytes of its file's name.
func FuzzReadListed(f *testing.F) {
	f.Add("app.go", "Title", "Body -->\n<!-- review:listed", "<!-- review:run=r head="+h1+" -->\n")
	f.Add("caf\xe9.txt", "", "", "")
	f.Fuzz(func(t *testing.T, path, title, body, note string) {
		readListed(note)
		if path == "" {
			return
		}
		in := result.Finding{Path: path, Severity: result.Low, Category: "style", Title: title, Body: body}
		got := readListed("<!-- review:run=r head=" + h1 + " -->\n" + listedMarker(listed{h1, in}) + "\n" + note)
		if len(got) == 0 || got[0].Fingerprint() != in.Fingerprint() || utf8.ValidString(body) && got[0].Body != body {
			t.Fatalf("read %+v of %+v", got, in)
		}
	})
}
