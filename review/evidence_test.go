package review

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/toolmem"
)

// TestSightOfDiffContext reads the lines a rendered diff context shows:
// context and added lines at head, not deleted ones, under each file's
// heading, whatever its path needs for quoting.
func TestSightOfDiffContext(t *testing.T) {
	const raw = `diff --git a/a.go b/a.go
index 1111111..2222222 100644
--- a/a.go
+++ b/a.go
@@ -10,3 +10,4 @@ func f() {
 	x := 1
+	y := 2
-	w := 0
+	z := 3
 	return
diff --git "a/we\tird.go" "b/we\tird.go"
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ "b/we\tird.go"
@@ -0,0 +1,2 @@
+package p
+// x
`
	files, err := diffctx.Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	d := &diffctx.Diff{Base: "main", Head: "HEAD", Files: files}
	ctx := diffctx.Render(d, 10000, nil)
	v := newSight()
	v.diffContext(ctx.Markdown, shownAt{source: result.SourceDiff})
	if got, want := lines(v, "a.go"), []int{10, 11, 12, 13}; !slices.Equal(got, want) {
		t.Errorf("a.go: shown %v, want %v\n%s", got, want, ctx.Markdown)
	}
	if got, want := lines(v, "we\tird.go"), []int{1, 2}; !slices.Equal(got, want) {
		t.Errorf("we\\tird.go: shown %v, want %v\n%s", got, want, ctx.Markdown)
	}
	f := result.Finding{Path: "a.go", Line: 12, EndLine: 14}
	v.ground(&f)
	if f.Grounded || len(f.Evidence) != 1 || f.Evidence[0].StartLine != 12 || f.Evidence[0].EndLine != 13 {
		t.Errorf("a.go:12-14: grounded %v, evidence %+v; want not grounded, 12-13 from the diff", f.Grounded, f.Evidence)
	}
	if got := f.Unshown(); got != "line 14 of a.go was never shown to the model" {
		t.Errorf("Unshown = %q", got)
	}
}

