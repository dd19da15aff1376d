package tools

import (
	"strings"
	"testing"

	"github.com/reviewdev/review/internal/text"
)

func TestGetFileDiff(t *testing.T) {
	f := sharedFixture(t)
	s := f.set()
	tests := []struct {
		name, path string
		want, lack []string
	}{
		{
			name: "modified",
			path: "main.go",
			want: []string{"diff --git a/main.go b/main.go\n", "--- a/main.go\n+++ b/main.go\n", "-\tfmt.Println(util.Hello())\n+\tfmt.Println(util.Hello(), \"world\")\n"},
			lack: []string{"uncommitted"},
		},
		{
			name: "renamed, by new path",
			path: "util/renamed.go",
			want: []string{"rename from util/old.go\nrename to util/renamed.go"},
		},
		{
			name: "renamed, by old path",
			path: "util/old.go",
			want: []string{"rename from util/old.go\nrename to util/renamed.go"},
		},
		{
			name: "added",
			path: "util/new.go",
			want: []string{"new file mode 100644", "+func New() int { return 1 }"},
		},
		{
			name: "deleted",
			path: "docs/guide.md",
			want: []string{"deleted file mode 100644", "-guide"},
		},
		{
			name: "glob characters are literal",
			path: "a*.txt",
			want: []string{"b/a*.txt", "+star"},
			lack: []string{"ab.txt"},
		},
		{
			name: "unicode path is not quoted",
			path: "unicodé.txt",
			want: []string{"diff --git a/unicodé.txt b/unicodé.txt"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustOK(t, call(t, s, "get_file_diff", `{"path": `+text.QuoteJSON(tt.path)+`}`))
			contains(t, out, tt.want...)
			lacks(t, out, tt.lack...)
		})
	}
}

func TestGetFileDiffErrors(t *testing.T) {
	f := sharedFixture(t)
	s := f.set()
	mustErr(t, call(t, s, "get_file_diff", `{"path": "README.md"}`), `"README.md" did not change between base and head`, "changed files: ", "main.go")
	mustErr(t, call(t, s, "get_file_diff", `{}`), `argument "path" is missing`)
	mustErr(t, call(t, s, "get_file_diff", `{"path": ""}`), `path is empty`, `"." to list every changed file`)
	noBase := New(Env{Root: f.root, Head: f.head})
	mustErr(t, call(t, noBase, "get_file_diff", `{"path": "main.go"}`), "no base revision")
	hidden := f.set(func(e *Env) { e.Ignore = []string{"main.go"} })
	mustErr(t, call(t, hidden, "get_file_diff", `{"path": "main.go"}`), "excluded from this review")
	res := call(t, hidden, "get_file_diff", `{"path": "README.md"}`)
	mustErr(t, res, "changed files")
	if strings.Contains(res.Output, " main.go") {
		t.Errorf("an ignored file is named: %s", res.Output)
	}
}

// TestGetFileDiffListsOnce holds the units of a run, which share a set,
// to one listing of the changed files between the same base and head:
// each call after the first answers from it (here, from a listing made
// to differ, which only the kept one can explain).
func TestGetFileDiffListsOnce(t *testing.T) {
	f := sharedFixture(t)
	s := f.set()
	mustOK(t, call(t, s, "get_file_diff", `{"path": "main.go"}`))
	if n := len(s.state.changed); n != 1 {
		t.Fatalf("%d listings kept after a call, want 1", n)
	}
	for k := range s.state.changed {
		s.state.changed[k].cs = []change{{status: "M", old: "main.go", new: "main.go"}}
	}
	mustErr(t, call(t, s, "get_file_diff", `{"path": "util/new.go"}`), `"util/new.go" did not change`)
	mustOK(t, call(t, f.set(), "get_file_diff", `{"path": "util/new.go"}`))
}

