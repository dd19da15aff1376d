package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reviewdev/review/internal/gittest"
	"github.com/reviewdev/review/internal/redact/redacttest"
	"github.com/reviewdev/review/review/record"
	"github.com/reviewdev/review/review/reviewtest"
	"github.com/reviewdev/review/review/scripttest"
	"github.com/reviewdev/review/toolmem"
)

// The benchmarks below measure the review binary as a user runs it: a
// whole process, built as `go build` builds it, started once per
// iteration. They report the median wall time and the peak resident set
// size of the process (its own, not the benchmark's), so `.ci/bench` can
// print them next to the in-process figures.

// measured is a command that runs the review binary with args from
// peakrss, so that its peak RSS is its own and not this process's (see
// peakrss); peak reads the peak, in KiB, once it has run.
func measured(b *testing.B, args ...string) (cmd *exec.Cmd, peak func() int64) {
	bin := reviewBinary(b)
	out := filepath.Join(b.TempDir(), "peakrss")
	cmd = exec.Command(rssPath, append([]string{bin}, args...)...)
	cmd.Env = []string{"PEAKRSS_OUT=" + out}
	return cmd, func() int64 {
		data, err := os.ReadFile(out)
		var kib int64
		if err == nil {
			_, err = fmt.Sscanf(string(data), "peakrss %d", &kib)
		}
		if err != nil {
			b.Fatalf("reading the peak RSS: %v", err)
		}
		return kib
	}
}

