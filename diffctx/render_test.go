package diffctx

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/internal/text"
)

// mixedRepo builds a branch touching every kind of file the renderer
// treats differently.
func mixedRepo(t *testing.T) *Diff {
	t.Helper()
	r := newRepo(t)
	r.write("old/legacy.go", numbered("package legacy\n", 40))
	r.write("util/strings.go", numbered("package util\n", 30))
	r.write("go.sum", "a v1 h1:x\n")
	r.write("run.sh", "#!/bin/sh\n")
	r.write("docs/guide.md", "# Guide\n")
	r.write("win.txt", "a\r\nb\r\n")
	r.commit("base")
	r.branch()
	r.remove("old/legacy.go")
	r.write("util/strings.go", strings.Replace(numbered("package util\n", 30), "line 3\n", "line three\n", 1)+"tail\n")
	r.write("internal/auth/token.go", "package auth\n\nfunc Valid(t string) bool {\n\treturn t != \"\"\n}\n")
	r.write("handler.go", "package main\n\n// Example:\n//\n// ```go\n// x := 1\n// ````\nfunc handler() {}\n")
	r.write("config.yaml", "port: 8080\n")
	r.write("handler_test.go", "package main\n\nfunc TestHandler() {}\n")
	r.write("docs/guide.md", "# Guide\n\nMore words.\n")
	r.write("go.sum", "a v1 h1:x\nb v1 h1:y\n")
	r.write("api/api.pb.go", "package api\n")
	r.write("logo.png", "\x89PNG\x00\x01")
	r.write("win.txt", "a\r\nB\r\n")
	r.write("`tick`.go", "package tick\n")
	if err := os.Chmod(filepath.Join(r.Dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.commit("mixed")
	d, err := Load(context.Background(), Options{Dir: r.Dir, Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestRender renders one real branch, built once, in many ways.
func TestRender(t *testing.T) {
	d := mixedRepo(t)
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, *Diff)
	}{
		{"golden", testGolden}, {"budget", testBudget}, {"overview only", testOverviewOnly},
		{"priority", testPriority}, {"hunk lines", testHunkLines}, {"deterministic", testDeterministic},
		{"json", testJSON},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, d) })
	}
}

func tiktoken(t testing.TB) *conversation.Counter {
	t.Helper()
	c, err := conversation.NewCounter(conversation.O200k, conversation.Tiktoken)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func testGolden(t *testing.T, d *Diff) {
	for _, tc := range []struct {
		name   string
		budget int
	}{
		{"mixed", 100000},
		{"mixed_tight", 520},
		{"mixed_overview_only", 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := Render(d, tc.budget, nil)
			golden(t, filepath.Join("testdata", "render", tc.name+".md"), []byte(ctx.Markdown))
			js, err := ctx.JSON()
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "render", tc.name+".json"), append(js, '\n'))
		})
	}
}

