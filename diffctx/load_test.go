package diffctx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/reviewdev/review/internal/git"
	"github.com/reviewdev/review/internal/gittest"
)

// gitCase builds a repository whose branch feature, checked out, holds one
// kind of change against main.
type gitCase struct {
	name   string
	golden bool // compare with testdata/git/<name>.json (and keep the .diff)
	setup  func(r *repo)
}

// withCopies are the cases loaded with Options.FindCopies.
var withCopies = map[string]bool{"copy": true, "binary_moves": true, "exact_moves_modes": true}

var gitCases = []gitCase{
	{"modify", true, func(r *repo) {
		r.write("calc.go", numbered("package calc\n\nfunc Add(a, b int) int {\n", 30))
		r.commit("base")
		r.branch()
		r.write("calc.go", strings.Replace(strings.Replace(numbered("package calc\n\nfunc Add(a, b int) int {\n", 30),
			"line 5\n", "line five\n", 1), "line 25\n", "line 25\nline 25b\n", 1))
		r.commit("change")
	}},
	{"rename_exact", true, func(r *repo) {
		r.write("old.go", numbered("", 10))
		r.commit("base")
		r.branch()
		r.git("mv", "old.go", "new.go")
		r.commit("rename")
	}},
	{"rename_edit", true, func(r *repo) {
		r.write("dir/old name.txt", numbered("", 20))
		r.commit("base")
		r.branch()
		r.remove("dir/old name.txt")
		r.write("other/new name.txt", strings.Replace(numbered("", 20), "line 10\n", "line ten\n", 1))
		r.commit("rename")
	}},
	{"copy", true, func(r *repo) {
		r.write("src.go", numbered("", 20))
		r.commit("base")
		r.branch()
		r.write("src.go", numbered("", 20)+"extra\n")
		r.write("copy.go", numbered("", 20))
		r.commit("copy")
	}},
	// A new file written next to a like file the change also edits is
	// added, as git diff says, not a copy with deletions it never had.
	{"new_beside_similar", true, func(r *repo) {
		r.write("handler.go", numbered("package api\n\n", 30))
		r.commit("base")
		r.branch()
		r.write("handler.go", numbered("package api\n\n", 30)+"// more\n")
		r.write("handler_v2.go", strings.Replace(numbered("package api\n\n", 30), "line 7\n", "line seven\n", 1))
		r.commit("v2")
	}},
	// Git prints exact moves without content; binary they stay.
	{"binary_moves", false, func(r *repo) {
		r.write("logo.png", "\x89PNG\r\n\x1a\n\x00\x00\x00logo")
		r.write("data.bin", "\x00\x01\x02data")
		r.write("text.txt", "just text\n")
		r.commit("base")
		r.branch()
		r.write("img/keep", "")
		r.git("mv", "logo.png", "img/logo.png")
		r.git("mv", "text.txt", "moved.txt")
		r.write("data.bin", "\x00\x01\x02data changed")
		r.write("data-copy.bin", "\x00\x01\x02data")
		r.commit("moves")
	}},
	// A change of mode only prints no content either: git's numstat still
	// counts a binary file as binary.
	{"binary_mode_only", true, func(r *repo) {
		r.write("tool.bin", "\x7fELF\x00\x01\x02")
		r.write("run.sh", "#!/bin/sh\n")
		r.commit("base")
		r.branch()
		r.chmod("tool.bin", 0o755)
		r.chmod("run.sh", 0o755)
		r.commit("chmod")
	}},
	// An exact move has no index line: its mode, and with it what it is
	// (submodule, symlink, executable), comes from git's raw output.
	{"exact_moves_modes", true, func(r *repo) {
		sub := newRepo(r.t)
		sub.write("lib.go", "package lib\n")
		sub.commit("lib")
		r.write("run.sh", "#!/bin/sh\n")
		r.chmod("run.sh", 0o755)
		r.write("target.txt", "target\n")
		r.symlink("target.txt", "link")
		r.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.Dir, "third/lib")
		// The temporary URL would change the golden file on every run.
		r.git("config", "-f", ".gitmodules", "submodule.third/lib.url", "../lib")
		r.commit("base")
		r.branch()
		r.git("mv", "third/lib", "third/lib2")
		r.git("mv", "run.sh", "run2.sh")
		r.git("mv", "link", "link2")
		r.commit("moves")
	}},
	{"mode_only", true, func(r *repo) {
		r.write("run.sh", "#!/bin/sh\necho hi\n")
		r.commit("base")
		r.branch()
		r.git("update-index", "--chmod=+x", "run.sh")
		r.git("commit", "-q", "-m", "chmod")
	}},
	{"binary", true, func(r *repo) {
		r.write("logo.png", "\x89PNG\r\n\x1a\n\x00\x00\x00old")
		r.commit("base")
		r.branch()
		r.write("logo.png", "\x89PNG\r\n\x1a\n\x00\x00\x00new")
		r.write("data.bin", "\x00\x01\x02")
		r.commit("binary")
	}},
	{"symlink", true, func(r *repo) {
		r.write("target.txt", "target\n")
		r.symlink("target.txt", "was-link")
		r.commit("base")
		r.branch()
		r.symlink("./target.txt", "link")
		r.remove("was-link")
		r.write("was-link", "now a file\n")
		r.commit("links")
	}},
	{"submodule", true, func(r *repo) {
		sub := newRepo(r.t)
		sub.write("lib.go", "package lib\n")
		sub.commit("lib")
		r.write("README.md", "main\n")
		r.commit("base")
		r.branch()
		r.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.Dir, "third/lib")
		// The temporary URL would change the golden file on every run.
		r.git("config", "-f", ".gitmodules", "submodule.third/lib.url", "../lib")
		r.commit("submodule")
	}},
	{"unicode_space", true, func(r *repo) {
		r.write("dír/naïve file.go", "package x\n")
		r.write("with space.txt", "a\nb\n")
		r.commit("base")
		r.branch()
		r.write("dír/naïve file.go", "package x\n\nvar ü = 1\n")
		r.write("日本語.md", "こんにちは\n")
		r.write("with space.txt", "a\nB\n")
		r.commit("names")
	}},
	{"quoted", true, func(r *repo) {
		r.commit("base")
		r.branch()
		for _, name := range []string{`quo"te.txt`, "tab\there.txt", `back\slash.txt`, "trailing ", "new\nline.txt", "é\"mix.txt"} {
			r.write(name, "x\n")
		}
		r.write("empty spaced", "")
		r.commit("names")
	}},
	// Names that are not UTF-8: git passes their bytes through, and JSON
	// shows them quoted (see text.JSONPath).
	{"not_utf8", true, func(r *repo) {
		r.write("old\xff.txt", numbered("", 10))
		r.write("keep.txt", "x\n")
		r.commit("base")
		r.branch()
		r.write("caf\xe9.txt", "hello\n")
		r.git("mv", "old\xff.txt", "new\xfe.txt")
		r.write("dir\xff/x.go", "package x\n")
		r.commit("names")
	}},
	{"crlf", true, func(r *repo) {
		r.write("win.txt", "one\r\ntwo\r\nthree\r\n")
		r.write("mixed.txt", "lf\n")
		r.commit("base")
		r.branch()
		r.write("win.txt", "one\r\nTWO\r\nthree\r\n")
		r.write("mixed.txt", "lf\r\n")
		r.commit("crlf")
	}},
	{"no_newline", true, func(r *repo) {
		r.write("add-nl.txt", "a\nb")
		r.write("drop-nl.txt", "a\nb\n")
		r.write("keep-none.txt", "a\nb")
		r.commit("base")
		r.branch()
		r.write("add-nl.txt", "a\nb\n")
		r.write("drop-nl.txt", "a\nb")
		r.write("keep-none.txt", "A\nb")
		r.write("new-none.txt", "only")
		r.commit("newlines")
	}},
	{"dashes", true, func(r *repo) {
		r.write("query.sql", "select 1;\n-- comment\n++i;\nselect 2;\n")
		r.write("a.txt", "keep\n")
		r.commit("base")
		r.branch()
		// Deleting "-- comment" and adding "++ x" prints "--- comment" and
		// "+++ x", which look like file headers; content lines look like
		// hunk and file headers too.
		r.write("query.sql", "select 1;\n++ x\n--i;\nselect 2;\n")
		r.write("a.txt", "keep\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\ndiff --git a/x b/x\n\\ No newline at end of file\n")
		r.commit("dashes")
	}},
	{"lockfile", true, func(r *repo) {
		r.write("go.sum", "a v1 h1:x\n")
		r.write("web/package-lock.json", "{\n  \"v\": 1\n}\n")
		r.commit("base")
		r.branch()
		r.write("go.sum", "a v1 h1:x\nb v2 h1:y\n")
		r.write("web/package-lock.json", "{\n  \"v\": 2\n}\n")
		r.commit("deps")
	}},
	{"deleted", true, func(r *repo) {
		r.write("gone.go", numbered("package gone\n", 30))
		r.write("keep.go", "package keep\n")
		r.commit("base")
		r.branch()
		r.remove("gone.go")
		r.commit("delete")
	}},
	{"added_empty", true, func(r *repo) {
		r.commit("base")
		r.branch()
		r.write("empty.txt", "")
		r.write("pkg/__init__.py", "")
		r.commit("empty")
	}},
	{"tags", true, func(r *repo) {
		r.write("README.md", "# x\n")
		r.commit("base")
		r.branch()
		r.write(".github/workflows/ci.yml", "on: push\n")
		r.write("Dockerfile", "FROM scratch\n")
		r.write("internal/auth/login.go", "package auth\n")
		r.write("store/query.go", "package store\n\nconst q = \"SELECT * FROM users WHERE id = \" + id\n")
		r.write("calc_test.go", "package calc\n")
		r.write("README.md", "# x\n\nmore\n")
		r.write("api/api.pb.go", "package api\n")
		r.write("gen/enum.go", "// Code generated by stringer. DO NOT EDIT.\n\npackage gen\n")
		r.write("config.yaml", "a: 1\n")
		r.write("vendor/lib/lib.go", "package lib\n")
		r.write("calc.go", "package calc\n")
		r.commit("tags")
	}},
	{"large", false, func(r *repo) {
		r.write("big.txt", numbered("", 20000))
		r.write("small.go", "package small\n")
		r.commit("base")
		r.branch()
		var b strings.Builder
		for i := 1; i <= 20000; i++ {
			if i%50 == 0 {
				fmt.Fprintf(&b, "changed %d\n", i)
				continue
			}
			fmt.Fprintf(&b, "line %d\n", i)
		}
		r.write("big.txt", b.String())
		r.write("huge.txt", numbered("", 20000))
		r.commit("large")
	}},
}

