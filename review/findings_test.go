package review

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/tools"
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
	f := func(path string, line int, sev result.Severity, cat, title string) result.Finding {
		return result.Finding{Path: path, Line: line, Severity: sev, Category: cat, Title: title, Body: title}
	}
	for _, tc := range []struct {
		name    string
		in      []result.Finding
		policy  result.OffDiff
		kept    []string // path:line:severity:title
		dropped int
	}{
		{"in hunk", []result.Finding{f("a.go", 11, result.High, "correctness", "bug")}, result.KeepFileLevel, []string{"a.go:11:high:bug"}, 0},
		{"untouched file", []result.Finding{f("b.go", 1, result.High, "correctness", "bug")}, result.KeepFileLevel, nil, 1},
		{"off diff kept at file level", []result.Finding{f("a.go", 90, result.Low, "style", "far")}, result.KeepFileLevel, []string{"a.go:0:low:far"}, 0},
		{"off diff dropped", []result.Finding{f("a.go", 90, result.Low, "style", "far")}, result.DropOffDiff, nil, 1},
		{"duplicates merged, more severe wins", []result.Finding{
			f("a.go", 11, result.Low, "correctness", "minor"),
			f("a.go", 11, result.Critical, "correctness", "major"),
		}, result.KeepFileLevel, []string{"a.go:11:critical:major"}, 1},
		{"different lines stay apart at file level", []result.Finding{
			f("a.go", 80, result.Low, "style", "one"),
			f("a.go", 90, result.Low, "style", "two"),
		}, result.KeepFileLevel, []string{"a.go:0:low:one", "a.go:0:low:two"}, 0},
		{"sorted by severity", []result.Finding{
			f("a.go", 10, result.Low, "style", "low"),
			f("a.go", 12, result.High, "security", "high"),
		}, result.KeepFileLevel, []string{"a.go:12:high:high", "a.go:10:low:low"}, 0},
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

// submitCall calls submit_review as the agent does and returns the submission
// it accepted, if it did, and its result.
func submitCall(t *testing.T, args string) (*submission, tools.Result) {
	t.Helper()
	var got *submission
	set := offered(tools.New(tools.Env{}), nil, func(s submission) { got = &s })
	res := set.Call(context.Background(), toolname.SubmitReview, args)
	if res.IsError != (got == nil) {
		t.Fatalf("submit_review %s: error result %v, submission %v", args, res.IsError, got)
	}
	return got, res
}

func TestParseSubmission(t *testing.T) {
	s, res := submitCall(t, `{"summary":" ok ","findings":[{"path":"./a.go","line":3,"end_line":null,"severity":"HIGH","category":"","title":"","body":"body line\nmore","suggestion":null}]}`)
	if s == nil {
		t.Fatalf("refused: %s", res.Output)
	}
	got := s.Findings[0]
	if s.Summary != "ok" || got.Path != "a.go" || got.Severity != result.High || got.Category != "general" || got.Title != "body line" || got.EndLine != 0 {
		t.Errorf("parsed %+v", s)
	}
	if res.Output != "Review received: 1 findings." {
		t.Errorf("result %q", res.Output)
	}
	// Slips of models that do not follow the schema are tolerated.
	if s, res := submitCall(t, `{"findings": [{"path": "a.go", "severity": "low"}]}`); s == nil || s.Summary != "" || s.Findings[0].Line != 0 {
		t.Errorf("lenient submission: %+v, %s", s, res.Output)
	}
	if s, res := submitCall(t, `{}`); s == nil || len(s.Findings) != 0 {
		t.Errorf("empty submission: %+v, %s", s, res.Output)
	}
	// What cannot be used is an error result, worded like every tool's.
	for _, tc := range []struct{ args, want string }{
		{`not json`, `submit_review arguments must be a JSON object, e.g. {"summary": `},
		{`{"findings":[{"path":"a.go","severity":"urgent"}]}`, `submit_review argument "findings[0].severity" must be info, low, medium, high or critical, not "urgent" (e.g. {"summary": `},
		{`{"findings":[{"path":"a.go","severity":"low"},{"severity":"low"}]}`, `submit_review argument "findings[1].path" is missing`},
		{`{"summary": 3, "findings": []}`, `submit_review argument "summary" must be a string`},
		{`{"summary": "x", "findings": {}}`, `submit_review argument "findings" must be an array`},
		{`{"summary": "x", "verdict": "ok"}`, `submit_review argument "verdict" is unknown; the arguments are summary, findings`},
	} {
		s, res := submitCall(t, tc.args)
		if s != nil || !strings.HasPrefix(res.Output, "error: "+tc.want) {
			t.Errorf("submit_review %s:\n got %s\nwant %s...", tc.args, res.Output, tc.want)
		}
	}
}

// TestSubmitDefinition checks submit_review's schema: strict, and its
// example in error messages is a submission the tool accepts.
func TestSubmitDefinition(t *testing.T) {
	defs := offered(tools.New(tools.Env{}), nil, nil).Definitions()
	d := defs[len(defs)-1]
	if d.Name != toolname.SubmitReview || !d.Strict {
		t.Fatalf("last definition is %+v", d)
	}
	var schema struct {
		Required   []string
		Properties map[string]struct{ Type any }
	}
	if err := json.Unmarshal(d.Parameters, &schema); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(schema.Required, []string{"summary", "findings"}) || schema.Properties["summary"].Type != "string" || schema.Properties["findings"].Type != "array" {
		t.Errorf("parameters %s", d.Parameters)
	}
	_, res := submitCall(t, `[]`)
	example := strings.TrimPrefix(res.Output, "error: submit_review arguments must be a JSON object, e.g. ")
	if s, res := submitCall(t, example); s == nil || len(s.Findings) != 1 {
		t.Errorf("the example %s is refused: %s", example, res.Output)
	}
}

// TestReplacement: a finding's replacement lines are kept as given (only
// the final line break goes), make its Change, come before a suggestion
// block, and are dropped with the line when the finding moves to file
// level.
func TestReplacement(t *testing.T) {
	s, res := submitCall(t, `{"summary":"s","findings":[
		{"path":"a.go","line":3,"end_line":4,"severity":"low","category":"style","title":"t","body":"b","suggestion":"Name it.","replacement":"\tx := 1\r\n\ty := 2\n"},
		{"path":"a.go","line":5,"end_line":null,"severity":"low","category":"style","title":"u","body":"b","suggestion":null,"replacement":""},
		{"path":"a.go","line":0,"end_line":null,"severity":"low","category":"style","title":"v","body":"b","suggestion":null,"replacement":"x"},
		{"path":"a.go","line":6,"end_line":null,"severity":"low","category":"style","title":"w","body":"b","suggestion":"`+"```suggestion\\nz\\n```"+`"}]}`)
	if s == nil {
		t.Fatalf("refused: %s", res.Output)
	}
	f := s.Findings
	if f[0].Replacement == nil || *f[0].Replacement != "\tx := 1\n\ty := 2" {
		t.Fatalf("replacement %v", f[0].Replacement)
	}
	if code, prose, ok := f[0].Change(); !ok || code != "\tx := 1\n\ty := 2" || prose != "Name it." {
		t.Errorf("Change() = %q, %q, %v", code, prose, ok)
	}
	if code, _, ok := f[1].Change(); !ok || code != "" {
		t.Errorf("an empty replacement deletes the lines: %q, %v", code, ok)
	}
	if f[2].Replacement != nil {
		t.Errorf("a file-level finding kept a replacement %q", *f[2].Replacement)
	}
	if code, _, ok := f[3].Change(); !ok || code != "z" {
		t.Errorf("a suggestion block without a replacement: %q, %v", code, ok)
	}

	files, err := diffctx.Parse([]byte(findingsDiff))
	if err != nil {
		t.Fatal(err)
	}
	near := result.Finding{Path: "a.go", Line: 11, Severity: result.Low, Title: "near", Replacement: f[0].Replacement}
	far := result.Finding{Path: "a.go", Line: 90, Severity: result.Low, Title: "far", Replacement: f[0].Replacement}
	kept, _ := checkFindings(&diffctx.Diff{Files: files}, []result.Finding{near, far}, result.KeepFileLevel)
	if len(kept) != 2 {
		t.Fatalf("kept %+v", kept)
	}
	for _, k := range kept {
		if k.Line == 0 && k.Replacement != nil {
			t.Errorf("%s moved to file level with its replacement", k.Title)
		}
		if k.Line == 11 && k.Replacement == nil {
			t.Errorf("%s lost its replacement", k.Title)
		}
	}
}
