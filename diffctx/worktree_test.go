package diffctx

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/reviewdev/review/internal/gittest"
)

// TestUncommitted: edits, staged or not, and untracked files are pending;
// a clean work tree has nothing pending, and so has a clone that never
// checked anything out, whose missing index git status reads as every
// file deleted.
func TestUncommitted(t *testing.T) {
	ctx := context.Background()
	r := gittest.New(t)
	r.Write(map[string]string{"a.go": "package a\n", "b.go": "package b\n"})
	r.Commit("base")
	p, err := Uncommitted(ctx, r.Dir)
	if err != nil || len(p.Changed)+len(p.Untracked) != 0 {
		t.Fatalf("clean work tree: %+v, %v", p, err)
	}
	r.Write(map[string]string{"a.go": "package a // edited\n", "c.go": "package c\n"})
	r.Git("add", "a.go")
	r.Write(map[string]string{"b.go": "package b // edited\n"})
	p, err = Uncommitted(ctx, r.Dir)
	if err != nil || !slices.Equal(p.Changed, []string{"a.go", "b.go"}) || !slices.Equal(p.Untracked, []string{"c.go"}) {
		t.Fatalf("edited work tree: %+v, %v", p, err)
	}

	clone := filepath.Join(t.TempDir(), "clone")
	gittest.In(t, t.TempDir()).Git("clone", "--quiet", "--no-checkout", r.Dir, clone)
	if _, err := os.Stat(filepath.Join(clone, ".git", "index")); !os.IsNotExist(err) {
		t.Fatalf("the clone has an index: %v", err)
	}
	if out := gittest.In(t, clone).Git("status", "--porcelain"); out == "" {
		t.Fatal("git status lists nothing in a clone with no index: the case is not tested")
	}
	p, err = Uncommitted(ctx, clone)
	if err != nil || len(p.Changed)+len(p.Untracked) != 0 {
		t.Errorf("clone with no index: %+v, %v", p, err)
	}
}