func (r *repo) chmod(name string, mode os.FileMode) {
	r.t.Helper()
	if err := os.Chmod(filepath.Join(r.Dir, name), mode); err != nil {
		r.t.Fatal(err)
	}
}

func (r *repo) symlink(target, name string) {
	r.t.Helper()
	if err := os.Symlink(target, filepath.Join(r.Dir, name)); err != nil {
		r.t.Fatal(err)
	}
}

// numbered returns head followed by n lines "line i".
func numbered(head string, n int) string {
	var b strings.Builder
	b.WriteString(head)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// TestLoad builds each case with real git, checks Load against git's own
// --numstat and --name-status, and compares the files with the golden JSON.
// It also checks that Parse reads the stored raw diff to the same files.
func TestLoad(t *testing.T) {
	for _, tc := range gitCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t)
			tc.setup(r)
			d, err := Load(context.Background(), Options{Dir: r.Dir, Base: "main", FindCopies: withCopies[tc.name]})
			if err != nil {
				t.Fatal(err)
			}
			if d.Base != "main" || d.Head != "HEAD" || d.HeadSHA != strings.TrimSpace(r.git("rev-parse", "HEAD")) ||
				d.BaseSHA != strings.TrimSpace(r.git("rev-parse", "main")) || d.MergeBase != d.BaseSHA {
				t.Errorf("revisions: %+v", d)
			}
			if root, _ := filepath.EvalSymlinks(r.Dir); d.Root != root {
				t.Errorf("Root = %q, want %q", d.Root, root)
			}
			checkOracle(t, r, d, withCopies[tc.name])
			if !tc.golden {
				return
			}
			raw, err := git.Runner{Dir: r.Dir}.Output(context.Background(), git.PatchArgs(d.MergeBase, d.HeadSHA, withCopies[tc.name])...)
			if err != nil {
				t.Fatal(err)
			}
			base := filepath.Join("testdata", "git", tc.name)
			got := goldenJSON(t, d.Files)
			golden(t, base+".json", got)
			if *update {
				golden(t, base+".diff", raw)
			}
			stored, err := os.ReadFile(base + ".diff")
			if err != nil {
				t.Fatal(err)
			}
			files, err := Parse(stored)
			if err != nil {
				t.Fatalf("Parse(%s.diff): %v", tc.name, err)
			}
			completeAsLoad(files, d.Files)
			if p := goldenJSON(t, files); !bytes.Equal(p, got) {
				t.Errorf("Parse(%s.diff) differs from Load:\n%s", tc.name, firstDiff(string(got), string(p)))
			}
		})
	}
}

