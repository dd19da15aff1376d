package result

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reviewdev/review/diffctx"
)

func TestLiteralSuggestion(t *testing.T) {
	tests := []struct {
		name, in    string
		code, prose string
		ok          bool
	}{
		{"block only", "```suggestion\nfoo()\nbar()\n```", "foo()\nbar()", "", true},
		{"prose around", "Lock first:\n\n```suggestion\nmu.Lock()\n```\nthen unlock.", "mu.Lock()", "Lock first:\n\nthen unlock.", true},
		{"delete lines", "```suggestion\n```", "", "", true},
		{"longer fence holding a fence", "````suggestion\n```go\nx\n```\n````", "```go\nx\n```", "", true},
		{"tildes", "~~~suggestion\nx := 1\n~~~", "x := 1", "", true},
		{"indented fence", "  ```suggestion\n  x\n    y\n z\n  ```", "x\n  y\nz", "", true},
		{"other block first", "```go\nold\n```\n```suggestion\nnew\n```", "new", "```go\nold\n```", true},
		{"advice", "Use a mutex.", "", "", false},
		{"code, not a replacement", "```go\nmu.Lock()\n```", "", "", false},
		{"two replacements", "```suggestion\na\n```\n```suggestion\nb\n```", "", "", false},
		{"unclosed", "```suggestion\na\n", "", "", false},
		{"closing fence too short", "````suggestion\na\n```", "", "", false},
		{"info after suggestion", "```suggestion:-0+1\na\n```", "", "", false},
		{"empty", "", "", "", false},
	}
	for _, tt := range tests {
		code, prose, ok := LiteralSuggestion(tt.in)
		if ok != tt.ok || code != tt.code || prose != tt.prose {
			t.Errorf("%s: LiteralSuggestion(%q) = %q, %q, %v; want %q, %q, %v", tt.name, tt.in, code, prose, ok, tt.code, tt.prose, tt.ok)
		}
	}
}

func TestFingerprint(t *testing.T) {
	base := Finding{Path: "a/b.go", Line: 10, EndLine: 12, Severity: High, Category: "correctness", Title: "Off-by-one in the loop bound", Body: "x"}
	same := []struct {
		name string
		edit func(*Finding)
	}{
		{"lines moved", func(f *Finding) { f.Line, f.EndLine = 40, 44 }},
		{"now file level", func(f *Finding) { f.Line, f.EndLine = 0, 0 }},
		{"severity and body", func(f *Finding) { f.Severity, f.Body, f.Suggestion = Low, "other words", "fix" }},
		{"case and punctuation", func(f *Finding) { f.Title = "off-by-one in the LOOP bound." }},
		{"line reference", func(f *Finding) { f.Title = "Off-by-one in the loop bound at line 10" }},
		{"line range reference", func(f *Finding) { f.Title = "Off-by-one in the loop bound (lines 40-44)" }},
		{"L reference", func(f *Finding) { f.Title = "L12: off-by-one in the loop bound" }},
		{"colon reference", func(f *Finding) { f.Title = "Off-by-one in the loop bound b.go:57" }},
		{"category case", func(f *Finding) { f.Category = "Correctness" }},
	}
	want := base.Fingerprint()
	if len(want) != 32 {
		t.Fatalf("fingerprint %q is not 32 hex digits", want)
	}
	for _, tt := range same {
		f := base
		tt.edit(&f)
		if got := f.Fingerprint(); got != want {
			t.Errorf("%s: fingerprint changed (%q → %q)", tt.name, base.Title, f.Title)
		}
	}
	differ := []struct {
		name string
		edit func(*Finding)
	}{
		{"path", func(f *Finding) { f.Path = "a/c.go" }},
		{"category", func(f *Finding) { f.Category = "performance" }},
		{"title", func(f *Finding) { f.Title = "Off-by-one in the slice bound" }},
		{"digits that are not lines", func(f *Finding) { f.Title = "Off-by-one in the int64 loop bound" }},
		{"path and title run together", func(f *Finding) { f.Path, f.Title = "a/b.gocorrectness", "" }},
	}
	for _, tt := range differ {
		f := base
		tt.edit(&f)
		if f.Fingerprint() == want {
			t.Errorf("%s: fingerprint did not change", tt.name)
		}
	}
}

// TestNotReviewedJSON checks that a file not reviewed is named exactly in
// JSON, a name that is not UTF-8 included, and read back the same.
func TestNotReviewedJSON(t *testing.T) {
	for _, p := range []string{"a/b.go", "caf\xe9.txt"} {
		n := NotReviewed{Left: diffctx.Left{Path: p, Hunks: 2, All: 3}, Reason: ReasonMaxUnits}
		b, err := json.Marshal(n)
		if err != nil || !utf8.Valid(b) || strings.ContainsRune(string(b), utf8.RuneError) {
			t.Fatalf("%q: %s, %v", p, b, err)
		}
		var back NotReviewed
		if err := json.Unmarshal(b, &back); err != nil || back != n {
			t.Errorf("%q: read back %+v, %v", p, back, err)
		}
	}
}
