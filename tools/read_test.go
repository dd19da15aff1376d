package tools

import (
	"strings"
	"testing"
)

func TestReadFileHunk(t *testing.T) {
	f := sharedFixture(t)
	s := f.set()
	tests := []struct {
		name, args string
		want, lack []string
	}{
		{
			name: "numbered lines at head",
			args: `{"path": "main.go", "start_line": 9, "end_line": 11}`,
			want: []string{"\"main.go\" at head, lines 9-11 of 11:\n9: func main() {\n10: \tfmt.Println(util.Hello(), \"world\")\n11: }\n"},
			lack: []string{"uncommitted"},
		},
		{
			name: "at base",
			args: `{"path": "main.go", "start_line": 10, "end_line": 10, "revision": "base"}`,
			want: []string{"at base, lines 10-10 of 11:\n10: \tfmt.Println(util.Hello())\n"},
		},
		{
			name: "deleted file exists at base",
			args: `{"path": "docs/guide.md", "start_line": 1, "end_line": 5, "revision": "base"}`,
			want: []string{"1: guide\n"},
		},
		{
			name: "end past the end is clamped",
			args: `{"path": "noeol.txt", "start_line": 1, "end_line": 999999999}`,
			want: []string{"lines 1-2 of 2:\n1: first\n2: second\n"},
		},
		{
			name: "crlf",
			args: `{"path": "crlf.txt", "start_line": 1, "end_line": 2}`,
			want: []string{"1: one\n2: two\n"},
		},
		{
			name: "empty file",
			args: `{"path": "empty.txt", "start_line": 1, "end_line": 10}`,
			want: []string{"is empty (0 lines)"},
		},
		{
			name: "symlink inside the repository is followed",
			args: `{"path": "link_inside", "start_line": 4, "end_line": 4}`,
			want: []string{`"link_inside" (symlink to "util/util.go") at head`, "4: func Hello() string {"},
		},
		{
			name: "symlinked directory",
			args: `{"path": "link_dir/util.go", "start_line": 1, "end_line": 1}`,
			want: []string{`symlink to "util/util.go"`, "1: package util"},
		},
		{
			name: "relative symlink in a subdirectory",
			args: `{"path": "nested/ok_link", "start_line": 1, "end_line": 1}`,
			want: []string{"1: package util"},
		},
		{
			name: "integers as strings and floats",
			args: `{"path": "long.txt", "start_line": "5", "end_line": 6.0, "revision": null}`,
			want: []string{"5: line 5\n6: line 6\n"},
		},
		{
			name: "unicode and spaces in names",
			args: `{"path": "unicodé.txt", "start_line": 1, "end_line": 1}`,
			want: []string{"1: héllo needle"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustOK(t, call(t, s, "read_file_hunk", tt.args))
			contains(t, out, tt.want...)
			lacks(t, out, tt.lack...)
		})
	}
}

// TestReadFileHunkWhole reads every line asked for: the whole range is
// stored, and the conversation carries a preview of it.
func TestReadFileHunkWhole(t *testing.T) {
	f := sharedFixture(t)
	s := f.set()
	out := mustOK(t, call(t, s, "read_file_hunk", `{"path": "long.txt", "start_line": 1, "end_line": 5000}`))
	contains(t, out, "lines 1-1001 of 1001", "\n400: line 400\n", "\n1001: line 1001\n")
	lacks(t, out, "per call at most")
	if n := strings.Count(out, "\n"); n != 1002 {
		t.Errorf("want 1002 lines (header, 1001), got %d", n)
	}
	out = mustOK(t, call(t, s, "read_file_hunk", `{"path": "long.txt", "start_line": 801, "end_line": 1300, "revision": "base"}`))
	contains(t, out, "lines 801-1000 of 1000", "\n1000: line 1000\n")
}

