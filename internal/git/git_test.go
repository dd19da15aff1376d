package git

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// hostileConfig is a user configuration that changes every output review
// parses, if git were run without the Runner's pins.
const hostileConfig = `[user]
	name = Test
	email = test@example.com
[core]
	quotePath = true
	pager = false
[color]
	ui = always
	diff = always
[diff]
	noprefix = true
	mnemonicPrefix = true
	relative = true
	external = false
	suppressBlankEmpty = true
[pager]
	diff = false
`

// newRepo creates a repository with two commits under a hostile user
// configuration and environment, and returns it with the commits.
func newRepo(t *testing.T) (dir, first, second string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	home := t.TempDir()
	cfg := filepath.Join(home, ".gitconfig")
	if err := os.WriteFile(cfg, []byte(hostileConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_GLOBAL", cfg)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_EXTERNAL_DIFF", "false")
	t.Setenv("GIT_DIFF_OPTS", "--unified=0")
	t.Setenv("GIT_PAGER", "false")
	t.Setenv("PAGER", "false")
	t.Setenv("LC_ALL", "de_DE.UTF-8")
	t.Setenv("GIT_GLOB_PATHSPECS", "1")

	dir = t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		c := exec.Command("git", args...)
		c.Dir = dir
		c.Env = append(os.Environ(), "GIT_GLOB_PATHSPECS=", "LC_ALL=C")
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("init", "-q")
	write("a.go", "package a\n\nfunc A() {}\n")
	write("*.go", "star\n")
	write("héllo.txt", "one\n")
	run("add", "-A")
	run("commit", "-q", "-m", "first")
	first = run("rev-parse", "HEAD")
	write("a.go", "package a\n\nfunc A() { println() }\n")
	write("*.go", "star star\n")
	write("héllo.txt", "one\ntwo\n")
	run("commit", "-q", "-am", "second")
	second = run("rev-parse", "HEAD")
	return dir, first, second
}

func TestPatchIgnoresConfiguration(t *testing.T) {
	dir, first, second := newRepo(t)
	out, err := Runner{Dir: dir}.Output(context.Background(), PatchArgs(first, second, false)...)
	if err != nil {
		t.Fatal(err)
	}
	patch := string(out)
	for _, want := range []string{
		"diff --git a/a.go b/a.go\n",
		"--- a/héllo.txt\n+++ b/héllo.txt\n",             // unquoted, with prefixes
		"@@ -1,3 +1,3 @@\n package a\n \n-func A() {}\n", // three lines of context
	} {
		if !strings.Contains(patch, want) {
			t.Errorf("patch lacks %q:\n%s", want, patch)
		}
	}
	if strings.Contains(patch, "\x1b[") {
		t.Errorf("patch is coloured:\n%q", patch)
	}
}

func TestLiteralPathspecs(t *testing.T) {
	dir, first, second := newRepo(t)
	out, err := Runner{Dir: dir}.Output(context.Background(), "diff", "--name-only", first, second, "--", "*.go")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "*.go" {
		t.Errorf("files for pathspec *.go = %q, want the file named *.go alone", got)
	}
}

func TestCapped(t *testing.T) {
	dir, first, _ := newRepo(t)
	r := Runner{Dir: dir}
	whole, err := r.Output(context.Background(), "cat-file", "-p", first)
	if err != nil {
		t.Fatal(err)
	}
	out, cut, err := r.Capped(context.Background(), 10, "cat-file", "-p", first)
	if err != nil || !cut || string(out) != string(whole[:10]) {
		t.Errorf("Capped(10) = %q, %v, %v; want %q, true, nil", out, cut, err, whole[:10])
	}
	out, cut, err = r.Capped(context.Background(), len(whole), "cat-file", "-p", first)
	if err != nil || cut || string(out) != string(whole) {
		t.Errorf("Capped(len) = %q, %v, %v; want the whole output, not cut", out, cut, err)
	}
}

func TestErrors(t *testing.T) {
	dir, _, _ := newRepo(t)
	ctx := context.Background()

	_, err := Runner{Dir: t.TempDir()}.Text(ctx, "rev-parse", "--show-toplevel")
	var gerr *Error
	if !errors.As(err, &gerr) || !strings.HasPrefix(err.Error(), "git rev-parse: not a git repository") || gerr.ExitCode() != 128 {
		t.Errorf("outside a repository: %v (%#v), want git rev-parse: not a git repository, exit 128", err, gerr)
	}

	_, err = Runner{Dir: dir}.Text(ctx, "merge-base", "--is-ancestor", "HEAD", "HEAD~1")
	if !errors.As(err, &gerr) || gerr.ExitCode() != 1 || len(gerr.Stderr) != 0 || err.Error() != "git merge-base: exit status 1" {
		t.Errorf("silent failure: %v, want git merge-base: exit status 1 with empty stderr", err)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = Runner{Dir: dir}.Text(cancelled, "rev-parse", "HEAD")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}

	timeout, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	c := Runner{Dir: dir}.Command(timeout, "cat-file", "--batch")
	if _, err := c.StdinPipe(); err != nil { // held open: git waits for input
		t.Fatal(err)
	}
	start := time.Now()
	err = c.Run()
	if !errors.Is(err, context.DeadlineExceeded) || !strings.HasPrefix(err.Error(), "git cat-file: ") {
		t.Errorf("timed out: %v, want git cat-file: context deadline exceeded", err)
	}
	// git waits for input until it is stopped: any bound far above a busy
	// machine's tells a deadline that did not stop it.
	if d := time.Since(start); d > time.Minute {
		t.Errorf("cancelled git took %v to stop", d)
	}
}

func TestUnsafe(t *testing.T) {
	stderr := "fatal: detected dubious ownership in repository at '/srv/repo'\n" +
		"To add an exception for this directory, call:\n\n\tgit config --global --add safe.directory /srv/repo\n"
	e := &Error{Dir: "sub", Args: []string{"rev-parse"}, Stderr: []byte(stderr), Err: errors.New("exit status 128")}
	want := "git refuses to read /srv/repo because another user owns it: run git config --global --add safe.directory /srv/repo"
	if e.Error() != want {
		t.Errorf("Error() = %q, want %q", e.Error(), want)
	}
	e.Stderr = []byte("fatal: detected dubious ownership in repository\n")
	if repo, ok := e.Unsafe(); !ok || repo != "sub" {
		t.Errorf("Unsafe() without a path = %q, %v; want the directory git ran in", repo, ok)
	}
	e.Stderr = []byte("fatal: bad revision 'x'\n")
	if _, ok := e.Unsafe(); ok || e.Error() != "git rev-parse: bad revision 'x'" {
		t.Errorf("other failure: %q", e.Error())
	}
}

func TestEnv(t *testing.T) {
	t.Setenv("GIT_EXTERNAL_DIFF", "x")
	t.Setenv("LANG", "de_DE.UTF-8")
	t.Setenv("GIT_GLOB_PATHSPECS", "1")
	t.Setenv("GIT_DIR", "/keep/me")
	env := Env()
	for _, kv := range []string{"LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat", "GIT_DIR=/keep/me"} {
		if !slices.Contains(env, kv) {
			t.Errorf("environment lacks %s", kv)
		}
	}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if k == "GIT_EXTERNAL_DIFF" || k == "LANG" || k == "GIT_GLOB_PATHSPECS" {
			t.Errorf("environment keeps %s", kv)
		}
	}
}

