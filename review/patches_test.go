package review

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/gittest"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/tools"
)

// TestPatchesMatchGit holds get_file_diff's answers from the diff
// context's own patches (tools.Env.Patches, as a session hands them) to
// the answers it gives running git: for every path a change names, old
// and new, on changes of every kind a file can have (edits scattered and
// whole, added, deleted, renamed exactly, with edits and in competition
// for one file, copied, mode and
// type changes, binary content, CRLF lines, a missing last newline, paths
// git quotes), with copies detected and not, whole and cut at a bound,
// byte for byte. It also counts
// the answers taken from the patches, so that a change that stops using
// them fails too.
func TestPatchesMatchGit(t *testing.T) {
	gittest.Isolate(t)
	for seed := range 2 {
		r := gittest.New(t)
		rng := rand.New(rand.NewPCG(uint64(seed), 49))
		base, head := patchesChange(rng)
		r.Write(base)
		r.Git("add", "-A")
		r.Git("update-index", "--chmod=+x", "tool.sh")
		r.Commit("base")
		r.Git("checkout", "-q", "-b", "feature")
		for name := range base {
			if _, ok := head[name]; !ok {
				r.Git("rm", "-q", "--", name)
			}
		}
		r.Write(head)
		r.Git("add", "-A")
		r.Git("update-index", "--chmod=-x", "tool.sh")
		r.Commit("change")
		for _, copies := range []bool{false, true} {
			t.Run(fmt.Sprintf("seed %d, copies %v", seed, copies), func(t *testing.T) {
				ctx := context.Background()
				d, err := diffctx.Load(ctx, diffctx.Options{Dir: r.Dir, Base: "main", FindCopies: copies, Patches: diffctx.DefaultPatches})
				if err != nil {
					t.Fatal(err)
				}
				env := tools.Env{Root: d.Root, Head: d.HeadSHA, Base: d.MergeBase, Resolved: true, FindCopies: copies}
				fromGit := tools.New(env)
				env.Patches = patches(d)
				fromPatches := tools.New(env)
				// Cut alike where an output passes its bound.
				env.MaxBytes = 300
				cutFromPatches := tools.New(env)
				env.Patches = nil
				cutFromGit := tools.New(env)
				statuses := map[diffctx.Status]int{}
				for _, f := range d.Files {
					for _, p := range []string{f.Path, f.OldPath} {
						if p == "" {
							continue
						}
						args := `{"path": ` + text.QuoteJSON(p) + `}`
						want, got := fromGit.Call(ctx, "get_file_diff", args), fromPatches.Call(ctx, "get_file_diff", args)
						if got != want {
							t.Errorf("get_file_diff %s (%s) from the patches:\n%+v\nfrom git:\n%+v", p, f.Status, got, want)
						}
						want, got = cutFromGit.Call(ctx, "get_file_diff", args), cutFromPatches.Call(ctx, "get_file_diff", args)
						if got != want {
							t.Errorf("get_file_diff %s (%s) within 300 bytes, from the patches:\n%+v\nfrom git:\n%+v", p, f.Status, got, want)
						}
					}
					if f.Patch() != nil && !f.TypeChange && f.Status != diffctx.Copied {
						statuses[f.Status]++
					}
				}
				if statuses[diffctx.Modified] < 5 || statuses[diffctx.Added] < 2 || statuses[diffctx.Deleted] < 1 || statuses[diffctx.Renamed] < 3 {
					t.Errorf("the change answered from its patches %v files modified, added, deleted and renamed; want at least 5, 2, 1 and 3", statuses)
				}
			})
		}
	}
}

