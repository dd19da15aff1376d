package review

import (
	"testing"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/tools"
)

// TestShownWhole withholds a get_file_diff result only when the unit
// under way, or the diff context, shows every hunk of the file, and the
// result is that file's diff.
func TestShownWhole(t *testing.T) {
	diff := &diffctx.Diff{Files: []*diffctx.File{
		{Path: "a.go", Hunks: make([]diffctx.Hunk, 2)},
		{Path: "b.go", Hunks: make([]diffctx.Hunk, 3)},
		{Path: "big.bin", TooLarge: true},
	}}
	whole := []diffctx.Part{{Path: "a.go", First: 1, Last: 2}, {Path: "b.go", First: 1, Last: 1}}
	ok := tools.Result{Output: "diff --git a/a.go b/a.go\n"}
	cases := []struct {
		name  string
		parts []diffctx.Part
		call  conversation.ToolCall
		res   tools.Result
		whole map[string]bool // the files the diff context shows whole
		want  string          // "" when the result is shown as usual
	}{
		{"whole in the diff context", nil, conversation.ToolCall{Name: toolname.GetFileDiff, Arguments: `{"path": "b.go"}`}, ok, map[string]bool{"b.go": true}, `"b.go" is in the diff context above, whole.`},
		{"another file than the diff context's", nil, conversation.ToolCall{Name: toolname.GetFileDiff, Arguments: `{"path": "a.go"}`}, ok, map[string]bool{"b.go": true}, ""},
		{"whole in the unit", whole, conversation.ToolCall{Name: toolname.GetFileDiff, Arguments: `{"path": "a.go"}`}, ok, nil, `"a.go" is in this unit above, whole.`},
		{"whole in two parts", []diffctx.Part{{Path: "a.go", First: 2, Last: 2}, {Path: "a.go", First: 1, Last: 1}}, conversation.ToolCall{Name: toolname.GetFileDiff, Arguments: `{"path": "a.go"}`}, ok, nil, `"a.go" is in this unit above, whole.`},
		{"some of its hunks", whole, conversation.ToolCall{Name: toolname.GetFileDiff, Arguments: `{"path": "b.go"}`}, ok, nil, ""},
		{"a slice of a hunk", []diffctx.Part{{Path: "a.go", First: 1, Last: 2, FromLine: 1, ToLine: 40}}, conversation.ToolCall{Name: toolname.GetFileDiff, Arguments: `{"path": "a.go"}`}, ok, nil, ""},
		{"another unit's file", []diffctx.Part{{Path: "b.go", First: 1, Last: 3}}, conversation.ToolCall{Name: toolname.GetFileDiff, Arguments: `{"path": "a.go"}`}, ok, nil, ""},
		{"no unit", nil, conversation.ToolCall{Name: toolname.GetFileDiff, Arguments: `{"path": "a.go"}`}, ok, nil, ""},
		{"another tool", whole, conversation.ToolCall{Name: toolname.ReadFileHunk, Arguments: `{"path": "a.go"}`}, ok, nil, ""},
		{"an error", whole, conversation.ToolCall{Name: toolname.GetFileDiff, Arguments: `{"path": "a.go"}`}, tools.Result{Output: "diff --git", IsError: true}, nil, ""},
		{"a directory's listing", whole, conversation.ToolCall{Name: toolname.GetFileDiff, Arguments: `{"path": "."}`}, tools.Result{Output: "2 changed files"}, nil, ""},
		{"too large to hold", []diffctx.Part{{Path: "big.bin", First: 1, Last: 0}}, conversation.ToolCall{Name: toolname.GetFileDiff, Arguments: `{"path": "big.bin"}`}, ok, nil, ""},
		{"arguments not JSON", whole, conversation.ToolCall{Name: toolname.GetFileDiff, Arguments: `{"path": `}, ok, nil, ""},
		{"a path not in the diff", whole, conversation.ToolCall{Name: toolname.GetFileDiff, Arguments: `{"path": "c.go"}`}, ok, nil, ""},
	}
	for _, c := range cases {
		s := &Session{Diff: diff, unitParts: c.parts, contextWhole: c.whole}
		if got := s.shownWhole(c.call, c.res); got != c.want {
			t.Errorf("%s: shownWhole = %q, want %q", c.name, got, c.want)
		}
	}
}