// TestTopLevelAndCommonDir holds TopLevel and CommonDir, asked for by one
// git process, to what git prints for each alone: at the top of a work
// tree, in a subdirectory (a relative common directory), in a linked
// work tree (whose common directory is its main repository's), and in a
// repository without a work tree, where TopLevel fails as git does and
// CommonDir still answers.
func TestTopLevelAndCommonDir(t *testing.T) {
	dir, _, _ := newRepo(t)
	alone := func(d string, args ...string) string {
		t.Helper()
		c := exec.Command("git", append([]string{"rev-parse"}, args...)...)
		c.Dir = d
		out, err := c.Output()
		if err != nil {
			t.Fatalf("git rev-parse %v in %s: %v", args, d, err)
		}
		return strings.TrimSpace(string(out))
	}
	sub := filepath.Join(dir, "sub", "deeper")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(t.TempDir(), "linked")
	if out, err := exec.Command("git", "-C", dir, "worktree", "add", "-q", "--detach", linked).CombinedOutput(); err != nil {
		t.Fatalf("git worktree add: %v\n%s", err, out)
	}
	ctx := context.Background()
	for _, d := range []string{dir, sub, linked} {
		r := Runner{Dir: d}
		top, err := r.TopLevel(ctx)
		if err != nil {
			t.Fatal(err)
		}
		common, err := r.CommonDir(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := alone(d, "--show-toplevel"); top != want {
			t.Errorf("TopLevel in %s = %q, git says %q", d, top, want)
		}
		if want := alone(d, "--git-common-dir"); common != want {
			t.Errorf("CommonDir in %s = %q, git says %q", d, common, want)
		}
	}
	bare := filepath.Join(t.TempDir(), "bare.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", bare).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v\n%s", err, out)
	}
	r := Runner{Dir: bare}
	if _, err := r.TopLevel(ctx); err == nil || !strings.Contains(err.Error(), "must be run in a work tree") {
		t.Errorf("TopLevel in a bare repository: %v", err)
	}
	if common, err := r.CommonDir(ctx); err != nil || common != alone(bare, "--git-common-dir") {
		t.Errorf("CommonDir in a bare repository = %q, %v", common, err)
	}
}

