package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reviewdev/review/internal/gittest"
	"github.com/reviewdev/review/review/reviewtest"
)

// BenchmarkProcessJobs reviews changes that take units, in sequence
// (--jobs 1) and side by side (--jobs 4), with the built binary against a
// scripted server that answers every request after a delay
// ($REVIEW_BENCH_DELAY, default 500ms), as a hosted model does: each unit
// explores once and then, at --max-steps 1, is asked for its review. It
// reports the wall time, the requests, the answer-waits in sequence
// (reviewtest.Overlap), the bytes sent and the review's peak RSS. The
// changes: 12 files of 60 new lines at a 16k window, 40 files of 300 new
// lines at 32k, and the generated 3,000-file change at the default
// window and caps. `.ci/jobs` prints the table docs/performance.md
// quotes.
func BenchmarkProcessJobs(b *testing.B) {
	delay := "500ms"
	if d := os.Getenv("REVIEW_BENCH_DELAY"); d != "" {
		delay = d
	}
	script, err := reviewtest.ParseScript([]byte(`{"steps": [],
		"fallback": {"delay": "` + delay + `", "tool_calls": [{"name": "get_file_diff", "arguments": {"path": "."}}]},
		"forced": {"delay": "` + delay + `", "tool_calls": [{"name": "submit_review", "arguments": {"summary": "Fine.", "findings": []}}]}}`))
	if err != nil {
		b.Fatal(err)
	}
	changes := []struct {
		name   string
		make   func(b *testing.B, env []string) string
		window string
	}{
		{"12files", func(b *testing.B, env []string) string { return newFilesChange(b, 12, 60) }, "16000"},
		{"40files", func(b *testing.B, env []string) string { return newFilesChange(b, 40, 300) }, "32000"},
		{"3000files", func(b *testing.B, env []string) string {
			dir := b.TempDir()
			if err := reviewtest.GenerateRepo(dir, 3000, 150, env); err != nil {
				b.Fatal(err)
			}
			return dir
		}, ""},
	}
	for _, c := range changes {
		for _, jobs := range []int{1, 4} {
			b.Run(fmt.Sprintf("%s/jobs%d", c.name, jobs), func(b *testing.B) {
				env := benchEnv(b)
				dir := c.make(b, env)
				reviewBinary(b)
				args := []string{"--base", "main", "--format", "json", "--max-steps", "1", "--jobs", fmt.Sprint(jobs)}
				if c.window != "" {
					args = append(args, "--model", "gpt-4o", "--context-window", c.window)
				}
				var walls []time.Duration
				var rss int64
				var requests, bytes, waits int
				b.ResetTimer()
				for range b.N {
					srv := reviewtest.NewServer(script, "")
					cmd, peak := measured(b, args...)
					cmd.Dir = dir
					cmd.Env = append(append(slices.Clone(env), "OPENAI_BASE_URL="+srv.URL, "REVIEW_STORE="+filepath.Join(b.TempDir(), "store")), cmd.Env...)
					start := time.Now()
					out, err := cmd.CombinedOutput()
					walls = append(walls, time.Since(start))
					if err != nil {
						b.Fatalf("review %v: %v\n%s", args, err, out)
					}
					rss = max(rss, peak())
					reqs := srv.Requests()
					srv.Close()
					requests, bytes = len(reqs), 0
					var tms []reviewtest.Timing
					for _, r := range reqs {
						bytes += len(r.Body)
						tms = append(tms, reviewtest.Timing{N: r.N, Arrived: r.Arrived, Answered: r.Answered, Status: r.Status})
					}
					_, waits = reviewtest.Overlap(tms)
				}
				b.StopTimer()
				slices.Sort(walls)
				b.ReportMetric(walls[len(walls)/2].Seconds(), "wall-s")
				b.ReportMetric(float64(requests), "requests")
				b.ReportMetric(float64(waits), "answer-waits")
				b.ReportMetric(float64(bytes)/1000, "sent-kB")
				b.ReportMetric(float64(rss)/1024, "review-RSS-MiB")
			})
		}
	}
}

// newFilesChange makes a repository whose branch adds n Go files of lines
// one-line functions each, and returns its directory.
func newFilesChange(b *testing.B, n, lines int) string {
	files := map[string]string{}
	for i := 1; i <= n; i++ {
		var s strings.Builder
		s.WriteString("package main\n")
		for j := 1; j <= lines; j++ {
			fmt.Fprintf(&s, "func file%02d_%d(x int) int { return x*%d + len(\"file%02d\") }\n", i, j, j, i)
		}
		files[fmt.Sprintf("file%02d.go", i)] = s.String()
	}
	return gittest.Change(b, map[string]string{"main.go": "package main\n\nfunc main() {}\n"}, files)
}