// benchEnv is an environment isolated from the machine's git and user
// configuration, with no API key.
func benchEnv(b *testing.B, extra ...string) []string {
	home := b.TempDir()
	cfg := filepath.Join(home, ".gitconfig")
	if err := os.WriteFile(cfg, []byte("[user]\n\tname = Bench\n\temail = bench@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"GIT_CONFIG_GLOBAL=" + cfg, "GIT_CONFIG_NOSYSTEM=1", "TMPDIR=" + os.TempDir()}
	return append(env, extra...)
}

// smallChange makes a repository whose branch changes three lines of one
// file, and returns its directory.
func smallChange(b *testing.B) string { return smallChangeIn(b, "main.go") }

// smallChangeIn is smallChange with the file named name.
func smallChangeIn(b *testing.B, name string) string {
	var src strings.Builder
	src.WriteString("package main\n\nimport \"fmt\"\n\n")
	for i := range 40 {
		fmt.Fprintf(&src, "func f%d(x int) int { return x + %d }\n", i, i)
	}
	src.WriteString("\nfunc main() { fmt.Println(f1(1)) }\n")
	changed := strings.Replace(src.String(), "return x + 1 }", "return x - 1 }", 1)
	changed = strings.Replace(changed, "return x + 2 }", "return x * 2 }", 1)
	changed = strings.Replace(changed, "fmt.Println(f1(1))", "fmt.Println(f1(1), f2(2))", 1)
	return gittest.Change(b, map[string]string{name: src.String()}, map[string]string{name: changed})
}

// hugeChange makes a repository whose branch changes 100,000 lines: 1,000
// files of 100 lines, each line modified, committed with fast-import.
func hugeChange(b *testing.B, env []string) string {
	dir := filepath.Join(b.TempDir(), "repo")
	var s bytes.Buffer
	commit := func(ref, msg, from string, variant int) {
		fmt.Fprintf(&s, "commit %s\ncommitter Bench <bench@example.com> 1767225600 +0000\ndata %d\n%s\n", ref, len(msg), msg)
		if from != "" {
			fmt.Fprintf(&s, "from %s\n", from)
		}
		for i := range 1000 {
			var f strings.Builder
			fmt.Fprintf(&f, "package p%d\n", i%50)
			for k := range 99 {
				fmt.Fprintf(&f, "func F%d_%d(x int) int { return x*%d + %d }\n", i, k, k, variant)
			}
			fmt.Fprintf(&s, "M 100644 inline pkg%02d/f%04d.go\ndata %d\n%s\n", i%50, i, f.Len(), f.String())
		}
	}
	commit("refs/heads/main", "base", "", 0)
	commit("refs/heads/feature", "change", "refs/heads/main", 1)
	for _, args := range [][]string{{"init", "-q", "-b", "main", dir}, {"-C", dir, "fast-import", "--quiet"}, {"-C", dir, "symbolic-ref", "HEAD", "refs/heads/feature"}} {
		cmd := exec.Command("git", args...)
		cmd.Env = env
		if args[2] == "fast-import" {
			cmd.Stdin = &s
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// runProcess starts the binary b.N times and reports the median wall time
// and the largest peak RSS. before, if set, runs untimed before each start.
func runProcess(b *testing.B, dir string, env []string, before func() []string, args ...string) {
	var walls []time.Duration
	var rss int64
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		e := env
		if before != nil {
			e = append(slices.Clone(env), before()...)
		}
		cmd, peak := measured(b, args...)
		cmd.Dir, cmd.Env = dir, append(e, cmd.Env...)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = nil, &stderr
		b.StartTimer()
		start := time.Now()
		err := cmd.Run()
		walls = append(walls, time.Since(start))
		if err != nil {
			b.Fatalf("review %v: %v\n%s", args, err, stderr.String())
		}
		rss = max(rss, peak())
	}
	b.StopTimer()
	slices.Sort(walls)
	b.ReportMetric(float64(walls[len(walls)/2].Microseconds())/1000, "median-ms")
	// The slowest start too: one in a row of starts may do more (a
	// close that merges the store's level 0, in an aged store).
	b.ReportMetric(float64(walls[len(walls)-1].Microseconds())/1000, "max-ms")
	b.ReportMetric(float64(rss)/1024, "peak-RSS-MiB")
}

// fourRequests is a scripted review of four requests: three tool calls,
// then the submission.
const fourRequests = `[
  {"tool_calls": [{"name": "read_file_hunk", "arguments": {"path": "main.go", "start_line": 1, "end_line": 20}}]},
  {"tool_calls": [{"name": "search_in_project", "arguments": {"pattern": "f1\\("}}]},
  {"tool_calls": [{"name": "list_project_files", "arguments": {}}]},
  {"tool_calls": [{"name": "submit_review", "arguments": {"summary": "Fine.", "findings": []}}]}
]`

// BenchmarkProcessReview is a whole `review --base main` of a three-line
// change against a scripted, zero-latency OpenAI-compatible server: four
// requests over real HTTP, a real store, real git. Answers stream, as by
// default; the stream=false runs read them whole, to measure what
// streaming costs.
func BenchmarkProcessReview(b *testing.B) {
	for _, run := range []struct{ tok, stream string }{{"tiktoken", "true"}, {"estimate", "true"}, {"estimate", "false"}} {
		tok := run.tok
		name := tok
		if run.stream == "false" {
			name += "/stream=false"
		}
		b.Run(name, func(b *testing.B) {
			env := benchEnv(b)
			dir := smallChange(b)
			runProcess(b, dir, env, freshServer(b, fourRequests), "--base", "main", "--tokenizer", tok, "--format", "json", "--stream="+run.stream)
		})
	}
}

// freshServer returns, for runProcess, a function that starts a scripted
// server for each start (closing the one before) and returns the
// environment pointing the review at it, with extra.
func freshServer(b *testing.B, script string, extra ...string) func() []string {
	sc, err := reviewtest.ParseScript([]byte(script))
	if err != nil {
		b.Fatal(err)
	}
	var srv *reviewtest.Server
	b.Cleanup(func() {
		if srv != nil {
			srv.Close()
		}
	})
	return func() []string {
		if srv != nil {
			srv.Close()
		}
		srv = reviewtest.NewServer(sc, "")
		return append([]string{"OPENAI_BASE_URL=" + srv.URL}, extra...)
	}
}

// BenchmarkProcessReviewAged is the review of BenchmarkProcessReview in a
// repository whose store already holds 300 reviews, each written in an
// open of its own as a review writes it: what a developer's store looks
// like after some weeks, where every start used to read every earlier
// run and map a value log file per review.
//
// REVIEW_AGED sets how many reviews the store holds (300 unless set): at
// 1,300 it is 57 MB, the store of some months of reviews. REVIEW_BASE_BIN
// names a review binary of another revision (`.ci/aged 21x REV` builds
// one): each review is then followed by the same review by it, in a copy
// of the aged store of its own, and reported as base-…
func BenchmarkProcessReviewAged(b *testing.B) {
	env := benchEnv(b)
	dir := smallChange(b)
	store := filepath.Join(b.TempDir(), "store")
	n := 300
	if v := os.Getenv("REVIEW_AGED"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 0 {
			b.Fatalf("REVIEW_AGED=%q: want a number of reviews", v)
		}
	}
	ageStore(b, store, n)
	base := os.Getenv("REVIEW_BASE_BIN")
	if base == "" {
		runProcess(b, dir, env, freshServer(b, fourRequests, "REVIEW_STORE="+store), "--base", "main", "--format", "json")
		return
	}
	baseStore := filepath.Join(b.TempDir(), "base-store")
	if err := os.CopyFS(baseStore, os.DirFS(store)); err != nil {
		b.Fatal(err)
	}
	server := freshServer(b, fourRequests)
	var f, o starts
	for range b.N {
		for _, r := range []struct {
			bin, store string
			into       *starts
		}{{reviewBinary(b), store, &f}, {base, baseStore, &o}} {
			cmd := exec.Command(r.bin, "--base", "main", "--format", "json")
			cmd.Dir = dir
			r.into.add(startTimed(b, cmd, append(append(slices.Clone(env), server()...), "REVIEW_STORE="+r.store)))
		}
	}
	f.report(b, "")
	b.ReportMetric(maxMs(f.walls), "max-ms")
	o.reportBase(b, &f)
	b.ReportMetric(maxMs(o.walls), "base-max-ms")
}

// maxMs is the largest of ws in milliseconds.
func maxMs(ws []time.Duration) float64 { return float64(slices.Max(ws).Microseconds()) / 1000 }

// ageStore writes n reviews of a small change into the store in dir, one
// open each, with the records' sizes of a real one: a 9 KB first request
// and three a little longer, short responses, outputs of 2 KB, a
// conversation of 15 KB. The records go through record.Writer, as a
// review's do: each request after the first is stored as its difference
// from the one before. Each is a review like the one measured (its model,
// its --max-steps, its steps' token counts), so a plan reads them for its
// forecast.
func ageStore(b *testing.B, dir string, n int) {
	line := strings.Repeat("func f(x int) int { return x + 1 }\n", 60)
	for i := range n {
		s, err := toolmem.Open(dir, toolmem.Options{})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Unix(1767225600+int64(60*i), 0)
		run := toolmem.Run{ID: toolmem.NewRunID(start), Model: "gpt-4o-mini", Status: "running", Started: start, Settings: json.RawMessage(`{"tokenizer":"tiktoken","budget":{"max_steps":20}}`)}
		check := func(err error) {
			if err != nil {
				b.Fatal(err)
			}
		}
		check(s.PutRun(run))
		w := record.NewWriter(s, run.ID)
		for k := 1; k <= 4; k++ {
			body, _ := json.Marshal(map[string]any{"model": "gpt-4o-mini", "messages": []map[string]string{{"role": "user", "content": strings.Repeat(line, 4+k)}}})
			_, err := s.Put(run.ID, k, "call", "read_file_hunk", "{}", []byte(line))
			check(err)
			fig := json.RawMessage(fmt.Sprintf(`{"tokens":%d}`, 2500+600*k))
			check(w.Step(toolmem.Step{Run: run.ID, N: k, Turn: 1, Started: start, Request: body, Response: json.RawMessage(`{"id":"x","choices":[]}`), Figures: fig}))
			check(s.AddEvent(run.ID, k, json.RawMessage(`{"kind":"request"}`)))
		}
		conv, _ := json.Marshal([]map[string]string{{"role": "user", "content": strings.Repeat(line, 7)}})
		check(w.Conversation(conv))
		// As a review records its units' costs at its end (the form of
		// review's runCosts): a plan's forecast reads them alone.
		run.Status, run.Ended = "complete", start.Add(time.Second)
		run.Costs = json.RawMessage(`{"max_steps":20,"units":[{"requests":4,"growth":600}]}`)
		check(s.PutRun(run))
		check(s.Close())
	}
}

// BenchmarkProcessDryRun is `review --base main --dry-run` of a three-line
// change, and of a 100,000-changed-line one.
func BenchmarkProcessDryRun(b *testing.B) {
	b.Run("3lines", func(b *testing.B) {
		env := benchEnv(b)
		runProcess(b, smallChange(b), env, nil, "--base", "main", "--dry-run")
	})
	b.Run("100k", func(b *testing.B) {
		env := benchEnv(b)
		runProcess(b, hugeChange(b, env), env, nil, "--base", "main", "--dry-run")
	})
}

// BenchmarkProcessDryRunMinified is `review --base main --dry-run` of a
// minified bundle of 338 KB on one line, added and rebuilt (its line
// replaced: twice the text to scan), with the secret scan and with
// --no-redact, one after the other in each iteration. It reports the
// median wall and CPU time (user and system, git's included) of each and
// their ratios: the scan is held to about twice the dry run without it.
func BenchmarkProcessDryRunMinified(b *testing.B) {
	for _, rebuilt := range []bool{false, true} {
		b.Run(map[bool]string{false: "added", true: "rebuilt"}[rebuilt], func(b *testing.B) {
			env := benchEnv(b)
			dir := minifiedChange(b, env, rebuilt)
			bin := reviewBinary(b)
			var wall, cpu [2][]time.Duration
			b.ResetTimer()
			for range b.N {
				for i, extra := range [][]string{nil, {"--no-redact"}} {
					cmd := exec.Command(bin, append([]string{"--base", "main", "--dry-run"}, extra...)...)
					cmd.Dir, cmd.Env = dir, env
					var stderr bytes.Buffer
					cmd.Stderr = &stderr
					start := time.Now()
					if err := cmd.Run(); err != nil {
						b.Fatalf("review %v: %v\n%s", cmd.Args, err, stderr.String())
					}
					wall[i] = append(wall[i], time.Since(start))
					cpu[i] = append(cpu[i], cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
				}
			}
			b.StopTimer()
			median := func(ds []time.Duration) float64 {
				slices.Sort(ds)
				return float64(ds[len(ds)/2].Microseconds()) / 1000
			}
			b.ReportMetric(median(wall[0]), "median-ms")
			b.ReportMetric(median(wall[1]), "no-redact-ms")
			b.ReportMetric(median(wall[0])/median(wall[1]), "ratio")
			b.ReportMetric(median(cpu[0]), "cpu-ms")
			b.ReportMetric(median(cpu[1]), "no-redact-cpu-ms")
			b.ReportMetric(median(cpu[0])/median(cpu[1]), "cpu-ratio")
		})
	}
}

// minifiedChange makes a repository whose branch adds a minified bundle
// of 338 KB, or rebuilds one as a static site's release does, and returns
// its directory.
func minifiedChange(b *testing.B, env []string, rebuilt bool) string {
	dir := filepath.Join(b.TempDir(), "repo")
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	bundle := filepath.Join(dir, "docs", "static", "js", "main.min.js")
	write := func(size int) {
		if err := os.MkdirAll(filepath.Dir(bundle), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(bundle, []byte(redacttest.Bundle(size)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if rebuilt {
		write(330 << 10)
	} else if err := os.WriteFile(filepath.Join(dir, "README"), []byte("docs\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	run("init", "-q", "-b", "main")
	run("add", ".")
	run("commit", "-q", "-m", "init")
	run("checkout", "-q", "-b", "feature")
	write(338 << 10)
	run("add", ".")
	run("commit", "-q", "-m", "build the bundle")
	return dir
}

// BenchmarkFirstRequestBytes reports the size of the first request of a
// three-line change's review, as posted.
func BenchmarkFirstRequestBytes(b *testing.B) {
	env := benchEnv(b)
	dir := smallChange(b)
	rec := b.TempDir()
	var size int
	for range b.N {
		script, err := reviewtest.ParseScript([]byte(fourRequests))
		if err != nil {
			b.Fatal(err)
		}
		srv := reviewtest.NewServer(script, rec)
		cmd := exec.Command(reviewBinary(b), "--base", "main", "--format", "json")
		cmd.Dir, cmd.Env = dir, append(slices.Clone(env), "OPENAI_BASE_URL="+srv.URL)
		out, err := cmd.CombinedOutput()
		srv.Close()
		if err != nil {
			b.Fatalf("review: %v\n%s", err, out)
		}
		data, err := os.ReadFile(filepath.Join(rec, "req-001.json"))
		if err != nil {
			b.Fatal(err)
		}
		size = len(data)
	}
	b.ReportMetric(float64(size), "first-request-bytes")
}

// BenchmarkProcessLarge reviews generated pull requests of 1,000, 3,000
// and 10,000 changed files as a user would, with the default model
// (gpt-4o-mini, 128k window), tokenizer and bounds (the prompt-token
// budget keeps 13 units of these changes), against a scripted server that
// submits each unit at once. It reports the dry run's and the review's
// median wall time and largest peak RSS, the requests the
// review made, and the store's size on disk after one review.
func BenchmarkProcessLarge(b *testing.B) {
	const submit = `{"steps": [], "fallback": {"tool_calls": [{"name": "submit_review", "arguments": {"summary": "Fine.", "findings": []}}]}}`
	for _, n := range []int{1000, 3000, 10000} {
		b.Run(fmt.Sprintf("%dfiles", n), func(b *testing.B) {
			env := benchEnv(b)
			dir := b.TempDir()
			if err := reviewtest.GenerateRepo(dir, n, n/20, env); err != nil {
				b.Fatal(err)
			}
			reviewBinary(b) // built before the timer starts
			script, err := reviewtest.ParseScript([]byte(submit))
			if err != nil {
				b.Fatal(err)
			}
			var dry, full []time.Duration
			var dryRSS, fullRSS int64
			requests := 0
			var storeKiB int64
			run := func(extra []string, args ...string) (time.Duration, int64) {
				cmd, peak := measured(b, args...)
				cmd.Dir, cmd.Env = dir, append(append(slices.Clone(env), extra...), cmd.Env...)
				start := time.Now()
				out, err := cmd.CombinedOutput()
				d := time.Since(start)
				if err != nil {
					b.Fatalf("review %v: %v\n%s", args, err, out)
				}
				return d, peak()
			}
			b.ResetTimer()
			for range b.N {
				d, rss := run(nil, "--base", "main", "--dry-run")
				dry, dryRSS = append(dry, d), max(dryRSS, rss)
				store := filepath.Join(b.TempDir(), "store")
				srv := reviewtest.NewServer(script, "")
				d, rss = run([]string{"OPENAI_BASE_URL=" + srv.URL, "REVIEW_STORE=" + store}, "--base", "main", "--format", "json")
				requests = len(srv.Requests())
				srv.Close()
				full, fullRSS = append(full, d), max(fullRSS, rss)
				if storeKiB, err = scripttest.DiskKiB(store); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			median := func(ds []time.Duration) float64 {
				slices.Sort(ds)
				return float64(ds[len(ds)/2].Microseconds()) / 1000
			}
			b.ReportMetric(median(dry), "dry-run-ms")
			b.ReportMetric(float64(dryRSS)/1024, "dry-run-RSS-MiB")
			b.ReportMetric(median(full), "review-ms")
			b.ReportMetric(float64(fullRSS)/1024, "review-RSS-MiB")
			b.ReportMetric(float64(requests), "requests")
			b.ReportMetric(float64(storeKiB), "store-KiB")
		})
	}
}

// BenchmarkProcessDryRun20k makes the dry run of a generated change of
// 20,000 files (1,000 renamed with an edit) with the built binary, and
// reports its wall time and peak RSS, which must stay under 200 MiB.
//
//	go test -run '^$' -bench ProcessDryRun20k -benchtime 3x ./internal/e2e
func BenchmarkProcessDryRun20k(b *testing.B) {
	env := benchEnv(b)
	dir := b.TempDir()
	if err := reviewtest.GenerateRepo(dir, 20000, 1000, env); err != nil {
		b.Fatal(err)
	}
	reviewBinary(b)
	var walls []time.Duration
	var rss int64
	b.ResetTimer()
	for range b.N {
		cmd, peak := measured(b, "--base", "main", "--dry-run")
		cmd.Dir, cmd.Env = dir, append(slices.Clone(env), cmd.Env...)
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("review --dry-run: %v\n%s", err, out)
		}
		walls = append(walls, time.Since(start))
		rss = max(rss, peak())
	}
	b.StopTimer()
	slices.Sort(walls)
	b.ReportMetric(float64(walls[len(walls)/2].Milliseconds()), "dry-run-ms")
	b.ReportMetric(float64(rss)/1024, "dry-run-RSS-MiB")
	if rss > 200<<10 {
		b.Errorf("the dry run peaked at %.1f MiB, over 200", float64(rss)/1024)
	}
}