// TestRevParseDirsSoon holds the top level and common directory answered
// by RevParseDirsSoon's process to what git prints for each alone, with no
// git process of TopLevel's or CommonDir's own: at the top of a work tree,
// in a subdirectory and in a linked work tree. When its process fails (an
// unknown revision, an answer of other lines than asked, a repository
// without a work tree), TopLevel and CommonDir ask git themselves, as
// before.
func TestRevParseDirsSoon(t *testing.T) {
	dir, first, second := newRepo(t)
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	// A git first on PATH that logs each process it starts.
	shim, log := t.TempDir(), filepath.Join(t.TempDir(), "log")
	script := "#!/bin/sh\necho \"$*\" >> " + log + "\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(shim, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", shim+string(os.PathListSeparator)+os.Getenv("PATH"))
	started := func() int {
		data, _ := os.ReadFile(log)
		os.Remove(log)
		return strings.Count(string(data), "\n")
	}
	alone := func(d string, args ...string) string {
		t.Helper()
		c := exec.Command(real, append([]string{"rev-parse"}, args...)...)
		c.Dir = d
		out, err := c.Output()
		if err != nil {
			t.Fatalf("git rev-parse %v in %s: %v", args, d, err)
		}
		return strings.TrimSpace(string(out))
	}
	sub := filepath.Join(dir, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(t.TempDir(), "linked")
	if out, err := exec.Command(real, "-C", dir, "worktree", "add", "-q", "--detach", linked).CombinedOutput(); err != nil {
		t.Fatalf("git worktree add: %v\n%s", err, out)
	}
	ctx := context.Background()
	started()
	for _, d := range []string{dir, sub, linked} {
		r := Runner{Dir: d}
		answer := r.RevParseDirsSoon(ctx, 3, first+"..."+second)
		top, terr := r.TopLevel(ctx)
		common, cerr := r.CommonDir(ctx)
		lines, err := answer()
		if err != nil || terr != nil || cerr != nil {
			t.Fatalf("in %s: %v, %v, %v", d, err, terr, cerr)
		}
		if want := []string{second, first, "^" + first}; !slices.Equal(lines, want) {
			t.Errorf("RevParseDirsSoon in %s = %q, want %q", d, lines, want)
		}
		if want := alone(d, "--show-toplevel"); top != want {
			t.Errorf("TopLevel in %s = %q, git says %q", d, top, want)
		}
		if want := alone(d, "--git-common-dir"); common != want {
			t.Errorf("CommonDir in %s = %q, git says %q", d, common, want)
		}
		if n := started(); n != 1 {
			t.Errorf("in %s: %d git processes, want 1", d, n)
		}
		// Known now: the next question prints no directories.
		if lines, err := r.RevParseDirsSoon(ctx, 1, "HEAD")(); err != nil || len(lines) != 1 || !isCommit(lines[0]) {
			t.Errorf("RevParseDirsSoon HEAD in %s, the directories known: %q, %v", d, lines, err)
		}
		started()
	}

	for _, c := range []struct {
		name  string
		lines int
		args  []string
		want  string
	}{
		{"an unknown revision", 1, []string{"no-such-branch"}, "no-such-branch"},
		{"other lines", 2, []string{"HEAD"}, "git answered 3 lines, not 4"},
	} {
		d := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		r := Runner{Dir: d}
		_, err := r.RevParseDirsSoon(ctx, c.lines, c.args...)()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		top, err := r.TopLevel(ctx)
		if want := alone(d, "--show-toplevel"); err != nil || top != want {
			t.Errorf("%s: TopLevel = %q, %v; git says %q", c.name, top, err, want)
		}
		if n := started(); n != 2 {
			t.Errorf("%s: %d git processes, want 2 (TopLevel's own)", c.name, n)
		}
	}

	bare := filepath.Join(t.TempDir(), "bare.git")
	if out, err := exec.Command(real, "init", "-q", "--bare", bare).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v\n%s", err, out)
	}
	r := Runner{Dir: bare}
	if _, err := r.RevParseDirsSoon(ctx, 1, "HEAD")(); err == nil {
		t.Error("RevParseDirsSoon in a bare repository did not fail")
	}
	if _, err := r.TopLevel(ctx); err == nil || !strings.Contains(err.Error(), "must be run in a work tree") {
		t.Errorf("TopLevel in a bare repository: %v", err)
	}
	if common, err := r.CommonDir(ctx); err != nil || common != alone(bare, "--git-common-dir") {
		t.Errorf("CommonDir in a bare repository = %q, %v", common, err)
	}
}

// isCommit reports whether s is a full commit name.
func isCommit(s string) bool {
	return len(s) == 40 && strings.Trim(s, "0123456789abcdef") == ""
}
