package gitlab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/review/host/hosttest"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/result"
)

const (
	token = "glpat-scripttoken"
	h1    = "cccccccccccccccccccccccccccccccccccccccc"
	h2    = "dddddddddddddddddddddddddddddddddddddddd"
)

// testDiff changes app/handler.go (lines 5-9 of the new side: context 5
// and 6, line 7 added, context 8, old line 8 deleted, line 9 added) and
// deletes gone.go.
func testDiff() *diffctx.Diff {
	return &diffctx.Diff{Files: []*diffctx.File{
		{Path: "app/handler.go", OldPath: "app/handler.go", Status: diffctx.Modified, Hunks: []diffctx.Hunk{{
			OldStart: 5, OldLines: 4, NewStart: 5, NewLines: 5,
			Body: " five\n six\n+seven\n eight\n-old eight\n+nine\n",
		}}},
		{Path: "gone.go", OldPath: "gone.go", Status: diffctx.Deleted, Hunks: []diffctx.Hunk{{
			OldStart: 1, OldLines: 2, NewStart: 0, NewLines: 0, Body: "-package gone\n-var x = 1\n",
		}}},
	}}
}

func replacement(s string) *string { return &s }

func testResult(run string, fs ...result.Finding) *result.Result {
	return &result.Result{RunID: run, Model: "gpt-4o-mini", Submitted: true, Summary: "Handler changes.", Findings: fs,
		Usage: result.RunUsage{Requests: 1, Prompt: 100, Completion: 10}}
}

var (
	onAdded = result.Finding{Path: "app/handler.go", Line: 7, Severity: result.High, Category: "correctness",
		Title: "Unchecked error", Body: "The error is dropped.", Replacement: replacement("if err := seven(); err != nil {\n\treturn err\n}")}
	onContext = result.Finding{Path: "app/handler.go", Line: 6, Severity: result.Medium, Category: "style", Title: "Name", Body: "Rename it."}
	offDiff   = result.Finding{Path: "app/handler.go", Line: 40, Severity: result.Info, Category: "tests", Title: "No test", Body: "Add one."}
	onDeleted = result.Finding{Path: "gone.go", Line: 2, Severity: result.Low, Category: "correctness", Title: "Still used", Body: "x is read elsewhere."}
	later     = result.Finding{Path: "app/handler.go", Line: 9, Severity: result.Low, Category: "style", Title: "Trailing space", Body: "Trim it."}
)

func start(t *testing.T, g *hosttest.GitLab, redirect bool) Options {
	t.Helper()
	g.Token = token
	g.Dir = t.TempDir()
	api, stop := g.Start(redirect)
	t.Cleanup(stop)
	return Options{APIURL: api, Token: token, Project: "group/proj", MR: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}
}

func diffNotes(notes []map[string]any) []map[string]any {
	var out []map[string]any
	for _, n := range notes {
		if n["type"] == "DiffNote" {
			out = append(out, n)
		}
	}
	return out
}

func summaries(notes []map[string]any) []map[string]any {
	var out []map[string]any
	for _, n := range notes {
		if _, _, _, ok := seam.ReadReviewMarker(n["body"].(string)); ok && n["type"] == nil && n["author"].(map[string]any)["id"] == int64(hosttest.GitLabUserID) {
			out = append(out, n)
		}
	}
	return out
}

