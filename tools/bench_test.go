package tools

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The 20k-file benchmark repository: built once per test binary with git
// fast-import (one pack, as a cloned repository has), removed by TestMain.
const benchFiles = 20000

var (
	benchOnce sync.Once
	benchRoot string
	benchHead string
	benchSize int64
	benchErr  error
	benchDir  string
)

// benchPatterns are searched by both benchmarks: a selective pattern with a
// literal prefix, and one that starts with a class, which gets no literal
// prefix acceleration in either engine.
var benchPatterns = []struct{ name, re string }{
	{"literal", `func Handle[A-Za-z]+Request\(`},
	{"class", `[0-9]+ \* [a-z]+Count`},
}

func benchRepo(b *testing.B) (root, head string) {
	b.Helper()
	benchOnce.Do(func() { benchErr = buildBenchRepo() })
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchRoot, benchHead
}

func buildBenchRepo() error {
	dir, err := os.MkdirTemp("", "tools-bench-")
	if err != nil {
		return err
	}
	benchDir = dir
	benchRoot = filepath.Join(dir, "repo")
	if out, err := exec.Command("git", "init", "-q", "-b", "main", benchRoot).CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v: %s", err, out)
	}
	cmd := exec.Command("git", "-C", benchRoot, "fast-import", "--quiet")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	w := bufio.NewWriterSize(stdin, 1<<20)
	rng := rand.New(rand.NewPCG(20, 20000))
	paths := make([]string, benchFiles)
	for i := range benchFiles {
		content := benchSource(rng, i)
		benchSize += int64(len(content))
		paths[i] = fmt.Sprintf("pkg%03d/file%03d.go", i/100, i%100)
		fmt.Fprintf(w, "blob\nmark :%d\ndata %d\n%s\n", i+1, len(content), content)
	}
	fmt.Fprintf(w, "commit refs/heads/main\ncommitter Bench <bench@example.com> 1700000000 +0000\ndata 5\nbench\n")
	for i, p := range paths {
		fmt.Fprintf(w, "M 100644 :%d %s\n", i+1, p)
	}
	w.WriteString("\n")
	if err := w.Flush(); err != nil {
		return err
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git fast-import: %v: %s", err, stderr.String())
	}
	out, err := exec.Command("git", "-C", benchRoot, "rev-parse", "HEAD").Output()
	if err != nil {
		return fmt.Errorf("git rev-parse: %v", err)
	}
	benchHead = strings.TrimSpace(string(out))
	return nil
}

// benchSource generates a Go-like file of about 2 KB; one file in 97 holds
// a match of the literal pattern, one in 89 of the class pattern.
func benchSource(rng *rand.Rand, i int) string {
	words := []string{"user", "order", "item", "cache", "request", "value", "count", "index", "buffer", "token", "client", "server"}
	w := func() string { return words[rng.IntN(len(words))] }
	var b strings.Builder
	fmt.Fprintf(&b, "package pkg%03d\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\n", i/100)
	for f := range 6 {
		name := strings.ToUpper(w()[:1]) + w()[1:] + strings.ToUpper(w()[:1]) + w()[1:]
		if f == 0 && i%97 == 0 {
			name = "HandleUserRequest"
		}
		fmt.Fprintf(&b, "// %s %s the %s of a %s.\nfunc %s(%s string, %s int) (string, error) {\n", name, w(), w(), w(), name, w(), w()+"N")
		for range 4 {
			fmt.Fprintf(&b, "\tif %sN > %d {\n\t\treturn fmt.Sprintf(\"%%s-%%d\", strings.ToUpper(%s), %d), nil\n\t}\n", w(), rng.IntN(1000), w(), rng.IntN(100))
		}
		if f == 1 && i%89 == 0 {
			fmt.Fprintf(&b, "\ttotal := %d * itemCount\n\t_ = total\n", rng.IntN(50))
		}
		b.WriteString("\treturn \"\", nil\n}\n\n")
	}
	return b.String()
}

// BenchmarkSearch20k runs search_in_project over 20,000 files at head,
// with a fresh Set each time so that the tree listing is included.
func BenchmarkSearch20k(b *testing.B) {
	root, head := benchRepo(b)
	for _, p := range benchPatterns {
		b.Run(p.name, func(b *testing.B) {
			args := fmt.Sprintf(`{"pattern": %s, "max_results": 500}`, quoteJSON(p.re))
			b.SetBytes(benchSize)
			var matches int
			cpu := cpuTime()
			for b.Loop() {
				s := New(Env{Root: root, Head: head})
				res := s.Call(context.Background(), "search_in_project", args)
				if res.IsError {
					b.Fatal(res.Output)
				}
				matches = strings.Count(res.Output, ".go:")
			}
			b.ReportMetric(float64((cpuTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(matches), "matches")
			b.ReportMetric(benchFiles, "files")
		})
	}
}

// BenchmarkGitGrep20k runs git grep for the same patterns over the same
// tree, the reference search_in_project is measured against.
func BenchmarkGitGrep20k(b *testing.B) {
	root, head := benchRepo(b)
	for _, p := range benchPatterns {
		b.Run(p.name, func(b *testing.B) {
			b.SetBytes(benchSize)
			var matches int
			cpu := cpuTime()
			for b.Loop() {
				out, err := exec.Command("git", "-C", root, "grep", "-n", "-I", "-E", p.re, head).Output()
				if err != nil {
					b.Fatalf("git grep: %v", err)
				}
				matches = strings.Count(string(out), "\n")
			}
			b.ReportMetric(float64((cpuTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(matches), "matches")
			b.ReportMetric(benchFiles, "files")
		})
	}
}
