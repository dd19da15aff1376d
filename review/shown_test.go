package review

import (
	"testing"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/tools"
)

// TestShownWhole withholds a get_file_diff result only when the unit
// under way shows every hunk of the file, whole, and the result is that
// file's diff.
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
		want  string // "" when the result is shown as usual
	}{
		{"whole in the unit", whole, conversation.ToolCall{Name: toolname.GetFileDiff, Arguments: `{"path": "a.go"}`}, ok, "a.go"},
		{"whole in two parts", []diffctx.Part{{Path: "a.go", First: 2, Last: 2}, {Path: "a.go", First: 1, Last: 1}}, conversation.ToolCall{Name: toolname.GetFileDiff, Arguments: `{"path": "a.go"}`}, ok, "a.go"},
		{"some of its hunks", whole, conversation.ToolCall{Name: toolname.GetFileDiff, Arguments: `{"path": "b.go"}`}, ok, ""},
		{"a slice of a hunk", []diffctx.Part{{Path: "a.go", First: 1, Last: 2, FromLine: 1, ToLine: 40}}, conversation.ToolCall{Name: toolname.GetFileDiff, Arguments: `{"path": "a.go"}`}, ok, ""},
		{"another unit's file", []diffctx.Part{{Path: "b.go", First: 1, Last: 3}}, conversation.ToolCall{Name: toolname.GetFileDiff, Arguments: `{"path": "a.go"}`}, ok, ""},
		{"no unit", nil, conversation.ToolCall{Name: toolname.GetFileDiff, Arguments: `{"path": "a.go"}`}, ok, ""},
		{"another tool", whole, conversation.ToolCall{Name: toolname.ReadFileHunk, Arguments: `{"path": "a.go"}`}, ok, ""},
		{"an error", whole, conversation.ToolCall{Name: toolname.GetFileDiff, Arguments: `{"path": "a.go"}`}, tools.Result{Output: "diff --git", IsError: true}, ""},
		{"a directory's listing", whole, conversation.ToolCall{Name: toolname.GetFileDiff, Arguments: `{"path": "."}`}, tools.Result{Output: "2 changed files"}, ""},
		{"too large to hold", []diffctx.Part{{Path: "big.bin", First: 1, Last: 0}}, conversation.ToolCall{Name: toolname.GetFileDiff, Arguments: `{"path": "big.bin"}`}, ok, ""},
		{"arguments not JSON", whole, conversation.ToolCall{Name: toolname.GetFileDiff, Arguments: `{"path": `}, ok, ""},
		{"a path not in the diff", whole, conversation.ToolCall{Name: toolname.GetFileDiff, Arguments: `{"path": "c.go"}`}, ok, ""},
	}
	for _, c := range cases {
		s := &Session{Diff: diff, unitParts: c.parts}
		path, shown := s.shownWhole(c.call, c.res)
		if shown != (c.want != "") || path != c.want && shown {
			t.Errorf("%s: shownWhole = %q, %v; want %q", c.name, path, shown, c.want)
		}
	}
}