// checkContext checks what must hold for every rendered context.
func checkContext(t *testing.T, d *Diff, ctx *Context, c Counter) {
	t.Helper()
	if got := c.Count(ctx.Markdown); got != ctx.Tokens {
		t.Errorf("Tokens = %d, the Markdown counts %d", ctx.Tokens, got)
	}
	overviewOnly := !strings.Contains(ctx.Markdown, hunksHeading)
	if ctx.Tokens > ctx.Budget && !overviewOnly {
		t.Errorf("Tokens %d > Budget %d with hunks shown", ctx.Tokens, ctx.Budget)
	}
	if len(ctx.Files) != len(d.Files) {
		t.Fatalf("%d entries for %d files", len(ctx.Files), len(d.Files))
	}
	overview, _, _ := strings.Cut(ctx.Markdown, hunksHeading)
	seen := map[string]bool{}
	for _, e := range ctx.Files {
		seen[e.Path] = true
		if e.Group != "" {
			// Counted by directory: the directory's line names the call
			// that lists it.
			if !strings.Contains(overview, "listed by "+codeSpan(fetchCall(e.Group))) {
				t.Errorf("%s: overview lacks the line of its directory %q", e.Path, e.Group)
			}
			if !strings.HasPrefix(e.Path, e.Group+"/") && e.Group != ListAll {
				t.Errorf("%s: counted in directory %q", e.Path, e.Group)
			}
			continue
		}
		if !strings.Contains(overview, codeSpan(displayPath(e.Path))) {
			t.Errorf("overview does not name %q", e.Path)
		}
		section := strings.Contains(ctx.Markdown, "\n### "+codeSpan(displayPath(e.Path)))
		if section != (e.Shown > 0) {
			t.Errorf("%s: section present %v, %d hunks shown", e.Path, section, e.Shown)
		}
		if e.Included == (e.Reason != "") {
			t.Errorf("%s: included %v with reason %q", e.Path, e.Included, e.Reason)
		}
		wantFetch := (!e.Included || e.Shortened) && !e.Binary && e.Hunks > 0
		if (e.Fetch != "") != wantFetch {
			t.Errorf("%s: fetch %q, want one: %v", e.Path, e.Fetch, wantFetch)
		}
		if e.Fetch != "" {
			if want := fetchCall(e.Path); e.Fetch != want {
				t.Errorf("%s: fetch %q, want %q", e.Path, e.Fetch, want)
			}
			if !strings.Contains(overview, e.Fetch) {
				t.Errorf("%s: overview lacks %s", e.Path, e.Fetch)
			}
		}
	}
	for _, f := range d.Files {
		if !seen[f.Path] {
			t.Errorf("no entry for %s", f.Path)
		}
	}
}

func testBudget(t *testing.T, d *Diff) {
	big := &Diff{Files: mustParse(t, synthDiff(3000))}
	for _, c := range []struct {
		name string
		c    Counter
	}{{"estimate", estimator{}}, {"tiktoken", tiktoken(t)}} {
		t.Run(c.name, func(t *testing.T) {
			for _, dd := range []*Diff{d, big} {
				full := Render(dd, 1<<30, c.c)
				for _, budget := range []int{0, 10, 100, 300, 500, 700, 1000, 2000, 5000, 10000, full.Tokens - 1, full.Tokens} {
					ctx := Render(dd, budget, c.c)
					checkContext(t, dd, ctx, c.c)
				}
				for _, e := range full.Files {
					if e.Included != (e.Reason == "") || e.Reason == ReasonBudget {
						t.Errorf("unlimited budget: %s has reason %q", e.Path, e.Reason)
					}
				}
			}
		})
	}
}

func testOverviewOnly(t *testing.T, d *Diff) {
	ctx := Render(d, 20, nil)
	if strings.Contains(ctx.Markdown, hunksHeading) || ctx.Tokens <= ctx.Budget {
		t.Fatalf("want the overview alone, over budget; got %d tokens:\n%s", ctx.Tokens, ctx.Markdown)
	}
	for _, e := range ctx.Files {
		if e.Shown != 0 || (e.Hunks > 0 && e.Included) {
			t.Errorf("%s shown with no budget", e.Path)
		}
	}
	checkContext(t, d, ctx, estimator{})
}

// TestRenderPriority checks the order of sections and what is summarised.
func testPriority(t *testing.T, d *Diff) {
	ctx := Render(d, 100000, nil)
	order := []string{"internal/auth/token.go", "handler.go", "util/strings.go", "config.yaml", "handler_test.go", "docs/guide.md"}
	last := -1
	for _, p := range order {
		i := strings.Index(ctx.Markdown, "\n### "+codeSpan(p))
		if i < 0 {
			t.Fatalf("no section for %s", p)
		}
		if i < last {
			t.Errorf("%s comes too early", p)
		}
		last = i
	}
	summarised := map[string]string{"go.sum": ReasonLockfile, "api/api.pb.go": ReasonGenerated, "logo.png": ReasonBinary}
	for _, e := range ctx.Files {
		if want, ok := summarised[e.Path]; ok {
			if e.Reason != want || e.Included || strings.Contains(ctx.Markdown, "### "+codeSpan(e.Path)) {
				t.Errorf("%s: reason %q, included %v; want summarised as %s", e.Path, e.Reason, e.Included, want)
			}
		}
	}
	if ctx.Files[len(ctx.Files)-1].Reason == "" {
		t.Errorf("summarised files should come last: %+v", ctx.Files[len(ctx.Files)-1])
	}
}

