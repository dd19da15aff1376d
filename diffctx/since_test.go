package diffctx

import (
	"context"
	"errors"
	"fmt"
	"github.com/reviewdev/review/internal/git"
	"strings"
	"testing"
)

// TestLoadSince reviews the commits since an earlier head: a file they did
// not touch is context (Earlier), a file they touched keeps only the hunks
// they changed, a deletion since is caught by the hunk around it, and a
// merge of the base into the branch brings nothing of the base in.
func TestLoadSince(t *testing.T) {
	r := newRepo(t)
	r.write("a.go", numbered("", 60))
	r.write("b.go", numbered("", 10))
	r.write("c.go", numbered("", 30))
	r.commit("base")
	r.branch()
	// The first round of the pull request: a.go in two places, b.go, c.go.
	r.write("a.go", strings.Replace(strings.Replace(numbered("", 60), "line 5\n", "line five\n", 1), "line 50\n", "line fifty\n", 1))
	r.write("b.go", numbered("", 10)+"more\n")
	r.write("c.go", strings.Replace(numbered("", 30), "line 3\n", "line three\n", 1))
	r.commit("first")
	first := strings.TrimSpace(r.git("rev-parse", "HEAD"))
	// main moves on, and is merged into the branch.
	r.git("checkout", "-q", "main")
	r.write("m.go", "on main\n")
	r.commit("main moves")
	r.git("checkout", "-q", "feature")
	r.git("merge", "-q", "--no-edit", "main")
	// The second round: a.go near its second change only, c.go loses a line.
	r.write("a.go", strings.Replace(strings.Replace(numbered("", 60), "line 5\n", "line five\n", 1), "line 50\n", "line fifty\nline 50b\n", 1))
	r.write("c.go", strings.Replace(strings.Replace(numbered("", 30), "line 3\n", "line three\n", 1), "line 20\n", "", 1))
	r.commit("second")

	whole, err := Load(context.Background(), Options{Dir: r.Dir, Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := Load(context.Background(), Options{Dir: r.Dir, Base: "main", Since: first})
	if err != nil {
		t.Fatal(err)
	}
	if d.SinceSHA != first || d.Since != first {
		t.Errorf("since = %q %q", d.Since, d.SinceSHA)
	}
	var paths, earlier []string
	for _, f := range d.Files {
		paths = append(paths, f.Path)
	}
	for _, f := range d.Earlier {
		earlier = append(earlier, f.Path)
	}
	if strings.Join(paths, " ") != "a.go c.go" || strings.Join(earlier, " ") != "b.go" {
		t.Fatalf("files %v, earlier %v", paths, earlier)
	}
	a := d.File("a.go")
	if len(a.Hunks) != 1 || a.Hunks[0].NewStart > 50 || a.Hunks[0].NewStart+a.Hunks[0].NewLines <= 51 {
		t.Errorf("a.go hunks %+v, want only the one around line 50", a.Hunks)
	}
	if a.Additions != 2 || a.Deletions != 1 {
		t.Errorf("a.go counts +%d -%d, want those of its kept hunk, +2 -1", a.Additions, a.Deletions)
	}
	if wa := whole.File("a.go"); len(wa.Hunks) != 2 || wa.Additions != 3 {
		t.Errorf("the whole change of a.go: %+v", wa)
	}
	if c := d.File("c.go"); len(c.Hunks) != 1 || c.Deletions != 1 || c.Additions != 0 {
		t.Errorf("c.go %+v: want the hunk of the deleted line 20 alone", c)
	}
	if d.File("m.go") != nil {
		t.Error("a file of main merged into the branch is under review")
	}

	// Since the head itself: nothing is new.
	d, err = Load(context.Background(), Options{Dir: r.Dir, Base: "main", Since: "HEAD"})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 0 || len(d.Earlier) != 3 {
		t.Errorf("since HEAD: %d files, %d earlier", len(d.Files), len(d.Earlier))
	}

	// A head the branch no longer contains (a force-push): an error that
	// names both commits.
	r.git("checkout", "-q", "-b", "other", "main")
	r.write("x.go", "x\n")
	r.commit("elsewhere")
	_, err = Load(context.Background(), Options{Dir: r.Dir, Base: "main", Head: "feature", Since: "other"})
	var se *SinceError
	if !errors.Is(err, ErrSinceNotAncestor) || !errors.As(err, &se) || se.Since != "other" || len(se.SHA) < 40 || len(se.Head) < 40 {
		t.Errorf("since a commit off the branch: %v", err)
	}
	_, err = Load(context.Background(), Options{Dir: r.Dir, Base: "main", Since: "nosuchrev"})
	var rerr *RevError
	if !errors.As(err, &rerr) {
		t.Errorf("since an unknown revision: %v", err)
	}
}

// TestResolveWithBase resolves base, head and their merge base with one
// git process when both are plain revisions (an annotated tag peeled to
// its commit), each as git itself answers, and leaves anything unusual to
// one revision at a time: unknown, a range or an option is a RevError,
// unrelated histories ErrNoMergeBase, and of several merge bases it takes
// git merge-base's.
func TestResolveWithBase(t *testing.T) {
	r := newRepo(t)
	r.write("a.go", "a\n")
	r.commit("one")
	r.git("tag", "-a", "v1", "-m", "v1")
	r.branch()
	r.write("a.go", "b\n")
	r.commit("two")
	g := &runner{Runner: git.Runner{Dir: r.Dir}}
	ctx := context.Background()
	sha := func(rev string) string { return strings.TrimSpace(r.git("rev-parse", rev)) }
	for _, base := range []string{"main", "v1"} {
		d := &Diff{Base: base, Head: "HEAD"}
		if err := g.resolveWithBase(ctx, d); err != nil {
			t.Fatal(err)
		}
		if d.BaseSHA != sha(base+"^{commit}") || d.HeadSHA != sha("HEAD") || d.MergeBase != strings.TrimSpace(r.git("merge-base", base, "HEAD")) {
			t.Errorf("resolveWithBase(%s, HEAD) = %q, %q, %q", base, d.BaseSHA, d.HeadSHA, d.MergeBase)
		}
	}
	for _, pair := range [][2]string{{"nosuch", "HEAD"}, {"main..HEAD", "HEAD"}, {"-x", "HEAD"}, {"main", "--all"}} {
		var rerr *RevError
		if err := g.resolveWithBase(ctx, &Diff{Base: pair[0], Head: pair[1]}); !errors.As(err, &rerr) {
			t.Errorf("resolveWithBase(%q, %q): %v, want a RevError", pair[0], pair[1], err)
		}
	}
	r.git("checkout", "-q", "--orphan", "alone")
	r.commit("unrelated")
	if err := g.resolveWithBase(ctx, &Diff{Base: "main", Head: "HEAD"}); !errors.Is(err, ErrNoMergeBase) {
		t.Errorf("unrelated histories: %v", err)
	}
	// Two merge bases: a criss-cross merge.
	r.git("checkout", "-q", "-b", "x", "main")
	r.write("x.txt", "x\n")
	r.commit("x")
	r.git("checkout", "-q", "-b", "y", "main")
	r.write("y.txt", "y\n")
	r.commit("y")
	r.git("checkout", "-q", "x")
	r.git("merge", "-q", "--no-edit", "y")
	r.git("checkout", "-q", "y")
	r.git("merge", "-q", "--no-edit", "x~1")
	r.write("y.txt", "yy\n")
	r.commit("y2")
	if bases := strings.Fields(r.git("merge-base", "--all", "x", "y")); len(bases) != 2 {
		t.Fatalf("the criss-cross has merge bases %v", bases)
	}
	d := &Diff{Base: "x", Head: "y"}
	if err := g.resolveWithBase(ctx, d); err != nil || d.MergeBase != strings.TrimSpace(r.git("merge-base", "x", "y")) {
		t.Errorf("several merge bases: %q, %v", d.MergeBase, err)
	}
}

// TestResolveSoon holds Load to the revisions ResolveSoon read before it
// was called, when they are of its base and head: the same diff as Load
// alone makes; revisions of other names, or none (an unknown base), leave
// Load to resolve the names itself, with its own error.
func TestResolveSoon(t *testing.T) {
	r := newRepo(t)
	r.write("a.go", "a\n")
	r.commit("one")
	r.branch()
	r.write("a.go", "b\n")
	r.commit("two")
	ctx := context.Background()
	alone, err := Load(ctx, Options{Dir: r.Dir, Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	soon, err := Load(ctx, Options{Dir: r.Dir, Base: "main", Resolved: ResolveSoon(ctx, r.Dir, "main", "")})
	if err != nil {
		t.Fatal(err)
	}
	if soon.BaseSHA != alone.BaseSHA || soon.HeadSHA != alone.HeadSHA || soon.MergeBase != alone.MergeBase || len(soon.Files) != 1 {
		t.Errorf("with ResolveSoon: %s %s %s, %d files; alone: %s %s %s", soon.BaseSHA, soon.HeadSHA, soon.MergeBase, len(soon.Files), alone.BaseSHA, alone.HeadSHA, alone.MergeBase)
	}
	// Load takes them as they are: a merge base at the head leaves
	// nothing to review.
	taken := func() (Revisions, bool) {
		return Revisions{Base: "main", Head: "HEAD", BaseSHA: alone.BaseSHA, HeadSHA: alone.HeadSHA, MergeBase: alone.HeadSHA}, true
	}
	if d, err := Load(ctx, Options{Dir: r.Dir, Base: "main", Resolved: taken}); err != nil || len(d.Files) != 0 {
		t.Errorf("revisions given: %v, %d files", err, len(d.Files))
	}
	// Of other names, they are not taken.
	if d, err := Load(ctx, Options{Dir: r.Dir, Base: "HEAD~1", Resolved: taken}); err != nil || len(d.Files) != 1 {
		t.Errorf("revisions of other names: %v, %d files", err, len(d.Files))
	}
	var rerr *RevError
	if _, err := Load(ctx, Options{Dir: r.Dir, Base: "nosuch", Resolved: ResolveSoon(ctx, r.Dir, "nosuch", "HEAD")}); !errors.As(err, &rerr) {
		t.Errorf("an unknown base read soon: %v", err)
	}
}

// TestPatchKeptUpToMax keeps a file's section of the diff whole (Patch)
// up to maxPatch, and past it only its parsed hunks: a large file's diff
// is not held twice.
func TestPatchKeptUpToMax(t *testing.T) {
	r := newRepo(t)
	r.write("small.txt", "a\n")
	r.write("large.txt", "a\n")
	r.commit("one")
	r.branch()
	r.write("small.txt", "b\n")
	r.write("large.txt", strings.Repeat("a line of the large file\n", maxPatch/20))
	r.commit("two")
	d, err := Load(context.Background(), Options{Dir: r.Dir, Base: "main", Patches: DefaultPatches})
	if err != nil {
		t.Fatal(err)
	}
	small, large := d.File("small.txt"), d.File("large.txt")
	if small == nil || large == nil {
		t.Fatalf("files: %v", d.Files)
	}
	if p := string(small.Patch()); !strings.HasPrefix(p, "diff --git a/small.txt b/small.txt\n") || !strings.HasSuffix(p, "-a\n+b\n") {
		t.Errorf("small.txt's patch: %q", p)
	}
	if large.Patch() != nil || len(large.Hunks) == 0 || large.TooLarge {
		t.Errorf("large.txt: a patch of %d bytes kept, %d hunks, too large %v", len(large.Patch()), len(large.Hunks), large.TooLarge)
	}
}

// TestPatchesWithinBudget keeps the sections of the first files in the
// diff's order whole while they fit the budget, each a copy of its own
// size, and none with no budget (a dry run's).
func TestPatchesWithinBudget(t *testing.T) {
	var raw strings.Builder
	for i := range 5 {
		fmt.Fprintf(&raw, "diff --git a/f%d.txt b/f%d.txt\nindex 1111111..2222222 100644\n--- a/f%d.txt\n+++ b/f%d.txt\n@@ -1 +1 @@\n-a\n+b\n", i, i, i, i)
	}
	section := len(raw.String()) / 5
	for _, tc := range []struct {
		budget, kept int
	}{{0, 0}, {section - 1, 0}, {section, 1}, {2*section + section/2, 2}, {DefaultPatches, 5}} {
		files, err := parse(strings.NewReader(raw.String()), nil, tc.budget)
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range files {
			p := f.Patch()
			if want := i < tc.kept; (p != nil) != want {
				t.Errorf("budget %d: %s kept %v, want %v", tc.budget, f.Path, p != nil, want)
			}
			if p != nil && (len(p) != section || cap(p) != len(p)) {
				t.Errorf("budget %d: %s's patch is %d bytes of %d held, want %d of %d", tc.budget, f.Path, len(p), cap(p), section, section)
			}
		}
	}
}