func TestReadFileHunkErrors(t *testing.T) {
	f := sharedFixture(t)
	s := f.set()
	tests := []struct {
		name, args string
		want       []string
	}{
		{"past the end", `{"path": "main.go", "start_line": 120, "end_line": 130}`, []string{`"main.go" at head has 11 lines; ask for start_line <= 11`}},
		{"absurd start", `{"path": "main.go", "start_line": 9007199254740992, "end_line": 9007199254740992}`, []string{"has 11 lines"}},
		{"beyond int53", `{"path": "main.go", "start_line": 1e300, "end_line": 1}`, []string{`"start_line" is out of range`}},
		{"zero start", `{"path": "main.go", "start_line": 0, "end_line": 3}`, []string{`read_file_hunk argument "start_line" must be at least 1, got 0`}},
		{"negative", `{"path": "main.go", "start_line": -5, "end_line": 3}`, []string{`read_file_hunk argument "start_line" must be at least 1, got -5`}},
		{"end before start", `{"path": "main.go", "start_line": 5, "end_line": 3}`, []string{"end_line 3 is before start_line 5"}},
		{"fraction", `{"path": "main.go", "start_line": 1.5, "end_line": 3}`, []string{`"start_line" must be a whole number`}},
		{"not a number", `{"path": "main.go", "start_line": "one", "end_line": 3}`, []string{`"start_line" must be an integer`}},
		{"missing", `{"path": "nope/missing.go", "start_line": 1, "end_line": 3}`, []string{`no tracked file "nope/missing.go" at head`}},
		{"missing with a namesake", `{"path": "lib/util.go", "start_line": 1, "end_line": 3}`, []string{"files with that name: util/util.go"}},
		{"new file at base", `{"path": "util/new.go", "start_line": 1, "end_line": 3, "revision": "base"}`, []string{"at base", "new in this change"}},
		{"bad revision", `{"path": "main.go", "start_line": 1, "end_line": 3, "revision": "HEAD~1"}`, []string{`"revision" must be one of "head", "base"`}},
		{"directory", `{"path": "util", "start_line": 1, "end_line": 3}`, []string{`"util" is a directory`, `list_project_files {"path_prefix": "util"}`}},
		{"binary", `{"path": "bin/data.bin", "start_line": 1, "end_line": 3}`, []string{"binary file (14 bytes)"}},
		{"submodule", `{"path": "sub", "start_line": 1, "end_line": 3}`, []string{`"sub" is a submodule`}},
		{"through a file", `{"path": "main.go/x", "start_line": 1, "end_line": 3}`, []string{`"main.go" is not a directory`}},
		{"symlink loop", `{"path": "loop_a", "start_line": 1, "end_line": 3}`, []string{"too many levels of symbolic links"}},
		{"missing path", `{"start_line": 1, "end_line": 3}`, []string{`read_file_hunk argument "path" is missing; required: path, start_line, end_line`}},
		{"null path", `{"path": null, "start_line": 1, "end_line": 3}`, []string{`argument "path" is missing`}},
		{"path not a string", `{"path": 7, "start_line": 1, "end_line": 3}`, []string{`"path" must be a string`}},
		{"empty path", `{"path": "", "start_line": 1, "end_line": 3}`, []string{"path is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustErr(t, call(t, s, "read_file_hunk", tt.args), tt.want...)
		})
	}
}

func TestReadFileHunkNoBase(t *testing.T) {
	f := sharedFixture(t)
	s := New(Env{Root: f.root, Head: f.head})
	mustErr(t, call(t, s, "read_file_hunk", `{"path": "main.go", "start_line": 1, "end_line": 3, "revision": "base"}`), "no base revision")
	mustOK(t, call(t, s, "read_file_hunk", `{"path": "main.go", "start_line": 1, "end_line": 3}`))
}

func TestReadFileHunkLongLine(t *testing.T) {
	r := newRepo(t, t.TempDir())
	r.write(map[string]string{"min.js": strings.Repeat("é", 3000) + "\nnext\n"})
	head := r.commit("min")
	s := New(Env{Root: r.root, Head: head})
	out := mustOK(t, call(t, s, "read_file_hunk", `{"path": "min.js", "start_line": 1, "end_line": 2}`))
	contains(t, out, "… [line cut: 6000 bytes]\n2: next\n")
	if len(out) > 2200 {
		t.Errorf("long line not cut: %d bytes", len(out))
	}
}