func testHunkLines(t *testing.T, d *Diff) {
	md := Render(d, 100000, nil).Markdown
	for _, want := range []string{
		// util/strings.go: "line three" replaced line 4 (after the package line).
		"@@ -1,7 +1,7 @@\n1  package util\n2  line 1\n3  line 2\n  -line 3\n4 +line three\n5  line 4\n",
		// A deleted 41-line file keeps three lines at each end.
		"@@ -1,41 +0,0 @@\n  -package legacy\n  -line 1\n  -line 2\n  … 35 deleted lines cut …\n  -line 38\n  -line 39\n  -line 40\n",
		// CRLF is dropped from lines and noted once.
		"### `win.txt` (CRLF line endings)\n\n```\n@@ -1,2 +1,2 @@\n1  a\n  -b\n2 +B\n```\n",
		// Content with backtick runs gets a longer fence.
		"### `handler.go`\n\n`````\n",
		"### `` `tick`.go ``\n",
		"- `run.sh` — modified, +0 -0, mode 100644 → 100755",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	ctx := Render(d, 100000, nil)
	for _, e := range ctx.Files {
		if e.Path == "old/legacy.go" && (!e.Shortened || !e.Included || e.Fetch == "") {
			t.Errorf("deleted file entry: %+v", e)
		}
	}
}

// TestRenderFences checks that no content line can close a fence early.
func TestRenderFences(t *testing.T) {
	fence := regexp.MustCompile("(?m)^(`{3,})$")
	for _, body := range []string{"```", "````", "`````````` ten", "a ``` b"} {
		raw := fmt.Sprintf("diff --git a/x.md b/x.md\nindex 1111111..2222222 100644\n--- a/x.md\n+++ b/x.md\n@@ -1 +1 @@\n-old\n+%s\n", body)
		ctx := Render(&Diff{Files: mustParse(t, []byte(raw))}, 10000, nil)
		m := fence.FindStringSubmatch(ctx.Markdown)
		if m == nil {
			t.Fatalf("no fence in %q", ctx.Markdown)
		}
		if text.LongestRun(body, '`') >= len(m[1]) {
			t.Errorf("fence %q for content %q", m[1], body)
		}
		if n := strings.Count(ctx.Markdown, "\n"+m[1]+"\n"); n != 2 {
			t.Errorf("fence %q appears %d times", m[1], n)
		}
	}
}

func TestRenderPartialFile(t *testing.T) {
	files := mustParse(t, synthDiff(200)) // two files of ten hunks
	d := &Diff{Files: files[:1]}
	full := Render(d, 1<<30, nil)
	ctx := Render(d, full.Tokens/2, nil)
	e := ctx.Files[0]
	if e.Shown == 0 || e.Shown >= e.Hunks || e.Included || e.Reason != ReasonBudget {
		t.Fatalf("entry %+v, want some hunks shown for budget", e)
	}
	want := fmt.Sprintf("first %d of %d hunks shown (budget); all: `%s`", e.Shown, e.Hunks, e.Fetch)
	if !strings.Contains(ctx.Markdown, want) {
		t.Errorf("overview lacks %q:\n%s", want, ctx.Markdown)
	}
	checkContext(t, d, ctx, estimator{})
}

func testDeterministic(t *testing.T, d *Diff) {
	want := Render(d, 800, nil)
	shuffled := *d
	shuffled.Files = append([]*File(nil), d.Files...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled.Files), func(i, j int) {
		shuffled.Files[i], shuffled.Files[j] = shuffled.Files[j], shuffled.Files[i]
	})
	got := Render(&shuffled, 800, nil)
	if got.Markdown != want.Markdown {
		t.Errorf("file order changed the context:\n%s", firstDiff(want.Markdown, got.Markdown))
	}
}