// TestPost posts a review, runs again on the same head (nothing posted),
// then on a new head: the summary note is updated in place, and only the
// new finding becomes a discussion.
func TestPost(t *testing.T) {
	ctx := context.Background()
	g := &hosttest.GitLab{}
	o := start(t, g, false)
	d := testDiff()
	o.HeadSHA = h1
	rep, err := Post(ctx, testResult("run-1", onAdded, onContext, offDiff, onDeleted), d, o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Inline != 3 || rep.InBody != 1 || rep.Updated || rep.Skipped || !strings.HasPrefix(rep.URL, "https://gitlab.example/group/proj/-/merge_requests/3#note_") {
		t.Fatalf("first post: %+v", rep)
	}
	notes := g.Notes("group/proj", 3)
	dn := diffNotes(notes)
	if len(dn) != 3 {
		t.Fatalf("%d discussions, want 3", len(dn))
	}
	v := hosttest.DefaultGitLabVersions[0]
	want := []map[string]any{
		{"new_path": "app/handler.go", "old_path": "app/handler.go", "new_line": 7},
		{"new_path": "app/handler.go", "old_path": "app/handler.go", "new_line": 6, "old_line": 6},
		{"new_path": "gone.go", "old_path": "gone.go", "old_line": 2},
	}
	for i, n := range dn {
		pos := n["position"].(map[string]any)
		if pos["head_sha"] != v.HeadCommitSHA || pos["base_sha"] != v.BaseCommitSHA || pos["start_sha"] != v.StartCommitSHA || pos["position_type"] != "text" {
			t.Errorf("discussion %d: SHAs %v", i, pos)
		}
		for k, w := range want[i] {
			if pos[k] != w {
				t.Errorf("discussion %d: %s = %v, want %v", i, k, pos[k], w)
			}
		}
		if _, ok := pos["old_line"]; !ok && want[i]["old_line"] != nil || ok && want[i]["old_line"] == nil {
			t.Errorf("discussion %d: old_line %v", i, pos["old_line"])
		}
	}
	first := dn[0]["body"].(string)
	if !strings.HasPrefix(first, "<!-- review:fp="+onAdded.Fingerprint()+" run=run-1 -->\n**[high] Unchecked error** · correctness") ||
		!strings.Contains(first, "```suggestion:-0+0\nif err := seven(); err != nil {") {
		t.Errorf("discussion body:\n%s", first)
	}
	sums := summaries(notes)
	if len(sums) != 1 {
		t.Fatalf("%d summary notes", len(sums))
	}
	body := sums[0]["body"].(string)
	for _, w := range []string{"<!-- review:run=run-1 head=" + h1 + " -->\n" + seam.ListedMarker(seam.Listed{Head: h1, Finding: offDiff}) + "\n### review: 4 findings", "3 discussions on the changed lines.", "**1. [info] No test** · `app/handler.go:40` · tests"} {
		if !strings.Contains(body, w) {
			t.Errorf("summary lacks %q:\n%s", w, body)
		}
	}

	// The same head: nothing is posted.
	rep, err = Post(ctx, testResult("run-2", onAdded), d, o)
	if err != nil || !rep.Skipped {
		t.Fatalf("same head: %+v, %v", rep, err)
	}
	if n := len(g.Notes("group/proj", 3)); n != len(notes) {
		t.Errorf("same head: %d notes, was %d", n, len(notes))
	}

	// A new head: one new discussion, the note updated in place.
	o.HeadSHA = h2
	rep, err = Post(ctx, testResult("run-3", onAdded, later), d, o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Inline != 1 || rep.Repeated != 1 || !rep.Updated {
		t.Fatalf("new head: %+v", rep)
	}
	notes2 := g.Notes("group/proj", 3)
	if len(notes2) != len(notes)+1 || len(diffNotes(notes2)) != 4 {
		t.Fatalf("new head: %d notes (%d discussions), want %d", len(notes2), len(diffNotes(notes2)), len(notes)+1)
	}
	sums = summaries(notes2)
	if len(sums) != 1 || sums[0]["id"] != summaries(notes)[0]["id"] {
		t.Fatalf("new head: summary notes %v", sums)
	}
	body = sums[0]["body"].(string)
	if !strings.HasPrefix(body, "<!-- review:run=run-3 head="+h2+" heads="+h1+" -->") || !strings.Contains(body, "#### Posted by an earlier run\n\n- [high] Unchecked error · `app/handler.go:7` · [discussion](https://gitlab.example/group/proj/-/merge_requests/3#note_") {
		t.Errorf("updated summary:\n%s", body)
	}

	// What a later run reads: both heads, oldest first, and the open
	// findings; bob's copied marker does not count.
	e, err := (&Poster{Options: o}).Earlier(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Heads) != 2 || e.Heads[0] != h1 || e.Heads[1] != h2 || len(e.Open) != 4 {
		t.Fatalf("earlier: %+v", e)
	}
	if e.Open[0].Fingerprint != onAdded.Fingerprint() || e.Open[0].Severity != result.High || e.Open[0].Line != 7 || !strings.Contains(e.Open[0].URL, "#note_") {
		t.Errorf("open finding: %+v", e.Open[0])
	}
	log, _ := os.ReadFile(filepath.Join(g.Dir, "requests.log"))
	if strings.Contains(string(log), " 401\n") {
		t.Errorf("a request went without the token:\n%s", log)
	}
	if !strings.Contains(string(log), "/notes?page=2&per_page=100 200") {
		t.Errorf("the notes' second page was not read:\n%s", log)
	}
}

// TestPostDenied: a token that may not post is seam.ErrDenied, with a
// line that says what to do.
func TestPostDenied(t *testing.T) {
	g := &hosttest.GitLab{ReadOnly: true}
	o := start(t, g, false)
	o.HeadSHA = h1
	_, err := Post(context.Background(), testResult("r", onAdded), testDiff(), o)
	if !errors.Is(err, seam.ErrDenied) {
		t.Fatalf("err = %v, want ErrDenied", err)
	}
	if want := "starting a discussion on app/handler.go:7 of group/proj!3: GitLab answered 403 Forbidden: the token may not comment"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v", err)
	}
	o.Token = "glpat-wrong"
	_, err = Post(context.Background(), testResult("r", onAdded), testDiff(), o)
	if errors.Is(err, seam.ErrDenied) || err == nil || !strings.Contains(err.Error(), "401 Unauthorized: the token is wrong or expired; pass a valid one in GITLAB_TOKEN") {
		t.Errorf("wrong token: %v", err)
	}
}

// TestPostRedirect: a redirect to another host gets no token.
func TestPostRedirect(t *testing.T) {
	g := &hosttest.GitLab{}
	o := start(t, g, true)
	o.HeadSHA = h1
	if _, err := Post(context.Background(), testResult("r", onAdded), testDiff(), o); err != nil {
		t.Fatal(err)
	}
	other, err := os.ReadFile(filepath.Join(g.Dir, "other.log"))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(other); !strings.Contains(got, "GET /api/v4/projects/group%2Fproj/merge_requests/3/versions?per_page=100 token=none") || strings.Contains(got, "token=PRIVATE-TOKEN") {
		t.Errorf("the other host saw:\n%s", got)
	}
}

// TestPostRetries: a 429 is waited out and the discussion posted once.
func TestPostRetries(t *testing.T) {
	g := &hosttest.GitLab{RateLimited: true}
	o := start(t, g, false)
	o.HeadSHA = h1
	rep, err := Post(context.Background(), testResult("r", onAdded), testDiff(), o)
	if err != nil || rep.Inline != 1 {
		t.Fatalf("%+v, %v", rep, err)
	}
	if n := len(diffNotes(g.Notes("group/proj", 3))); n != 1 {
		t.Errorf("%d discussions, want 1", n)
	}
	log, _ := os.ReadFile(filepath.Join(g.Dir, "requests.log"))
	if !strings.Contains(string(log), "discussions 429\n") {
		t.Errorf("no 429 in:\n%s", log)
	}
}

// TestPostVersionOfHead: the position is on the version of the head that
// was reviewed, when the merge request has moved on since; otherwise on
// its latest.
func TestPostVersionOfHead(t *testing.T) {
	g := &hosttest.GitLab{}
	o := start(t, g, false)
	old := hosttest.DefaultGitLabVersions[1]
	o.HeadSHA = old.HeadCommitSHA
	if _, err := Post(context.Background(), testResult("r", onAdded), testDiff(), o); err != nil {
		t.Fatal(err)
	}
	dn := diffNotes(g.Notes("group/proj", 3))
	if len(dn) != 1 {
		t.Fatalf("%d discussions", len(dn))
	}
	if pos := dn[0]["position"].(map[string]any); pos["head_sha"] != old.HeadCommitSHA || pos["base_sha"] != old.BaseCommitSHA || pos["start_sha"] != old.StartCommitSHA {
		t.Errorf("position %v, want version %d's SHAs", pos, old.ID)
	}
}

// TestPostLostAnswer: a discussion GitLab made but whose answer was lost
// is found by its marker before it is posted again: never twice.
func TestPostLostAnswer(t *testing.T) {
	g := &hosttest.GitLab{LostAnswer: true}
	o := start(t, g, false)
	o.HeadSHA = h1
	rep, err := Post(context.Background(), testResult("r", onAdded, later), testDiff(), o)
	if err != nil || rep.Inline != 2 {
		t.Fatalf("%+v, %v", rep, err)
	}
	if n := len(diffNotes(g.Notes("group/proj", 3))); n != 2 {
		t.Errorf("%d discussions, want 2", n)
	}
}

// TestPostNotUTF8: a position names a file on both sides, and a name that
// is not UTF-8 would reach GitLab as U+FFFD; so a finding on such a file,
// or on one renamed from such a name, goes into the summary note, the name
// quoted. A second run updates the note in place: it lists them once.
func TestPostNotUTF8(t *testing.T) {
	ctx := context.Background()
	g := &hosttest.GitLab{}
	o := start(t, g, false)
	d := testDiff()
	d.Files = append(d.Files,
		&diffctx.File{Path: "caf\xe9.txt", Status: diffctx.Added, Hunks: []diffctx.Hunk{{NewStart: 1, NewLines: 1, Body: "+hello\n"}}},
		&diffctx.File{Path: "new.go", OldPath: "old\xff.go", Status: diffctx.Renamed, Hunks: []diffctx.Hunk{{
			OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 2, Body: " package x\n+var y = 2\n"}}})
	onCafe := result.Finding{Path: "caf\xe9.txt", Line: 1, Severity: result.Info, Category: "docs", Title: "Greeting", Body: "Say more."}
	onRenamed := result.Finding{Path: "new.go", Line: 2, Severity: result.Low, Category: "style", Title: "Unused", Body: "y is never read."}
	for i, head := range []string{h1, h2} {
		o.HeadSHA = head
		rep, err := Post(ctx, testResult(fmt.Sprintf("run-%d", i+1), onAdded, onCafe, onRenamed), d, o)
		if err != nil {
			t.Fatal(err)
		}
		wantInline, wantRepeated := 1, 0
		if i == 1 {
			wantInline, wantRepeated = 0, 1
		}
		if rep.Inline != wantInline || rep.InBody != 2 || rep.Repeated != wantRepeated || rep.Fallback {
			t.Errorf("run %d: %+v", i+1, rep)
		}
		notes := g.Notes("group/proj", 3)
		if dn := diffNotes(notes); len(dn) != 1 || dn[0]["position"].(map[string]any)["new_path"] != "app/handler.go" {
			t.Errorf("run %d: discussions %v", i+1, dn)
		}
		sums := summaries(notes)
		if len(sums) != 1 {
			t.Fatalf("run %d: %d summary notes", i+1, len(sums))
		}
		body := sums[0]["body"].(string)
		for _, w := range []string{
			"_GitLab's API cannot name a file whose name is not UTF-8, so the findings on one are listed here",
			"**1. [info] Greeting** · `\"caf\\xe9.txt\":1` · docs\n\nSay more.",
			"**2. [low] Unused** · `new.go:2` · style",
		} {
			if strings.Count(body, w) != 1 {
				t.Errorf("run %d: the summary holds %q %d times:\n%s", i+1, w, strings.Count(body, w), body)
			}
		}
	}
	recorded, _ := filepath.Glob(filepath.Join(g.Dir, "gl-*.json"))
	for _, f := range recorded {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), `\ufffd`) || strings.ContainsRune(string(b), utf8.RuneError) {
			t.Errorf("%s: U+FFFD sent:\n%s", filepath.Base(f), b)
		}
	}
}
