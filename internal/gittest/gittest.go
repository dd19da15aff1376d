package gittest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// isolation is the environment tests run git in: no user or system
// configuration, and a fixed identity and dates, so that commits (and
// with them submodule hashes) are the same on every run.
func isolation(home string) map[string]string {
	return map[string]string{
		"HOME":                home,
		"XDG_CONFIG_HOME":     filepath.Join(home, ".config"),
		"GIT_CONFIG_GLOBAL":   os.DevNull,
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME":     "Ada",
		"GIT_AUTHOR_EMAIL":    "ada@example.com",
		"GIT_AUTHOR_DATE":     "2024-01-02T03:04:05Z",
		"GIT_COMMITTER_NAME":  "Ada",
		"GIT_COMMITTER_EMAIL": "ada@example.com",
		"GIT_COMMITTER_DATE":  "2024-01-02T03:04:05Z",
	}
}

// leaks are variables of the caller's environment that would point git
// elsewhere or change its output.
var leaks = []string{"CI", "GITHUB_ACTIONS", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
	"GIT_DIFF_OPTS", "GIT_EXTERNAL_DIFF", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"}

// Isolate isolates git for one test or benchmark.
func Isolate(tb testing.TB) {
	tb.Helper()
	for k, v := range isolation(tb.TempDir()) {
		tb.Setenv(k, v)
	}
	for _, k := range leaks {
		if _, ok := os.LookupEnv(k); ok {
			tb.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
}

// Main isolates git for every test, benchmark and fuzz target of a test
// binary, runs them and returns the exit code: os.Exit(gittest.Main(m)).
func Main(m *testing.M) int {
	home, err := os.MkdirTemp("", "gittest-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(home)
	for k, v := range isolation(home) {
		os.Setenv(k, v)
	}
	for _, k := range leaks {
		os.Unsetenv(k)
	}
	return m.Run()
}

// Repo is a git repository built for a test.
type Repo struct {
	tb  testing.TB
	Dir string
}

// New creates a repository on branch main in a new temporary directory.
func New(tb testing.TB) *Repo {
	tb.Helper()
	return Init(tb, tb.TempDir())
}

// Init creates a repository on branch main in dir, making dir if need be.
func Init(tb testing.TB, dir string) *Repo {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	r := &Repo{tb: tb, Dir: dir}
	r.Git("init", "-q", "-b", "main")
	return r
}

// In is the repository, or the directory for one, at dir, as it is.
func In(tb testing.TB, dir string) *Repo { return &Repo{tb: tb, Dir: dir} }

// Run runs git in the repository and returns its standard output; an
// error carries its standard error.
func (r *Repo) Run(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return stdout.String(), nil
}

// Git runs git in the repository and returns its standard output, failing
// the test on an error.
func (r *Repo) Git(args ...string) string {
	r.tb.Helper()
	out, err := r.Run(args...)
	if err != nil {
		r.tb.Fatal(err)
	}
	return out
}

// Write creates or replaces files, making their directories; a content
// "symlink:TARGET" makes a symbolic link to TARGET.
func (r *Repo) Write(files map[string]string) {
	r.tb.Helper()
	for name, content := range files {
		p := filepath.Join(r.Dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			r.tb.Fatal(err)
		}
		os.Remove(p)
		if target, ok := strings.CutPrefix(content, "symlink:"); ok {
			if err := os.Symlink(target, p); err != nil {
				r.tb.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			r.tb.Fatal(err)
		}
	}
}

// Commit commits every change of the work tree and returns the commit.
func (r *Repo) Commit(msg string) string {
	r.tb.Helper()
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", msg)
	return strings.TrimSpace(r.Git("rev-parse", "HEAD"))
}

// Change creates a repository whose branch main holds base and whose
// branch feature, checked out, changes it to head: the shape of most
// reviews. It returns the work tree.
func Change(tb testing.TB, base, head map[string]string) string {
	tb.Helper()
	Isolate(tb)
	r := New(tb)
	r.Write(base)
	r.Commit("base")
	r.Git("checkout", "-q", "-b", "feature")
	r.Write(head)
	r.Commit("change")
	return r.Dir
}
