package tools

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reviewdev/review/tools/toolstest"

	"github.com/reviewdev/review/toolmem"
)

// storeWith opens a real tool memory in a temporary directory holding one
// output, and returns tools using it and the output's ref.
func storeWith(t *testing.T, output string) (*Set, string) {
	t.Helper()
	store := toolstest.Store(t)
	ref, err := store.Put("run-1", 1, "call_1", "search_in_project", `{"pattern": "x"}`, []byte(output))
	if err != nil {
		t.Fatal(err)
	}
	f := sharedFixture(t)
	return f.set(func(e *Env) { e.Store = store }), ref
}

func TestReadToolOutput(t *testing.T) {
	s, ref := storeWith(t, lines(500, "result %d"))
	tests := []struct {
		name, args string
		want, lack []string
	}{
		{
			name: "default page",
			args: `{"ref": %q}`,
			want: []string{
				fmt.Sprintf("output %s (search_in_project {\"pattern\": \"x\"}): lines 1-80 of 500\n1: result 1\n", ref),
				"\n80: result 80\n",
				fmt.Sprintf(`[420 more lines: call read_tool_output {"ref": %q, "start_line": 81, "line_count": 80}]`, ref),
			},
			lack: []string{"81: result 81"},
		},
		{
			name: "a page",
			args: `{"ref": %q, "start_line": 491, "line_count": 20, "grep": null}`,
			want: []string{"lines 491-500 of 500\n491: result 491\n", "500: result 500\n[end of output]\n"},
		},
		{
			name: "line_count capped",
			args: `{"ref": %q, "line_count": 100000}`,
			want: []string{"line_count 100000 lowered to the maximum, 400", "lines 1-400 of 500", `"start_line": 401, "line_count": 400`},
		},
		{
			name: "grep",
			args: `{"ref": %q, "grep": "^result 4[0-9]$"}`,
			want: []string{`10 lines match "^result 4[0-9]$"`, "40: result 40\n", "49: result 49\n"},
			lack: []string{"first", "more matching"},
		},
		{
			name: "grep with a cap",
			args: `{"ref": %q, "grep": "result", "line_count": 3, "start_line": 7}`,
			want: []string{"500 lines match", "first 3 shown", "start_line is ignored with grep", "3: result 3\n[497 more matching lines: narrow grep"},
		},
		{
			name: "ref as people type it",
			args: `{"ref": " \"%s\" "}`,
			want: []string{"lines 1-80 of 500"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ans := answer(t, s, "read_tool_output", fmt.Sprintf(tt.args, ref))
			out := mustOK(t, ans.Result)
			if ans.Ref != "" || ans.Content != out {
				t.Errorf("a page was stored again as %q, or carried as a preview", ans.Ref)
			}
			contains(t, out, tt.want...)
			lacks(t, out, tt.lack...)
		})
	}
}

func TestReadToolOutputErrors(t *testing.T) {
	s, ref := storeWith(t, "one\ntwo\n")
	tests := []struct {
		name, args string
		want       []string
	}{
		{"past the end", fmt.Sprintf(`{"ref": %q, "start_line": 9}`, ref), []string{"has 2 lines; ask for start_line <= 2"}},
		{"unknown ref", `{"ref": "aaaaaaaaaa"}`, []string{`no stored output with ref "aaaaaaaaaa"`}},
		{"malformed ref", `{"ref": "../../etc"}`, []string{`no stored output with ref "../../etc"`}},
		{"empty ref", `{"ref": ""}`, []string{"ref is empty"}},
		{"missing ref", `{}`, []string{`argument "ref" is missing`}},
		{"bad grep", fmt.Sprintf(`{"ref": %q, "grep": "a(("}`, ref), []string{"invalid regular expression"}},
		{"empty grep", fmt.Sprintf(`{"ref": %q, "grep": ""}`, ref), []string{"grep is empty"}},
		{"zero start", fmt.Sprintf(`{"ref": %q, "start_line": 0}`, ref), []string{`read_tool_output argument "start_line" must be at least 1 (or null for 1), got 0`}},
		{"zero count", fmt.Sprintf(`{"ref": %q, "line_count": 0}`, ref), []string{`read_tool_output argument "line_count" must be at least 1 (or null for 80), got 0`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ans := answer(t, s, "read_tool_output", tt.args)
			mustErr(t, ans.Result, tt.want...)
			if ans.Ref != "" {
				t.Error("an error of read_tool_output must not be stored as a new ref either")
			}
		})
	}
	noStore := sharedFixture(t).set()
	mustErr(t, call(t, noStore, "read_tool_output", `{"ref": "aaaaaaaaaa"}`), "read_tool_output is unavailable")
}

