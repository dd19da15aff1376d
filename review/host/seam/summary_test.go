package seam

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/review/result"
)

const (
	h1 = "cccccccccccccccccccccccccccccccccccccccc"
	h2 = "dddddddddddddddddddddddddddddddddddddddd"
)

// words are GitLab's, whose limit of a note the summary was first bound to.
var words = Words{Host: "GitLab", Thread: "discussion", Summary: "note", Change: "merge request", Max: 900_000}

var (
	utilDoc   = result.Finding{Path: "lib/util.go", Severity: result.Medium, Category: "docs", Title: "Missing doc", Body: "Say what it does."}
	utilMagic = result.Finding{Path: "lib/util.go", Severity: result.Low, Category: "style", Title: "Magic number", Body: "Name 42."}
	offDiff   = result.Finding{Path: "app/handler.go", Line: 40, Severity: result.Info, Category: "tests", Title: "No test", Body: "Add one."}
)

func replacement(s string) *string { return &s }

// sinceResult is a review of the commits since sha.
func sinceResult(run, sha string) *result.Result {
	r := &result.Result{RunID: run, Model: "gpt-4o-mini", Submitted: true, Summary: "Handler changes.",
		Usage: result.RunUsage{Requests: 1, Prompt: 100, Completion: 10}}
	r.Since = sha
	return r
}

// TestReadListed: a finding is read back exactly, a file name that is not
// UTF-8 too; a marker that does not follow the review marker directly, as
// one quoted in a finding's text, does not count, nor does a broken one.
func TestReadListed(t *testing.T) {
	cafe := result.Finding{Path: "caf\xe9.txt", Line: 3, EndLine: 4, Severity: result.Low, Category: "docs", Title: "Greeting", Body: "Say <!-- more -->.",
		Replacement: replacement("hello"), Note: "kept"}
	quoted := ListedMarker(Listed{h2, utilDoc})
	body := "<!-- review:run=r head=" + h1 + " -->\n" + ListedMarker(Listed{h1, cafe}) + "\n" +
		"<!-- review:listed head=" + h1 + " finding=bm90IGpzb24 -->\n" + ListedMarker(Listed{h1, utilMagic}) + "\n" +
		"### review\n\n```\n" + quoted + "\n```\n"
	got := ReadListed(body)
	if len(got) != 2 || got[0].Head != h1 || got[1].Title != utilMagic.Title {
		t.Fatalf("read %+v", got)
	}
	g := got[0].Finding
	if g.Path != cafe.Path || g.Line != 3 || g.EndLine != 4 || g.Body != cafe.Body || g.Note != "kept" || g.Replacement == nil || *g.Replacement != "hello" || g.Fingerprint() != cafe.Fingerprint() {
		t.Errorf("read back %+v", g)
	}
	if m := ListedMarker(Listed{h1, cafe}); strings.Contains(m, "Greeting") || strings.Count(m, "-->") != 1 {
		t.Errorf("marker %s", m)
	}
}

// TestNoteBound: the findings of earlier reviews that do not fit are cut,
// the oldest first, and the note says so; the run's own stay.
func TestNoteBound(t *testing.T) {
	r := sinceResult("run", h1)
	big := strings.Repeat("word ", 1000)
	var p Summary
	for i := range MaxCarried + 20 {
		f := utilDoc
		f.Title, f.Body = "Old "+strings.Repeat("x", i%7)+string(rune('a'+i%26)), big
		p.Carried = append(p.Carried, Listed{h1, f})
	}
	p.Body = []result.Finding{offDiff}
	body := p.Write(r, []string{h1, h2}, words)
	if len(body) > words.Max {
		t.Fatalf("%d bytes, over %d", len(body), words.Max)
	}
	ls := ReadListed(body)
	kept := len(ls) - 1
	if kept >= MaxCarried || len(body) < words.Max-2*carriedCost(p.Carried[0]) || ls[len(ls)-1].Title != offDiff.Title || ls[kept-1].Title != p.Carried[len(p.Carried)-1].Title {
		t.Fatalf("kept %d of %d", kept, len(p.Carried))
	}
	if want := fmt.Sprintf("_The oldest %d findings left out: this note keeps at most 100, within GitLab's length limit._", len(p.Carried)-kept); !strings.Contains(body, want) || strings.Contains(body, "cut to fit") {
		t.Errorf("no %q:\n%.2000s", want, body)
	}

	// Under the count cap only.
	p.Carried = p.Carried[:MaxCarried+3]
	for i := range p.Carried {
		p.Carried[i].Body = "short"
	}
	body = p.Write(r, []string{h1, h2}, words)
	if n := len(ReadListed(body)) - 1; n != MaxCarried || !strings.Contains(body, "_The oldest 3 findings left out") {
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
		ReadListed(note)
		if path == "" {
			return
		}
		in := result.Finding{Path: path, Severity: result.Low, Category: "style", Title: title, Body: body}
		got := ReadListed("<!-- review:run=r head=" + h1 + " -->\n" + ListedMarker(Listed{h1, in}) + "\n" + note)
		if len(got) == 0 || got[0].Fingerprint() != in.Fingerprint() || utf8.ValidString(body) && got[0].Body != body {
			t.Fatalf("read %+v of %+v", got, in)
		}
	})
}

// TestPlanLines: a finding on a line of a hunk is inline unless an earlier
// run commented it or its file cannot be named; with inline false every
// new finding goes into the body, in the order found.
func TestPlanLines(t *testing.T) {
	d := &diffctx.Diff{Files: []*diffctx.File{
		{Path: "a.go", Status: diffctx.Modified, Hunks: []diffctx.Hunk{{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 2, Body: " x\n+y\n"}}},
		{Path: "caf\xe9.go", Status: diffctx.Added, Hunks: []diffctx.Hunk{{NewStart: 1, NewLines: 1, Body: "+z\n"}}},
	}}
	on := result.Finding{Path: "a.go", Line: 2, Severity: result.High, Category: "bug", Title: "On"}
	before := result.Finding{Path: "a.go", Line: 1, Severity: result.Low, Category: "bug", Title: "Before"}
	off := result.Finding{Path: "a.go", Line: 9, Severity: result.Low, Category: "bug", Title: "Off"}
	unnamed := result.Finding{Path: "caf\xe9.go", Line: 1, Severity: result.Low, Category: "bug", Title: "Unnamed"}
	r := &result.Result{Findings: []result.Finding{on, before, off, unnamed}}
	earlier := map[string]string{before.Fingerprint(): "https://x.example/1"}
	p := PlanLines(r, d, earlier, true)
	if len(p.Inline) != 1 || p.Inline[0].Title != "On" || len(p.Repeated) != 1 || p.Repeated[0].URL != "https://x.example/1" ||
		len(p.Body) != 2 || p.Body[0].Title != "Off" || p.Body[1].Title != "Unnamed" || p.Unnamed != 1 {
		t.Errorf("inline: %+v", p)
	}
	p = PlanLines(r, d, earlier, false)
	if len(p.Inline) != 0 || len(p.Body) != 3 || p.Body[0].Title != "On" || p.Body[1].Title != "Off" || len(p.Repeated) != 1 {
		t.Errorf("not inline: %+v", p)
	}
}