func lines(v *sight, path string) []int {
	var out []int
	for l := range v.lines[path] {
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

// TestShownLines maps what a preview shows back to the output's lines,
// the lines it cut included, and nothing of what it left out.
func TestShownLines(t *testing.T) {
	var out []string
	out = append(out, `"big.txt" at head, lines 1-300 of 300:`)
	for i := 1; i <= 300; i++ {
		out = append(out, fmt.Sprintf("%d: row %d %s", i, i, strings.Repeat("x", i%7*40)))
	}
	data := strings.Join(out, "\n") + "\n"
	preview := toolmem.Preview("abcdefgh23", []byte(data), toolmem.Limits{Chars: 1200, Lines: 12})
	got := shownLines(out, preview)
	if len(got) == 0 {
		t.Fatalf("no line of the preview matched:\n%s", preview)
	}
	for _, i := range got {
		l := out[i]
		if i > 0 && !strings.Contains(preview, l[:min(len(l), 12)]) {
			t.Errorf("line %d matched but the preview does not show it:\n%s", i+1, preview)
		}
	}
	if slices.Contains(got, 150) {
		t.Errorf("line 151 is in the middle, which the preview leaves out:\n%s", preview)
	}
	// A diff's preview: its tail starts with a line the gap holds too,
	// which must not be taken for it.
	diff := []string{"@@ -1,9 +1,9 @@", " a", " }", " b", " }", " c", " }", " d", " }"}
	gapped := "[output abcdefgh23: 9 lines]\n@@ -1,9 +1,9 @@\n a\n[... 5 lines omitted ...]\n d\n }"
	if got := shownLines(diff, gapped); !slices.Equal(got, []int{0, 1, 7, 8}) {
		t.Errorf("diff preview: shown %v, want [0 1 7 8]", got)
	}
	if whole := shownLines(out, data); len(whole) != len(out) {
		t.Errorf("the whole output shows %d lines, want %d", len(whole), len(out))
	}
}

func TestLocators(t *testing.T) {
	locs := func(f func(string, []string, []fileLine), args string, text string) []fileLine {
		ls := strings.Split(text, "\n")
		out := make([]fileLine, len(ls))
		f(args, ls, out)
		return out
	}
	read := locs(readLocs, "", "\"a.go\" at head, lines 4-5 of 9:\n4: x\n5: y")
	if !slices.Equal(read, []fileLine{{}, {"a.go", 4}, {"a.go", 5}}) {
		t.Errorf("read: %v", read)
	}
	if base := locs(readLocs, "", "\"a.go\" at base, lines 4-5 of 9:\n4: x\n5: y"); base[1].line != 0 {
		t.Errorf("a read at base shows no line at head: %v", base)
	}
	diff := locs(diffLocs, `{"path": "a.go"}`, "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,2 +1,3 @@\n x\n-y\n+z\n+++w\n k")
	want := []fileLine{{}, {}, {}, {}, {"a.go", 1}, {}, {"a.go", 2}, {"a.go", 3}, {"a.go", 4}}
	if !slices.Equal(diff, want) {
		t.Errorf("diff: %v, want %v", diff, want)
	}
	search := locs(searchLocs, "", "2 matching lines in 2 files for \"x\" at head\nsrc/my-file.go:12: x := 1\nsrc/my-file.go-13- y\n\"we\\tird.go\":3: x")
	want = []fileLine{{}, {"src/my-file.go", 12}, {"src/my-file.go", 13}, {"we\tird.go", 3}}
	if !slices.Equal(search, want) {
		t.Errorf("search: %v, want %v", search, want)
	}
	ref, nums := pageLines("output abcdefgh23 (read_file_hunk {}): lines 20-22 of 300\n20: 19: a\n21: 20: b\n22: 21: c\n[278 more lines: …]")
	if ref != "abcdefgh23" || !slices.Equal(nums, []int{20, 21, 22}) {
		t.Errorf("page: %q %v", ref, nums)
	}
}

// TestDedupeKeepsStrongerEvidence merges the same defect reported by two
// units on nearby lines in the same words, keeping the grounded report's
// lines and evidence.
func TestDedupeKeepsStrongerEvidence(t *testing.T) {
	guess := result.Finding{Path: "a.go", Line: 40, Severity: result.High, Category: "correctness", Title: "Nil map write at line 40", Body: "Panics."}
	seen := result.Finding{Path: "a.go", Line: 42, Severity: result.Medium, Category: "correctness", Title: "Nil map write", Body: "Writes to a nil map.",
		Grounded: true, Evidence: []result.Evidence{{Source: "abcdefgh23", Path: "a.go", StartLine: 42, EndLine: 42}}}
	far := result.Finding{Path: "a.go", Line: 90, Severity: result.Low, Category: "correctness", Title: "Nil map write", Body: "Elsewhere."}
	out, dropped := dedupe([]result.Finding{guess, seen, far})
	if len(out) != 2 || len(dropped) != 1 {
		t.Fatalf("kept %d, dropped %d; want 2 and 1", len(out), len(dropped))
	}
	m := out[0]
	if m.Severity != result.High || m.Line != 42 || !m.Grounded || len(m.Evidence) != 1 || !strings.Contains(m.Body, "nil map") {
		t.Errorf("merged: %+v", m)
	}
}

// TestParseVerdicts reads the verdicts of the forced call, or of a server
// that ignored it and answered the same JSON as text; anything else is no
// verdict, which keeps every finding.
func TestParseVerdicts(t *testing.T) {
	call := &llm.Reply{Message: conversation.Message{ToolCalls: []conversation.ToolCall{{Name: verifyTool,
		Arguments: `{"verdicts": [{"finding": 2, "keep": false, "reason": "no"}]}`}}}}
	if vs, ok := parseVerdicts(call); !ok || vs[2].Keep || vs[2].Reason != "no" {
		t.Errorf("call: %v %v", vs, ok)
	}
	prose := &llm.Reply{Message: conversation.Message{Content: "Here:\n```json\n{\"verdicts\": [{\"finding\": 1, \"keep\": true, \"reason\": \"ok\"}]}\n```"}}
	if vs, ok := parseVerdicts(prose); !ok || !vs[1].Keep {
		t.Errorf("prose: %v %v", vs, ok)
	}
	if _, ok := parseVerdicts(&llm.Reply{Message: conversation.Message{Content: "All good."}}); ok {
		t.Error("a reply without verdicts read as verdicts")
	}
}
