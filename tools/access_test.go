package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reviewdev/review/internal/text"
)

// unpacked returns a set over the fixture that never reads the work tree.
func unpacked(f fixture) *Set {
	s := f.set()
	s.state.disk, s.state.diskKnown = false, true
	return s
}

// TestWorkTreeAndGitAgree runs the same calls on a set that reads the
// checked-out work tree and on one that unpacks every file: the outputs
// must be the same, and never show the fixture's uncommitted edit.
func TestWorkTreeAndGitAgree(t *testing.T) {
	f := sharedFixture(t)
	disk := f.set()
	if !disk.worktree(context.Background()) {
		t.Fatal("the fixture's head is checked out, yet the work tree is not read")
	}
	git := unpacked(f)
	for _, c := range [][2]string{
		{"search_in_project", `{"pattern": "needle|package", "max_results": 500, "context_lines": 1}`},
		{"search_in_project", `{"pattern": "(?i)HELLO", "path_glob": "*.go"}`},
		{"read_file_hunk", `{"path": "main.go", "start_line": 1, "end_line": 20}`},
		{"read_file_hunk", `{"path": "link_dir/util.go", "start_line": 1, "end_line": 20}`},
		{"read_file_hunk", `{"path": "main.go", "start_line": 1, "end_line": 20, "revision": "base"}`},
		{"get_dependencies", `{"path": "main.go"}`},
		{"get_dependencies", `{"path": "web/src/lib/api.ts"}`},
		{"get_dependencies", `{"path": "web/package.json"}`},
	} {
		a, b := call(t, disk, c[0], c[1]), call(t, git, c[0], c[1])
		if a != b {
			t.Errorf("%s %s: the work tree and git disagree:\n%s\n---\n%s", c[0], c[1], a.Output, b.Output)
		}
		lacks(t, a.Output, "uncommitted")
	}
}

// TestWorkTreeGate reads the work tree only when it holds the reviewed
// head.
func TestWorkTreeGate(t *testing.T) {
	f := sharedFixture(t)
	ctx := context.Background()
	if s := New(Env{Root: f.root, Head: f.base}); s.worktree(ctx) {
		t.Error("the work tree is read for a head that is not checked out")
	}
	if s := New(Env{Root: filepath.Join(f.root, "util"), Head: f.head}); s.worktree(ctx) {
		t.Error("the work tree is read below its top level")
	}
	s := New(Env{Root: f.root, Head: f.base})
	out := mustOK(t, call(t, s, "read_file_hunk", `{"path": "main.go", "start_line": 10, "end_line": 10}`))
	contains(t, out, "10: \tfmt.Println(util.Hello())\n")
}

// TestWorkTreeNotTheBlob changes the work tree under a checked-out head in
// every way that could make a disk read differ from the commit: an edit
// of the same size, a smudge filter, a file swapped for a symlink out of
// the repository, a directory swapped for one, a FIFO. The tools show the
// committed bytes, never block, and never show what lies outside.
func TestWorkTreeNotTheBlob(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "repo")
	os.Mkdir(root, 0o755)
	os.Mkdir(filepath.Join(dir, "out"), 0o755)
	os.WriteFile(filepath.Join(dir, "out", "f.txt"), []byte("leaked secret\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "swap.txt"), []byte("leaked other\n"), 0o644)
	r := newRepo(t, root)
	r.git("config", "filter.up.smudge", "tr a-z A-Z")
	r.git("config", "filter.up.clean", "tr A-Z a-z")
	r.write(map[string]string{
		".gitattributes": "*.up filter=up\n",
		"same.txt":       "committed same\n",
		"f.up":           "lower case words\n",
		"d/f.txt":        "committed dir file\n",
		"swap.txt":       "committed swap\n",
		"fifo.txt":       "committed fifo\n",
	})
	head := r.commit("head")
	// Check f.up out again, through its smudge filter.
	os.Remove(filepath.Join(root, "f.up"))
	r.git("checkout", "--", "f.up")
	if b, _ := os.ReadFile(filepath.Join(root, "f.up")); string(b) != "LOWER CASE WORDS\n" {
		t.Fatalf("the smudge filter did not run: %q", b)
	}
	os.WriteFile(filepath.Join(root, "same.txt"), []byte("modified same\n"), 0o644)
	os.RemoveAll(filepath.Join(root, "d"))
	if err := os.Symlink(filepath.Join(dir, "out"), filepath.Join(root, "d")); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(root, "swap.txt"))
	os.Symlink(filepath.Join(dir, "swap.txt"), filepath.Join(root, "swap.txt"))
	os.Remove(filepath.Join(root, "fifo.txt"))
	mkfifo(t, filepath.Join(root, "fifo.txt"))

	s := New(Env{Root: root, Head: head})
	defer s.Close()
	if !s.worktree(context.Background()) {
		t.Fatal("head is checked out, yet the work tree is not read")
	}
	for path, want := range map[string]string{
		"same.txt": "1: committed same\n",
		"f.up":     "1: lower case words\n",
		"d/f.txt":  "1: committed dir file\n",
		"swap.txt": "1: committed swap\n",
		"fifo.txt": "1: committed fifo\n",
	} {
		out := mustOK(t, call(t, s, "read_file_hunk", `{"path": "`+path+`", "start_line": 1, "end_line": 5}`))
		contains(t, out, want)
		lacks(t, out, "leaked", "modified", "LOWER")
	}
	out := mustOK(t, call(t, s, "search_in_project", `{"pattern": "committed|lower|leaked|modified|LOWER"}`))
	contains(t, out, "5 matching lines in 5 files", "f.up:1: lower case words", "d/f.txt:1: committed dir file")
	_, matches, _ := strings.Cut(out, "\n") // after the header, which repeats the pattern
	lacks(t, matches, "leaked", "modified", "LOWER")
}

