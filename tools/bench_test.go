package tools

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reviewdev/review/internal/text"
)

// The benchmark repository: 13,000 Go-like files of 0.5 to 10 KB (about
// moby/moby's count), one of them 21,000 lines long, committed with git
// fast-import and checked out, as a developer's clone is.
const (
	benchFiles   = 13000
	benchBigFile = "pkg042/generated_big.go"
	benchBigLine = 21000
)

// benchPatterns are searched in full scans: a rare identifier (3 files),
// and a pattern that starts with a class, which gets no literal
// acceleration in either engine.
var benchPatterns = []struct{ name, re string }{
	{"rare", `sanitizeRepoAndTags`},
	{"class", `[0-9]+ \* [a-z]+Count`},
}

// buildBenchRepo writes the repository under dir and returns its root,
// head commit and size in bytes.
func buildBenchRepo(b *testing.B, dir string) (root, head string, size int64) {
	b.Helper()
	root = filepath.Join(dir, "repo")
	git := func(stdin func(*bufio.Writer), args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		var out strings.Builder
		cmd.Stdout = &out
		if stdin != nil {
			w, err := cmd.StdinPipe()
			if err != nil {
				b.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			bw := bufio.NewWriterSize(w, 1<<20)
			stdin(bw)
			if err := bw.Flush(); err != nil {
				b.Fatal(err)
			}
			w.Close()
			if err := cmd.Wait(); err != nil {
				b.Fatalf("git %s: %v: %s", args[0], err, stderr.String())
			}
		} else if err := cmd.Run(); err != nil {
			b.Fatalf("git %s: %v: %s", args[0], err, stderr.String())
		}
		return strings.TrimSpace(out.String())
	}
	if out, err := exec.Command("git", "init", "-q", "-b", "main", root).CombinedOutput(); err != nil {
		b.Fatalf("git init: %v: %s", err, out)
	}
	git(func(w *bufio.Writer) {
		rng := rand.New(rand.NewPCG(20, 13000))
		for i := range benchFiles {
			content := benchSource(rng, i)
			if i == 4242 {
				content = benchBig()
			}
			size += int64(len(content))
			fmt.Fprintf(w, "blob\nmark :%d\ndata %d\n%s\n", i+1, len(content), content)
		}
		fmt.Fprintf(w, "commit refs/heads/main\ncommitter Bench <bench@example.com> 1700000000 +0000\ndata 5\nbench\n")
		for i := range benchFiles {
			fmt.Fprintf(w, "M 100644 :%d %s\n", i+1, benchPath(i))
		}
		w.WriteString("\n")
	}, "fast-import", "--quiet")
	git(nil, "reset", "-q", "--hard")
	return root, git(nil, "rev-parse", "HEAD"), size
}

func benchPath(i int) string {
	if i == 4242 {
		return benchBigFile
	}
	return fmt.Sprintf("pkg%03d/sub%d/file%05d.go", i/100, i%4, i)
}

// benchSource generates a Go-like file of 1 to 20 functions; three files
// hold the rare identifier, one in 89 the class pattern.
func benchSource(rng *rand.Rand, i int) string {
	words := []string{"user", "order", "item", "cache", "request", "value", "count", "index", "buffer", "token", "client", "server"}
	w := func() string { return words[rng.IntN(len(words))] }
	var b strings.Builder
	fmt.Fprintf(&b, "package pkg%03d\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\n", i/100)
	for f := range 1 + rng.IntN(20) {
		name := strings.ToUpper(w()[:1]) + w()[1:] + strings.ToUpper(w()[:1]) + w()[1:]
		if f == 0 && (i == 100 || i == 6000 || i == 12999) {
			name = "sanitizeRepoAndTags"
		}
		fmt.Fprintf(&b, "// %s %s the %s of a %s.\nfunc %s(%s string, %s int) (string, error) {\n", name, w(), w(), w(), name, w(), w()+"N")
		for range 4 {
			fmt.Fprintf(&b, "\tif %sN > %d {\n\t\treturn fmt.Sprintf(\"%%s-%%d\", strings.ToUpper(%s), %d), nil\n\t}\n", w(), rng.IntN(1000), w(), rng.IntN(100))
		}
		if f == 0 && i%89 == 0 {
			fmt.Fprintf(&b, "\ttotal := %d * itemCount\n\t_ = total\n", rng.IntN(50))
		}
		b.WriteString("\treturn \"\", nil\n}\n\n")
	}
	return b.String()
}

// benchBig is a 21,000-line generated file.
func benchBig() string {
	var b strings.Builder
	b.WriteString("package pkg042\n\n")
	for i := 3; i <= benchBigLine; i++ {
		fmt.Fprintf(&b, "var table%05d = []int{%d, %d, %d} // generated\n", i, i, i*7, i*13)
	}
	return b.String()
}

// BenchmarkRepo13k measures the repository tools against git on the
// 13,000-file repository, each next to what a developer would run:
// search_in_project against git grep in the work tree and at the commit,
// read_file_hunk against git cat-file, list_project_files against git
// ls-tree. "cold" runs on a fresh tool set, as the first call of a review
// does (resolving the head, listing the tree); "warm" on the set of a run
// that has made one call already. The repository is built once, under
// b.TempDir().
func BenchmarkRepo13k(b *testing.B) {
	root, head, size := buildBenchRepo(b, b.TempDir())
	ctx := context.Background()
	// tool times calls of one tool on a set made fresh for each call
	// (cold), on one set after a first call (warm), or on a set made as a
	// review makes it, its listing read in the background (Warm) before
	// the call, as it is while the first model request is out (review).
	tool := func(b *testing.B, name, args, mode string) string {
		fresh := func() *Set {
			if mode == "review" {
				s := New(Env{Root: root, Head: head, Resolved: true, Checkout: head})
				s.Warm()
				s.warmed(ctx)
				return s
			}
			return New(Env{Root: root, Head: head})
		}
		s := fresh()
		defer func() { s.Close() }()
		if mode == "warm" {
			s.Call(ctx, name, args)
		}
		var out string
		cpu := cpuTime()
		for b.Loop() {
			if mode != "warm" {
				b.StopTimer()
				s.Close()
				s = fresh()
				b.StartTimer()
			}
			res := s.Call(ctx, name, args)
			if res.IsError {
				b.Fatal(res.Output)
			}
			out = res.Output
		}
		b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		return out
	}
	gitCmd := func(b *testing.B, args ...string) string {
		var out []byte
		cpu := cpuTime()
		for b.Loop() {
			var err error
			cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
			if out, err = cmd.Output(); err != nil {
				b.Fatalf("git %s: %v", strings.Join(args, " "), err)
			}
		}
		b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		return string(out)
	}
	for _, p := range benchPatterns {
		args := fmt.Sprintf(`{"pattern": %s, "max_results": 500}`, text.QuoteJSON(p.re))
		matches := func(b *testing.B, out string) {
			b.SetBytes(size)
			b.ReportMetric(float64(strings.Count(out, ".go:")), "matches")
		}
		b.Run("search/"+p.name+"/cold", func(b *testing.B) { matches(b, tool(b, "search_in_project", args, "cold")) })
		b.Run("search/"+p.name+"/warm", func(b *testing.B) { matches(b, tool(b, "search_in_project", args, "warm")) })
		b.Run("search/"+p.name+"/review", func(b *testing.B) { matches(b, tool(b, "search_in_project", args, "review")) })
		b.Run("search/"+p.name+"/git-grep-worktree", func(b *testing.B) {
			matches(b, gitCmd(b, "grep", "-n", "-I", "-E", p.re))
		})
		b.Run("search/"+p.name+"/git-grep-commit", func(b *testing.B) {
			matches(b, gitCmd(b, "grep", "-n", "-I", "-E", p.re, head))
		})
	}
	read := fmt.Sprintf(`{"path": %q, "start_line": 10400, "end_line": 10600}`, benchBigFile)
	b.Run("read/cold", func(b *testing.B) { tool(b, "read_file_hunk", read, "cold") })
	b.Run("read/warm", func(b *testing.B) { tool(b, "read_file_hunk", read, "warm") })
	b.Run("read/git-cat-file", func(b *testing.B) { gitCmd(b, "cat-file", "blob", head+":"+benchBigFile) })
	list := `{"limit": 1000}`
	b.Run("list/cold", func(b *testing.B) { tool(b, "list_project_files", list, "cold") })
	b.Run("list/warm", func(b *testing.B) { tool(b, "list_project_files", list, "warm") })
	// What Warm reads in the background at the start of a review.
	b.Run("warm-up", func(b *testing.B) {
		for b.Loop() {
			s := New(Env{Root: root, Head: head, Resolved: true, Checkout: head})
			s.Warm()
			s.warmed(ctx)
			s.Close()
		}
	})
	b.Run("list/git-ls-tree", func(b *testing.B) { gitCmd(b, "ls-tree", "-r", "-l", head) })
}
