package e2e

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/reviewdev/review/review/reviewtest"
)

// BenchmarkProcessUnitsCPU reviews the generated 3,000-file change at a 10k
// window (676 units), capped at 320 and at 640 units, in sequence (--jobs 1) and side
// by side (--jobs 4), with the built binary against a scripted server that
// answers at once: each unit reads once and then, at --max-steps 1, is
// asked for its review. It reports the CPU time (user and system) of each
// setting, the least of three runs, and holds the two ratios that say CPU is linear in units whatever
// --jobs: 640 units cost at most 2.2 times the CPU of 320 at --jobs 4, and
// --jobs 4 at most 1.3 times the CPU of --jobs 1 for 640 units.
//
//	go test -run '^$' -bench ProcessUnitsCPU -benchtime 1x ./internal/e2e
func BenchmarkProcessUnitsCPU(b *testing.B) {
	script, err := reviewtest.ParseScript([]byte(`{"steps": [],
		"fallback": {"tool_calls": [{"name": "read_file_hunk", "arguments": {"path": "internal/auth/a00005.go", "start_line": 1, "end_line": 20}}]},
		"forced": {"tool_calls": [{"name": "submit_review", "arguments": {"summary": "Fine.", "findings": []}}]}}`))
	if err != nil {
		b.Fatal(err)
	}
	env := benchEnv(b)
	dir := b.TempDir()
	if err := reviewtest.GenerateRepo(dir, 3000, 0, env); err != nil {
		b.Fatal(err)
	}
	bin := reviewBinary(b)
	// cpu runs one review and returns its CPU time.
	cpu := func(units, jobs int) time.Duration {
		srv := reviewtest.NewServer(script, "")
		defer srv.Close()
		args := []string{"--base", "main", "--format", "json", "--max-steps", "1", "--model", "gpt-4o", "--context-window", "10000",
			"--prompt-budget", "0", "--max-units", fmt.Sprint(units), "--jobs", fmt.Sprint(jobs)}
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Env = append(slices.Clone(env), "OPENAI_BASE_URL="+srv.URL, "REVIEW_STORE="+filepath.Join(b.TempDir(), "store"))
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("review %v: %v\n%s", args, err, out)
		}
		if n := len(srv.Requests()); n < 2*units {
			b.Fatalf("%d units: %d requests, want %d", units, n, 2*units)
		}
		return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	// least is the least CPU time of three runs: a run's CPU time on a
	// shared machine varies by a tenth or more between runs of the same
	// review (6.1 to 8.6 s for 640 units), which a ratio of two single
	// runs doubles; the least is the review's own cost.
	least := func(units, jobs int) time.Duration {
		return min(cpu(units, jobs), cpu(units, jobs), cpu(units, jobs))
	}
	for b.Loop() {
		c320, c640 := least(320, 4), least(640, 4)
		s640 := least(640, 1)
		b.ReportMetric(c320.Seconds(), "cpu-s-320-jobs4")
		b.ReportMetric(c640.Seconds(), "cpu-s-640-jobs4")
		b.ReportMetric(s640.Seconds(), "cpu-s-640-jobs1")
		units, jobs := c640.Seconds()/c320.Seconds(), c640.Seconds()/s640.Seconds()
		b.ReportMetric(units, "640/320")
		b.ReportMetric(jobs, "jobs4/jobs1")
		if units > 2.2 {
			b.Errorf("640 units took %v of CPU at --jobs 4, 320 took %v: %.2f times, more than 2.2", c640, c320, units)
		}
		if jobs > 1.3 {
			b.Errorf("640 units took %v of CPU at --jobs 4, %v at --jobs 1: %.2f times, more than 1.3", c640, s640, jobs)
		}
	}
}