// TestLazyLookup resolves single paths without listing the tree, with the
// same answers and refusals as a set that has the listing.
func TestLazyLookup(t *testing.T) {
	f := sharedFixture(t)
	listed := f.set()
	mustOK(t, call(t, listed, "list_project_files", `{}`))
	mustOK(t, call(t, listed, "read_file_hunk", `{"path": "main.go", "start_line": 1, "end_line": 1, "revision": "base"}`))
	for _, p := range []string{
		"main.go", "link_inside", "link_dir/util.go", "nested/ok_link", "unicodé.txt", "space name.txt", "a*.txt",
		"etc_link/passwd", "etc_link", "escape_link", "nested/up_link", "git_link", "loop_a", "sub", "sub/x",
		"util", "link_dir", "util/missing.go", "missing/util.go", "main.go/x", "link_inside/x", "bin/data.bin", "big",
		"docs/guide.md",
	} {
		for _, rev := range []string{"head", "base"} {
			args := `{"path": ` + text.QuoteJSON(p) + `, "start_line": 1, "end_line": 3, "revision": "` + rev + `"}`
			lazy := f.set()
			a, b := call(t, lazy, "read_file_hunk", args), call(t, listed, "read_file_hunk", args)
			if a != b {
				t.Errorf("%s at %s: a lazy tree answers\n%s\nand a listed one\n%s", p, rev, a.Output, b.Output)
			}
			lacks(t, a.Output, "outside secret", "root:x:0", "[core]")
			if !a.IsError && len(lazy.state.trees) > 0 {
				t.Errorf("reading %s at %s listed the whole tree", p, rev)
			}
		}
	}
}

// TestCatFile reads objects through the run's process, survives a
// cancelled request and a Close, and refuses what is not a blob.
func TestCatFile(t *testing.T) {
	f := sharedFixture(t)
	s := f.set()
	defer s.Close()
	ctx := context.Background()
	tr, err := s.tree(ctx, revHead)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := tr.file("util/util.go")
	read := func() {
		t.Helper()
		data, err := s.blob(ctx, e.oid)
		if err != nil || !strings.Contains(string(data), "func Hello()") {
			t.Fatalf("blob: %q, %v", data, err)
		}
	}
	read()
	cmd := s.state.cat.cmd
	read()
	if s.state.cat.cmd != cmd {
		t.Error("a second read started another git cat-file")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.blob(cancelled, e.oid); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled read: %v", err)
	}
	read()
	s.Close()
	read()
	if _, err := s.blob(ctx, f.head); err == nil || !strings.Contains(err.Error(), "is a commit") {
		t.Errorf("reading a commit as a file: %v", err)
	}
	if _, err := s.blob(ctx, strings.Repeat("0", 40)); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("reading a missing object: %v", err)
	}
	if _, err := s.blob(ctx, "HEAD\nHEAD"); err == nil {
		t.Error("an object name with a newline was sent")
	}
	read()
}

