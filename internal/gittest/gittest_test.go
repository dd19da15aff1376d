package gittest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestChange builds a change and checks what a review reads of it: the
// branches, the files, and commits the same on every run.
func TestChange(t *testing.T) {
	dir := Change(t, map[string]string{"a.go": "package a\n"}, map[string]string{"a.go": "package b\n", "d/link": "symlink:../a.go"})
	r := &Repo{tb: t, Dir: dir}
	if b := strings.TrimSpace(r.Git("branch", "--show-current")); b != "feature" {
		t.Errorf("checked out %q, want feature", b)
	}
	if diff := r.Git("diff", "--name-only", "main...HEAD"); diff != "a.go\nd/link\n" {
		t.Errorf("changed files %q", diff)
	}
	if target, err := os.Readlink(filepath.Join(dir, "d", "link")); err != nil || target != "../a.go" {
		t.Errorf("link: %q, %v", target, err)
	}
	again := Change(t, map[string]string{"a.go": "package a\n"}, map[string]string{"a.go": "package b\n", "d/link": "symlink:../a.go"})
	if a, b := r.Git("rev-parse", "HEAD"), (&Repo{tb: t, Dir: again}).Git("rev-parse", "HEAD"); a != b {
		t.Errorf("commits differ between runs: %s and %s", a, b)
	}
	if _, err := r.Run("rev-parse", "nosuch"); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("a failing git: %v", err)
	}
}