func testJSON(t *testing.T, d *Diff) {
	ctx := Render(d, 700, nil)
	js, err := ctx.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(string(js), "\n") || strings.Contains(string(js), `\u003c`) {
		t.Errorf("JSON not compact or HTML-escaped: %s", js)
	}
	var back struct {
		Files  []Entry `json:"files"`
		Tokens int     `json:"tokens"`
		Budget int     `json:"budget"`
	}
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if back.Tokens != ctx.Tokens || back.Budget != 700 || len(back.Files) != len(ctx.Files) {
		t.Errorf("round trip: %+v", back)
	}
}

func TestFetchCall(t *testing.T) {
	for path, want := range map[string]string{
		"a.go":          `get_file_diff {"path": "a.go"}`,
		`we"ird\<>.go`:  `get_file_diff {"path": "we\"ird\\<>.go"}`,
		"new\nline.txt": `get_file_diff {"path": "new\nline.txt"}`,
		// Not UTF-8: the quoted form the context shows and the tool takes.
		"caf\xe9.txt": `get_file_diff {"path": "\"caf\\xe9.txt\""}`,
	} {
		if got := fetchCall(path); got != want {
			t.Errorf("fetchCall(%q) = %s, want %s", path, got, want)
		}
	}
}

func mustParse(t testing.TB, raw []byte) []*File {
	t.Helper()
	files, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// manyFiles is a diff of n small files, two hunks each, in nested
// directories; every 50th is security-relevant.
func manyFiles(n int) []byte {
	var b strings.Builder
	for i := range n {
		p := fmt.Sprintf("svc%02d/part%d/f%05d.go", i%23, i%5, i)
		if i%50 == 7 {
			p = fmt.Sprintf("internal/auth/a%05d.go", i)
		}
		fmt.Fprintf(&b, "diff --git a/%s b/%s\nindex 1111111..2222222 100644\n--- a/%s\n+++ b/%s\n", p, p, p, p)
		fmt.Fprintf(&b, "@@ -1,3 +1,3 @@ func f%d() {\n a := %d\n-b := old(a)\n+b := next(a)\n c := b\n", i, i)
		fmt.Fprintf(&b, "@@ -20,3 +20,4 @@ func g%d() {\n x := %d\n+y := x\n z := x\n w := z\n", i, i)
	}
	return []byte(b.String())
}

// TestRenderManyFiles checks the overview of a diff too large to name each
// file: within budget, the first files in priority order listed, the
// others counted by directory as deep as fits, each file reachable.
func TestRenderManyFiles(t *testing.T) {
	d := &Diff{Files: mustParse(t, manyFiles(3000))}
	tik := tiktoken(t)
	prev := -1
	for _, budget := range []int{500, 1000, 4000, 16000, 60000} {
		ctx := Render(d, budget, tik)
		checkContext(t, d, ctx, tik)
		if ctx.Tokens > budget {
			t.Errorf("budget %d: %d tokens", budget, ctx.Tokens)
		}
		listed, groups := 0, map[string]bool{}
		for i, e := range ctx.Files {
			if e.Group == "" {
				listed++
				if i >= listed {
					t.Errorf("budget %d: %s listed after files counted by directory", budget, e.Path)
				}
				continue
			}
			groups[e.Group] = true
		}
		if listed == len(ctx.Files) || listed < prev {
			t.Errorf("budget %d: %d files listed (%d with a smaller budget)", budget, listed, prev)
		}
		prev = listed
		if !strings.Contains(ctx.Markdown, "- `internal/auth/a00007.go` — modified, +2 -1 [security]") {
			t.Errorf("budget %d: the first file by priority has no line:\n%s", budget, ctx.Markdown[:min(len(ctx.Markdown), 1500)])
		}
		t.Logf("budget %d: %d tokens, %d files listed, %d directories", budget, ctx.Tokens, listed, len(groups))
		if budget >= 4000 && len(groups) < 23 {
			t.Errorf("budget %d: files counted in %d directories, want at least one for each of 23", budget, len(groups))
		}
	}
}
