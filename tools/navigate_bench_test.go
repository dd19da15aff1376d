package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reviewdev/review/internal/text"
)

// BenchmarkFindReferences times find_references against git grep -w of
// the same name at the same revision, on three repositories: this one
// (its HEAD), cobra v1.10.2's root package (tools/symbols/testdata/cobra,
// committed to a temporary repository) and the generated 13,000-file
// repository of BenchmarkRepo13k. "cold" is the first question of a run:
// a fresh tool set lists the head, reads every source file and parses
// those holding the name; "warm" asks again a run that has its index.
// git grep runs in the work tree and at the commit, as a developer would.
//
//	go test ./tools -run '^$' -bench FindReferences -benchtime 5x -count 3
func BenchmarkFindReferences(b *testing.B) {
	self, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		b.Skip("not in a git work tree:", err)
	}
	cobra := commitDir(b, filepath.Join("symbols", "testdata", "cobra"))
	big, _, _ := buildBenchRepo(b, b.TempDir())
	for _, r := range []struct {
		name, root string
		symbols    []string
	}{
		{"self", strings.TrimSpace(string(self)), []string{"Env.Root", "Prepare"}},
		{"cobra", cobra, []string{"Command.Name", "ShellCompDirective"}},
		{"13k", big, []string{"sanitizeRepoAndTags"}},
	} {
		head := strings.TrimSpace(gitOut(b, r.root, "rev-parse", "HEAD"))
		for _, sym := range r.symbols {
			name := sym[strings.LastIndexByte(sym, '.')+1:]
			args := fmt.Sprintf(`{"symbol": %s}`, text.QuoteJSON(sym))
			run := func(b *testing.B, warm bool) {
				s := New(Env{Root: r.root, Head: head, Resolved: true, Checkout: head})
				defer func() { s.Close() }()
				if warm {
					s.Call(context.Background(), "find_references", args)
				}
				var out string
				for b.Loop() {
					if !warm {
						b.StopTimer()
						s.Close()
						s = New(Env{Root: r.root, Head: head, Resolved: true, Checkout: head})
						b.StartTimer()
					}
					res := s.Call(context.Background(), "find_references", args)
					if res.IsError {
						b.Fatal(res.Output)
					}
					out = res.Output
				}
				b.ReportMetric(float64(strings.Count(out, "\n")), "lines")
			}
			grep := func(b *testing.B, rev ...string) {
				var out string
				for b.Loop() {
					out = gitOut(b, r.root, append([]string{"grep", "-n", "-w", "-I", name}, rev...)...)
				}
				b.ReportMetric(float64(strings.Count(out, "\n")), "lines")
			}
			b.Run(r.name+"/"+sym+"/cold", func(b *testing.B) { run(b, false) })
			b.Run(r.name+"/"+sym+"/warm", func(b *testing.B) { run(b, true) })
			b.Run(r.name+"/"+sym+"/git-grep-worktree", func(b *testing.B) { grep(b) })
			b.Run(r.name+"/"+sym+"/git-grep-commit", func(b *testing.B) { grep(b, head) })
		}
	}
}

// commitDir copies a directory of the repository into a new repository
// under a temporary directory, commits it, and returns its root.
func commitDir(b *testing.B, dir string) string {
	root := filepath.Join(b.TempDir(), "repo")
	if err := os.CopyFS(root, os.DirFS(dir)); err != nil {
		b.Fatal(err)
	}
	gitOut(b, root, "init", "-q", "-b", "main")
	gitOut(b, root, "add", "-A")
	gitOut(b, root, "-c", "user.name=Bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "fixture")
	return root
}

func gitOut(b *testing.B, dir string, args ...string) string {
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil && !(len(args) > 0 && args[0] == "grep") {
		b.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}