// completeAsLoad gives the parsed files that git printed without content
// what Load learns of them from git beyond the patch (modes, binary
// content), so the rest can be compared.
func completeAsLoad(parsed, loaded []*File) {
	for i, f := range parsed {
		if i < len(loaded) && len(f.Hunks) == 0 && f.Status != Added && f.Status != Deleted {
			l := loaded[i]
			f.OldMode, f.NewMode, f.Symlink, f.Submodule, f.Binary, f.Tags = l.OldMode, l.NewMode, l.Symlink, l.Submodule, l.Binary, l.Tags
		}
	}
}

// checkOracle compares d with git diff --numstat and --name-status, run
// with the same detection flags.
func checkOracle(t *testing.T, r *repo, d *Diff, copies bool) {
	t.Helper()
	flags := []string{"-c", "core.quotePath=false", "diff", "-z", "-M", "--no-ext-diff", "--no-textconv"}
	if copies {
		flags = append(flags, "-C")
	}
	numstat := strings.Split(r.git(append(flags, "--numstat", d.MergeBase, d.HeadSHA)...), "\x00")
	status := strings.Split(r.git(append(flags, "--name-status", d.MergeBase, d.HeadSHA)...), "\x00")
	raw := strings.Split(r.git(append(flags, "--raw", d.MergeBase, d.HeadSHA)...), "\x00")

	type want struct {
		path, old, status string
		add, del          string
		oldMode, newMode  string
	}
	var wants []want
	for i := 0; i+1 < len(status); {
		st := status[i]
		w := want{status: st, path: status[i+1], old: status[i+1]}
		i += 2
		if st[0] == 'R' || st[0] == 'C' {
			w.path = status[i]
			i++
		}
		wants = append(wants, w)
	}
	for i, k := 0, 0; i < len(numstat) && numstat[i] != ""; k++ {
		fields := strings.SplitN(numstat[i], "\t", 3)
		wants[k].add, wants[k].del = fields[0], fields[1]
		i++
		if fields[2] == "" { // rename or copy: two more fields
			i += 2
		}
	}
	for i, k := 0, 0; i < len(raw) && raw[i] != ""; k++ {
		// ":<old mode> <new mode> <old oid> <new oid> <status>", then one
		// path, or two for a rename or copy.
		fields := strings.Fields(raw[i][1:])
		wants[k].oldMode, wants[k].newMode = strings.TrimLeft(fields[0], "0"), strings.TrimLeft(fields[1], "0")
		if fields[0] != "000000" {
			wants[k].oldMode = fields[0]
		}
		if fields[1] != "000000" {
			wants[k].newMode = fields[1]
		}
		i += 2
		if s := fields[4][0]; s == 'R' || s == 'C' {
			i++
		}
	}
	if len(wants) != len(d.Files) {
		t.Fatalf("Load found %d files, git --name-status %d", len(d.Files), len(wants))
	}
	for i, w := range wants {
		f := d.Files[i]
		if f.Path != w.path {
			t.Errorf("file %d: path %q, git says %q", i, f.Path, w.path)
		}
		status := map[byte]Status{'A': Added, 'D': Deleted, 'M': Modified, 'T': Modified, 'R': Renamed, 'C': Copied}[w.status[0]]
		if f.Status != status || f.TypeChange != (w.status[0] == 'T') {
			t.Errorf("%s: status %s (type change %v), git says %s", f.Path, f.Status, f.TypeChange, w.status)
		}
		if f.OldMode != w.oldMode || f.NewMode != w.newMode {
			t.Errorf("%s: modes %q %q, git --raw says %q %q", f.Path, f.OldMode, f.NewMode, w.oldMode, w.newMode)
		}
		if sub, link := w.oldMode == "160000" || w.newMode == "160000", w.oldMode == "120000" || w.newMode == "120000"; f.Submodule != sub || f.Symlink != link {
			t.Errorf("%s: submodule %v symlink %v, git --raw says modes %q %q", f.Path, f.Submodule, f.Symlink, w.oldMode, w.newMode)
		}
		if f.Status != Added && f.OldPath != w.old {
			t.Errorf("%s: old path %q, git says %q", f.Path, f.OldPath, w.old)
		}
		if f.Status == Renamed || f.Status == Copied {
			if sim, _ := strconv.Atoi(w.status[1:]); f.Similarity != sim {
				t.Errorf("%s: similarity %d, git says %d", f.Path, f.Similarity, sim)
			}
		}
		if w.add == "-" {
			if !f.Binary || f.Additions != 0 || f.Deletions != 0 {
				t.Errorf("%s: binary %v +%d -%d, git says binary", f.Path, f.Binary, f.Additions, f.Deletions)
			}
			continue
		}
		if f.Binary || strconv.Itoa(f.Additions) != w.add || strconv.Itoa(f.Deletions) != w.del {
			t.Errorf("%s: binary %v +%d -%d, git --numstat says +%s -%s", f.Path, f.Binary, f.Additions, f.Deletions, w.add, w.del)
		}
	}
}