// patchesChange returns a base and a head of many kinds of change, drawn
// from rng.
func patchesChange(rng *rand.Rand) (base, head map[string]string) {
	base, head = map[string]string{}, map[string]string{}
	body := func(n int, tag string) []string {
		ls := make([]string, n)
		for i := range ls {
			ls[i] = fmt.Sprintf("line %d of %s: %d", i, tag, rng.IntN(1000))
		}
		return ls
	}
	join := func(ls []string) string { return strings.Join(ls, "\n") + "\n" }
	edit := func(ls []string) []string {
		out := append([]string(nil), ls...)
		for range 1 + rng.IntN(6) {
			i := rng.IntN(len(out))
			switch rng.IntN(3) {
			case 0:
				out[i] += " // edited"
			case 1:
				out = append(out[:i], out[i+1:]...)
			default:
				out = append(out[:i], append([]string{"inserted"}, out[i:]...)...)
			}
		}
		return out
	}
	names := []string{"a.go", "pkg/b.go", "pkg/deep/c.txt", "ünïcödé.txt", "with space.md", `quote"d.txt`, "tab\tname.txt", "docs/d.md"}
	for _, n := range names {
		ls := body(20+rng.IntN(60), n)
		base[n] = join(ls)
		head[n] = join(edit(ls))
	}
	// Whole-file rewrites, a missing last newline, CRLF lines.
	base["rewrite.txt"], head["rewrite.txt"] = join(body(30, "old")), join(body(25, "new"))
	base["nonl.txt"], head["nonl.txt"] = "one\ntwo", "one\ntwo\nthree"
	base["crlf.txt"], head["crlf.txt"] = "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n"
	// Added and deleted files, one of them empty.
	head["new/added.go"] = join(body(15, "added"))
	head["new/empty.txt"] = ""
	base["gone.txt"] = join(body(12, "gone"))
	// Renamed as is and with edits; copied with edits (a copy only when
	// copies are detected: its source is modified).
	moved := body(40, "moved")
	base["old/moved.go"], head["new/moved.go"] = join(moved), join(moved)
	renamed := body(40, "renamed")
	base["old/renamed.go"], head["new/renamed.go"] = join(renamed), join(edit(renamed))
	src := body(50, "source")
	base["src.go"] = join(src)
	head["src.go"], head["src_copy.go"] = join(append(src, "more")), join(edit(src))
	// Renames that compete: two deleted files like one added file, and a
	// deleted file like two added ones.
	twin := body(30, "twin")
	base["twins/one.txt"], base["twins/two.txt"] = join(twin), join(edit(twin))
	head["twins/joined.txt"] = join(edit(twin))
	single := body(30, "single")
	base["split/whole.txt"] = join(single)
	head["split/left.txt"], head["split/right.txt"] = join(edit(single)), join(edit(single))
	// Binary content, a mode change and a change of type.
	base["blob.bin"], head["blob.bin"] = "\x00\x01\x02bin", "\x00\x01\x03bin"
	base["tool.sh"] = "#!/bin/sh\necho hi\n"
	head["tool.sh"] = base["tool.sh"]
	base["link"], head["link"] = "a plain file\n", "symlink:a.go"
	return base, head
}

// TestPatchesSparedGit holds that a session's file diff of a modified
// file is answered from its patches: with git's objects gone, the diff
// context's answer still comes, where git's fails.
func TestPatchesSparedGit(t *testing.T) {
	dir := gittest.Change(t, map[string]string{"a.go": "package a\n\nvar x = 1\n"}, map[string]string{"a.go": "package a\n\nvar x = 2\n"})
	ctx := context.Background()
	d, err := diffctx.Load(ctx, diffctx.Options{Dir: dir, Base: "main", Patches: diffctx.DefaultPatches})
	if err != nil {
		t.Fatal(err)
	}
	env := tools.Env{Root: d.Root, Head: d.HeadSHA, Base: d.MergeBase, Resolved: true}
	fromGit := tools.New(env)
	env.Patches = patches(d)
	fromPatches := tools.New(env)
	// The list of changes is read before the objects go.
	args := `{"path": "."}`
	if r := fromPatches.Call(ctx, "get_file_diff", args); r.IsError {
		t.Fatal(r.Output)
	}
	if r := fromGit.Call(ctx, "get_file_diff", args); r.IsError {
		t.Fatal(r.Output)
	}
	if err := os.RemoveAll(filepath.Join(dir, ".git", "objects")); err != nil {
		t.Fatal(err)
	}
	args = `{"path": "a.go"}`
	if r := fromPatches.Call(ctx, "get_file_diff", args); r.IsError || !strings.Contains(r.Output, "-var x = 1\n+var x = 2\n") {
		t.Errorf("from the patches: %+v", r)
	}
	if r := fromGit.Call(ctx, "get_file_diff", args); !r.IsError {
		t.Errorf("from git, with its objects gone: %+v", r)
	}
}