// TestGetFileDiffList lists the changed files under a directory, which is
// how the overview of a large change reaches the files it only counts.
func TestGetFileDiffList(t *testing.T) {
	f := sharedFixture(t)
	out := mustOK(t, call(t, f.set(), "get_file_diff", `{"path": "util"}`))
	contains(t, out, "2 changed files under util; a file's diff: get_file_diff {\"path\": \"<file>\"}\n",
		"added    +3 -0         util/new.go\n",
		"renamed  +0 -0         util/renamed.go (from util/old.go, 100%)\n")
	lacks(t, out, "main.go", "diff --git")
	all := mustOK(t, call(t, f.set(), "get_file_diff", `{"path": "."}`))
	contains(t, all, "changed files in all;", "util/new.go", "main.go")
	// Ignored files are not listed.
	hidden := mustOK(t, call(t, f.set(func(e *Env) { e.Ignore = []string{"main.go"} }), "get_file_diff", `{"path": "."}`))
	lacks(t, hidden, " main.go")
	// A directory with no changes is an error naming what changed.
	mustErr(t, call(t, f.set(), "get_file_diff", `{"path": "nochange"}`), `"nochange" did not change`)
}

func TestGetFileDiffLarge(t *testing.T) {
	r := newRepo(t, t.TempDir())
	r.write(map[string]string{"big.txt": lines(5000, "old %d")})
	base := r.commit("base")
	r.write(map[string]string{"big.txt": lines(5000, "new %d")})
	head := r.commit("head")
	s := New(Env{Root: r.root, Head: head, Base: base, MaxBytes: 4096})
	out := mustOK(t, call(t, s, "get_file_diff", `{"path": "big.txt"}`))
	if len(out) > 4096 {
		t.Errorf("output is %d bytes, over MaxBytes", len(out))
	}
	contains(t, out, "diff --git a/big.txt b/big.txt", "read the file's changed regions with read_file_hunk")
}

// TestGetFileDiffHuge holds one file's diff to diffMaxBytes whatever the
// tools' output cap: a huge file is read in part, the rest with
// read_file_hunk.
func TestGetFileDiffHuge(t *testing.T) {
	r := newRepo(t, t.TempDir())
	base := r.commit("base")
	r.write(map[string]string{"dump.txt": strings.Repeat(strings.Repeat("x", 99)+"\n", 180_000)}) // 18 MB
	head := r.commit("head")
	out := mustOK(t, call(t, New(Env{Root: r.root, Head: head, Base: base}), "get_file_diff", `{"path": "dump.txt"}`))
	if len(out) > diffMaxBytes {
		t.Errorf("output is %d bytes, over %d", len(out), diffMaxBytes)
	}
	contains(t, out, "diff --git a/dump.txt b/dump.txt", "(16 MiB); read the file's changed regions with read_file_hunk")
}

func TestGetFileDiffCopy(t *testing.T) {
	r := newRepo(t, t.TempDir())
	body := lines(40, "\tstep(%d)")
	r.write(map[string]string{"a.go": "package a\n\nfunc A() {\n" + body + "}\n"})
	base := r.commit("base")
	r.write(map[string]string{
		"a.go": "package a\n\nfunc A() {\n" + body + "\tdone()\n}\n",
		"b.go": "package a\n\nfunc A() {\n" + body + "}\n",
	})
	head := r.commit("copy")
	// As git diff does by default, and as the diff context does, a new
	// file is added unless copies are asked for.
	out := mustOK(t, call(t, New(Env{Root: r.root, Head: head, Base: base}), "get_file_diff", `{"path": "b.go"}`))
	contains(t, out, "new file mode 100644")
	lacks(t, out, "copy from")
	s := New(Env{Root: r.root, Head: head, Base: base, FindCopies: true})
	out = mustOK(t, call(t, s, "get_file_diff", `{"path": "b.go"}`))
	contains(t, out, "copy from a.go\ncopy to b.go")
	// The source of a copy is its own change.
	out = mustOK(t, call(t, s, "get_file_diff", `{"path": "a.go"}`))
	contains(t, out, "diff --git a/a.go b/a.go", "+\tdone()")
	lacks(t, out, "copy to")
}

func TestGetFileDiffSubmodule(t *testing.T) {
	f := sharedFixture(t)
	out := mustOK(t, call(t, f.set(), "get_file_diff", `{"path": "sub"}`))
	contains(t, out, "+Subproject commit "+f.base)
}