// TestLoadConfigProof checks that user configuration and environment that
// change git diff's output do not change what Load reads.
func TestLoadConfigProof(t *testing.T) {
	r := newRepo(t)
	r.write("a b.txt", "one\n\ntwo\nthree\n")
	r.write("é.txt", "x\n")
	r.write("sub/z.go", numbered("", 10))
	r.commit("base")
	r.branch()
	r.write("a b.txt", "one\n\nTWO\nthree\n")
	r.write("é.txt", "y\n")
	r.remove("sub/z.go")
	r.write("sub/y.go", numbered("", 10)+"more\n")
	r.commit("change")
	opts := Options{Dir: filepath.Join(r.Dir, "sub"), Base: "main"}

	clean, err := Load(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	r.write("order.txt", "sub/y.go\n")
	for _, kv := range [][2]string{
		{"diff.noprefix", "true"}, {"diff.mnemonicPrefix", "true"}, {"color.ui", "always"},
		{"color.diff", "always"}, {"diff.external", "false"}, {"diff.suppressBlankEmpty", "true"},
		{"diff.renames", "false"}, {"diff.relative", "true"}, {"core.quotePath", "true"},
		{"diff.orderFile", filepath.Join(r.Dir, "order.txt")}, {"diff.context", "0"},
		{"diff.interHunkContext", "10"}, {"diff.srcPrefix", "x/"}, {"diff.dstPrefix", "y/"},
		{"core.pager", "false"},
	} {
		r.git("config", kv[0], kv[1])
	}
	t.Setenv("GIT_DIFF_OPTS", "--unified=0")
	t.Setenv("GIT_EXTERNAL_DIFF", "false")
	t.Setenv("LANG", "de_DE.UTF-8")

	hostile, err := Load(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if want, got := goldenJSON(t, clean.Files), goldenJSON(t, hostile.Files); !bytes.Equal(want, got) {
		t.Errorf("configuration changed the result:\n%s", firstDiff(string(want), string(got)))
	}
	if len(clean.Files) != 3 || clean.File("sub/y.go") == nil || clean.File("sub/y.go").Status != Renamed {
		t.Errorf("files: %s", goldenJSON(t, clean.Files))
	}
}

// TestLoadWarnings checks that git's warnings reach the Diff: past
// diff.renameLimit git skips inexact rename detection, and the renamed
// files read as deleted and added.
func TestLoadWarnings(t *testing.T) {
	r := newRepo(t)
	for i := 1; i <= 4; i++ {
		r.write(fmt.Sprintf("a%d.txt", i), numbered(fmt.Sprintf("file %d\n", i), 20))
	}
	r.commit("base")
	r.branch()
	for i := 1; i <= 4; i++ {
		r.remove(fmt.Sprintf("a%d.txt", i))
		r.write(fmt.Sprintf("b%d.txt", i), strings.Replace(numbered(fmt.Sprintf("file %d\n", i), 20), "line 5\n", "line five\n", 1))
	}
	r.commit("move")
	d, err := Load(context.Background(), Options{Dir: r.Dir, Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 4 || len(d.Warnings) != 0 {
		t.Fatalf("without a limit: %d files, warnings %q", len(d.Files), d.Warnings)
	}
	r.git("config", "diff.renameLimit", "1")
	d, err = Load(context.Background(), Options{Dir: r.Dir, Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 8 || len(d.Warnings) == 0 || !strings.Contains(d.Warnings[0], "rename detection was skipped") {
		t.Errorf("past the limit: %d files, warnings %q", len(d.Files), d.Warnings)
	}
}

func TestLoadIgnore(t *testing.T) {
	r := newRepo(t)
	r.commit("base")
	r.branch()
	r.write("vendor/a/a.go", "package a\n")
	r.write("docs/x.md", "x\n")
	r.write("main.go", "package main\n")
	r.write("api/v1/api.pb.go", "package v1\n")
	r.commit("add")
	// A glob without a slash matches names at any depth, as the tools do.
	d, err := Load(context.Background(), Options{Dir: r.Dir, Base: "main", Ignore: []string{"vendor/**", "**/*.md", "*.pb.go"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 1 || d.Files[0].Path != "main.go" {
		t.Errorf("files = %s, want main.go only", goldenJSON(t, d.Files))
	}
	if _, err := Load(context.Background(), Options{Dir: r.Dir, Base: "main", Ignore: []string{"[bad"}}); err == nil ||
		!strings.Contains(err.Error(), `"[bad"`) {
		t.Errorf("bad pattern: err = %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	ctx := context.Background()

	t.Run("not a repository", func(t *testing.T) {
		_, err := Load(ctx, Options{Dir: t.TempDir(), Base: "main"})
		if !errors.Is(err, ErrNotRepo) {
			t.Fatalf("err = %v, want ErrNotRepo", err)
		}
	})
	t.Run("bare repository", func(t *testing.T) {
		dir := t.TempDir()
		r := &repo{gittest.In(t, dir), t}
		r.git("init", "-q", "--bare")
		if _, err := Load(ctx, Options{Dir: dir, Base: "main"}); !errors.Is(err, ErrNotRepo) {
			t.Fatalf("err = %v, want ErrNotRepo", err)
		}
	})
	t.Run("no base", func(t *testing.T) {
		if _, err := Load(ctx, Options{Dir: t.TempDir()}); err == nil {
			t.Fatal("no error")
		}
	})

	r := newRepo(t)
	r.write("a.txt", "a\n")
	r.commit("base")
	r.git("remote", "add", "origin", "https://example.com/x.git")

	revCases := []struct {
		name, base string
		ci         bool
		hint       string
	}{
		{"unknown", "nope", false, "git fetch origin nope"},
		{"remote branch", "origin/main", false, "git fetch origin main"},
		{"in CI", "origin/main", true, "fetch-depth: 0"},
		{"option-like", "--output=x", false, `cannot start with "-"`},
	}
	for _, tc := range revCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CI", "true") // read by no one: Options.CI decides
			_, err := Load(ctx, Options{Dir: r.Dir, Base: tc.base, CI: tc.ci})
			var rev *RevError
			if !errors.As(err, &rev) {
				t.Fatalf("err = %v, want *RevError", err)
			}
			if rev.Rev != tc.base || !strings.Contains(err.Error(), tc.hint) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err = %q, want one line about %q mentioning %q", err, tc.base, tc.hint)
			}
		})
	}

	t.Run("no merge base", func(t *testing.T) {
		r.git("checkout", "-q", "--orphan", "other")
		r.write("b.txt", "b\n")
		r.commit("unrelated")
		_, err := Load(ctx, Options{Dir: r.Dir, Base: "main"})
		if !errors.Is(err, ErrNoMergeBase) || !strings.Contains(err.Error(), "unrelated") {
			t.Fatalf("err = %v, want ErrNoMergeBase", err)
		}
		r.git("checkout", "-q", "main")
	})
	t.Run("empty diff", func(t *testing.T) {
		d, err := Load(ctx, Options{Dir: r.Dir, Base: "main"})
		if err != nil || len(d.Files) != 0 {
			t.Fatalf("Load = %+v, %v; want no files", d, err)
		}
		ctx := Render(d, 1000, nil)
		if len(ctx.Files) != 0 || !strings.Contains(ctx.Markdown, "0 files changed") {
			t.Errorf("Render of empty diff: %q", ctx.Markdown)
		}
	})
	t.Run("empty repository", func(t *testing.T) {
		e := newRepo(t)
		_, err := Load(ctx, Options{Dir: e.Dir, Base: "main"})
		var rev *RevError
		if !errors.As(err, &rev) {
			t.Fatalf("err = %v, want *RevError", err)
		}
	})
	t.Run("git missing", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		if _, err := Load(ctx, Options{Dir: r.Dir, Base: "main"}); !errors.Is(err, ErrGitMissing) {
			t.Fatalf("err = %v, want ErrGitMissing", err)
		}
	})
	t.Run("canceled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := Load(cctx, Options{Dir: r.Dir, Base: "main"}); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}

// TestChanged checks the line queries the agent uses to place findings.
func TestChanged(t *testing.T) {
	r := newRepo(t)
	r.write("f.go", numbered("", 40))
	r.commit("base")
	r.branch()
	content := strings.Replace(numbered("", 40), "line 10\n", "line 10\nnew 11\nnew 12\n", 1)
	content = strings.Replace(content, "line 30\n", "", 1)
	r.write("f.go", content)
	r.commit("change")
	d, err := Load(context.Background(), Options{Dir: r.Dir, Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path          string
		line          int
		changed, hunk bool
	}{
		{"f.go", 10, false, true},
		{"f.go", 11, true, true},
		{"f.go", 12, true, true},
		{"f.go", 13, false, true},
		{"f.go", 7, false, false},
		{"f.go", 8, false, true},
		{"f.go", 15, false, true},
		{"f.go", 16, false, false},
		{"f.go", 28, false, false},
		{"f.go", 29, false, true}, // context around the deleted old line 30
		{"f.go", 34, false, true},
		{"f.go", 35, false, false},
		{"f.go", 0, false, false},
		{"g.go", 11, false, false},
	} {
		if got := d.Changed(tc.path, tc.line); got != tc.changed {
			t.Errorf("Changed(%s, %d) = %v", tc.path, tc.line, got)
		}
		if got := d.InHunk(tc.path, tc.line); got != tc.hunk {
			t.Errorf("InHunk(%s, %d) = %v", tc.path, tc.line, got)
		}
	}
}

// TestExactMoveOverview checks what the overview says of exact moves: the
// submodule moved without content is still named a submodule, and the
// binary file whose mode alone changed is binary.
func TestExactMoveOverview(t *testing.T) {
	for name, want := range map[string]string{
		"exact_moves_modes": "`third/lib2` — renamed from `third/lib` (100%), +0 -0, submodule",
		"binary_mode_only":  "`tool.bin` — modified, binary, mode 100644 → 100755 [binary]",
	} {
		var setup func(*repo)
		for _, tc := range gitCases {
			if tc.name == name {
				setup = tc.setup
			}
		}
		r := newRepo(t)
		setup(r)
		d, err := Load(context.Background(), Options{Dir: r.Dir, Base: "main", FindCopies: withCopies[name]})
		if err != nil {
			t.Fatal(err)
		}
		md := Render(d, 10000, nil).Markdown
		if !strings.Contains(md, want) {
			t.Errorf("%s: overview lacks %q:\n%s", name, want, md)
		}
	}
}