// TestSearchSizesFromWorkTree: a search from the work tree lists the tree
// without sizes and takes them from the files there, yet skips exactly the
// files git's sizes would skip and shows the committed bytes: a large file,
// a large one whose copy was cut short, a small one whose copy grew large,
// and one deleted from the work tree.
func TestSearchSizesFromWorkTree(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	os.Mkdir(root, 0o755)
	r := newRepo(t, root)
	big := "needle big\n" + strings.Repeat("x", searchMaxFile) + "\n"
	r.write(map[string]string{
		"big.txt":     big,
		"shrunk.txt":  "needle shrunk\n" + big,
		"grown.txt":   "needle grown\n",
		"deleted.txt": "needle deleted\n",
		"plain.txt":   "needle plain\n",
	})
	head := r.commit("head")
	os.WriteFile(filepath.Join(root, "shrunk.txt"), []byte("needle small copy\n"), 0o644)
	os.WriteFile(filepath.Join(root, "grown.txt"), []byte("needle grown copy\n"+big), 0o644)
	os.Remove(filepath.Join(root, "deleted.txt"))

	disk := New(Env{Root: root, Head: head})
	defer disk.Close()
	if !disk.worktree(context.Background()) {
		t.Fatal("head is checked out, yet the work tree is not read")
	}
	git := New(Env{Root: root, Head: head})
	defer git.Close()
	git.state.disk, git.state.diskKnown = false, true
	args := `{"pattern": "needle"}`
	a, b := mustOK(t, call(t, disk, "search_in_project", args)), mustOK(t, call(t, git, "search_in_project", args))
	if a != b {
		t.Errorf("the work tree and git disagree:\n%s\n---\n%s", a, b)
	}
	contains(t, a, "grown.txt:1: needle grown\n", "deleted.txt:1: needle deleted\n", "plain.txt:1: needle plain\n", "2 files over")
	lacks(t, a, "needle big", "shrunk", "copy")
	if _, ok := disk.state.trees[head]; ok {
		t.Error("the search listed the tree with sizes")
	}
}

// TestEnvResolvedCheckout: a caller that resolved the revisions and knows
// what the work tree holds spares the tools asking git; the answers are
// those of a set that asks.
func TestEnvResolvedCheckout(t *testing.T) {
	f := sharedFixture(t)
	ctx := context.Background()
	known := New(Env{Root: f.root, Head: f.head, Base: f.base, Resolved: true, Checkout: f.head})
	if !known.worktree(ctx) {
		t.Error("Checkout is the head, yet the work tree is not read")
	}
	if s := New(Env{Root: f.root, Head: f.head, Resolved: true, Checkout: f.base}); s.worktree(ctx) {
		t.Error("the work tree is read though Checkout is another commit")
	}
	asks := New(Env{Root: f.root, Head: f.head, Base: f.base})
	for _, c := range [][2]string{
		{"search_in_project", `{"pattern": "needle|package"}`},
		{"read_file_hunk", `{"path": "main.go", "start_line": 1, "end_line": 20, "revision": "base"}`},
		{"get_file_diff", `{"path": "main.go"}`},
	} {
		if a, b := call(t, known, c[0], c[1]), call(t, asks, c[0], c[1]); a != b {
			t.Errorf("%s %s: %q, a set that asks git says %q", c[0], c[1], a.Output, b.Output)
		}
	}
}

// TestWarm: a set warmed in the background answers as one that is not,
// whether its first calls come before the listing is read or after.
func TestWarm(t *testing.T) {
	f := sharedFixture(t)
	cold := New(Env{Root: f.root, Head: f.head, Base: f.base})
	defer cold.Close()
	for _, wait := range []bool{false, true} {
		warm := New(Env{Root: f.root, Head: f.head, Base: f.base, Resolved: true, Checkout: f.head})
		warm.Warm()
		warm.Warm() // once is enough; again does nothing
		if wait {
			warm.warmed(context.Background())
		}
		for _, c := range [][2]string{
			{"search_in_project", `{"pattern": "needle|package"}`},
			{"list_project_files", `{}`},
			{"read_file_hunk", `{"path": "main.go", "start_line": 1, "end_line": 5}`},
		} {
			if a, b := call(t, warm, c[0], c[1]), call(t, cold, c[0], c[1]); a != b {
				t.Errorf("wait %v: %s: %q, unwarmed %q", wait, c[0], a.Output, b.Output)
			}
		}
		warm.Close()
	}
}