func TestReadToolOutputEmpty(t *testing.T) {
	s, ref := storeWith(t, "")
	out := mustOK(t, call(t, s, "read_tool_output", fmt.Sprintf(`{"ref": %q}`, ref)))
	contains(t, out, "is empty")
}

func TestReadToolOutputBounded(t *testing.T) {
	s, ref := storeWith(t, strings.Repeat(strings.Repeat("x", 3000)+"\n", 100))
	out := mustOK(t, call(t, s, "read_tool_output", fmt.Sprintf(`{"ref": %q, "line_count": 400}`, ref)))
	if len(out) > 20000 {
		t.Errorf("page is %d bytes", len(out))
	}
	contains(t, out, "more lines: call read_tool_output")
}

// TestAnswerPreviewWithinLimits holds every tool's preview to the limits
// the conversation sets, for outputs small and large, whatever their kind.
func TestAnswerPreviewWithinLimits(t *testing.T) {
	s, ref := storeWith(t, lines(5000, "path/to/file%d.go:12: match"))
	calls := map[string][]string{
		"list_project_files": {`{}`, `{"path_prefix": "py"}`},
		"search_in_project":  {`{"pattern": "."}`, `{"pattern": "line", "context_lines": 2}`, `{"pattern": "nomatchanywhere"}`},
		"read_file_hunk":     {`{"path": "long.txt", "start_line": 1, "end_line": 1001}`, `{"path": "nope.txt", "start_line": 1, "end_line": 2}`},
		"get_file_diff":      {`{"path": "."}`, `{"path": "main.go"}`},
		"get_dependencies":   {`{}`},
		"find_definition":    {`{"symbol": "Hello"}`, `{"symbol": "Hello", "path": "main.go", "line": 10}`, `{"symbol": "nosuchname"}`},
		"find_references":    {`{"symbol": "Hello"}`, `{"symbol": "line", "comments": true}`, `{"symbol": "nosuchname"}`},
		"read_tool_output":   {fmt.Sprintf(`{"ref": %q}`, ref), fmt.Sprintf(`{"ref": %q, "grep": "file1"}`, ref)},
	}
	for _, name := range s.Names() {
		if len(calls[name]) == 0 {
			t.Errorf("no calls of %s: add some", name)
		}
	}
	for _, lim := range []toolmem.Limits{{Chars: toolmem.MinPreviewChars, Lines: 10}, {Chars: 2000, Lines: 40}, {}} {
		max := lim.Chars
		if max == 0 {
			max = toolmem.DefaultPreviewChars
		}
		for name, list := range calls {
			for i, args := range list {
				a, err := s.Answer(context.Background(), Call{Run: "run-1", Step: 2, ID: fmt.Sprintf("c%d", i), Name: name, Args: args}, lim)
				if err != nil {
					t.Fatal(err)
				}
				if a.Ref == "" && name != "read_tool_output" {
					t.Errorf("%s %s: output not stored", name, args)
				}
				if n := utf8.RuneCountInString(a.Content); a.Ref != "" && n > max {
					t.Errorf("%s %s: preview of %d chars, over %d", name, args, n, max)
				}
			}
		}
	}
}
