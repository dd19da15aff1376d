package review

import (
	"fmt"
	"strings"
	"testing"

	"github.com/reviewdev/review/diffctx"
)

const findingsDiff = `diff --git a/a.go b/a.go
index 1111111..2222222 100644
--- a/a.go
+++ b/a.go
@@ -10,3 +10,4 @@ func f() {
 	x := 1
+	y := 2
 	z := 3
 	return
`

func TestCheckFindings(t *testing.T) {
	files, err := diffctx.Parse([]byte(findingsDiff))
	if err != nil {
		t.Fatal(err)
	}
	d := &diffctx.Diff{Files: files}
	f := func(path string, line int, sev Severity, cat, title string) Finding {
		return Finding{Path: path, Line: line, Severity: sev, Category: cat, Title: title, Body: title}
	}
	for _, tc := range []struct {
		name    string
		in      []Finding
		policy  OffDiff
		kept    []string // path:line:severity:title
		dropped int
	}{
		{"in hunk", []Finding{f("a.go", 11, High, "correctness", "bug")}, KeepFileLevel, []string{"a.go:11:high:bug"}, 0},
		{"untouched file", []Finding{f("b.go", 1, High, "correctness", "bug")}, KeepFileLevel, nil, 1},
		{"off diff kept at file level", []Finding{f("a.go", 90, Low, "style", "far")}, KeepFileLevel, []string{"a.go:0:low:far"}, 0},
		{"off diff dropped", []Finding{f("a.go", 90, Low, "style", "far")}, DropOffDiff, nil, 1},
		{"duplicates merged, more severe wins", []Finding{
			f("a.go", 11, Low, "correctness", "minor"),
			f("a.go", 11, Critical, "correctness", "major"),
		}, KeepFileLevel, []string{"a.go:11:critical:major"}, 1},
		{"different lines stay apart at file level", []Finding{
			f("a.go", 80, Low, "style", "one"),
			f("a.go", 90, Low, "style", "two"),
		}, KeepFileLevel, []string{"a.go:0:low:one", "a.go:0:low:two"}, 0},
		{"sorted by severity", []Finding{
			f("a.go", 10, Low, "style", "low"),
			f("a.go", 12, High, "security", "high"),
		}, KeepFileLevel, []string{"a.go:12:high:high", "a.go:10:low:low"}, 0},
	} {
		kept, dropped := checkFindings(d, tc.in, tc.policy)
		var got []string
		for _, k := range kept {
			got = append(got, fmt.Sprintf("%s:%d:%s:%s", k.Path, k.Line, k.Severity, k.Title))
		}
		if len(got) != len(tc.kept) || len(dropped) != tc.dropped {
			t.Errorf("%s: kept %v dropped %d, want %v and %d", tc.name, got, len(dropped), tc.kept, tc.dropped)
			continue
		}
		for i := range got {
			if got[i] != tc.kept[i] {
				t.Errorf("%s: kept %v, want %v", tc.name, got, tc.kept)
			}
		}
	}
}

func TestParseSubmission(t *testing.T) {
	s, err := parseSubmission(`{"summary":" ok ","findings":[{"path":"./a.go","line":3,"end_line":null,"severity":"HIGH","category":"","title":"","body":"body line\nmore","suggestion":null}]}`)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Findings[0]
	if s.Summary != "ok" || got.Path != "a.go" || got.Severity != High || got.Category != "general" || got.Title != "body line" || got.EndLine != 0 {
		t.Errorf("parsed %+v", s)
	}
	for _, bad := range []string{`not json`, `{"findings":[{"path":"a.go","severity":"urgent"}]}`, `{"findings":[{"severity":"low"}]}`} {
		if _, err := parseSubmission(bad); err == nil {
			t.Errorf("parseSubmission(%s) succeeded", bad)
		}
	}
}

func TestMarkdownIsNoWorkflowCommand(t *testing.T) {
	r := &Result{RunID: "r", Submitted: true, Summary: "fine\n::error file=x::pwned\n  ::warning::x",
		Findings: []Finding{{Path: "a.go", Line: 1, Severity: High, Category: "security", Title: "two\n::lines", Body: "::set-output name=x::y"}}}
	var b strings.Builder
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "::") {
			t.Errorf("line would run as a workflow command: %q", l)
		}
	}
	if !strings.Contains(b.String(), "### 1. [high] two ::lines") {
		t.Errorf("title not on one line:\n%s", b.String())
	}
}
