package e2e

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reviewdev/review/internal/gittest"
	"github.com/reviewdev/review/review/reviewtest"
)

// A shape is a kind of pull request teams push, as issue 49 lists them:
// the change, and the paths of the files it changes (the peer reviews
// each in an agent of its own).
type shape struct {
	name, title string
	make        func(tb testing.TB) (dir string, files []string)
}

// shapes are issue 49's: (a) 40 new files × 300 lines; (b) 40 modified
// files × 300 changed lines; (c) 40 modified files with 20 scattered
// one-line changes each; (d) one 3,000-line file plus 30 small ones;
// (e) 10 renamed-and-edited files; (f) 200 files of 10 changed lines.
var shapes = []shape{
	{"a", "40 new files × 300 lines", func(tb testing.TB) (string, []string) {
		// Issue 36's change: newFilesChange's files, 7,034 tokens each.
		var files []string
		for i := 1; i <= 40; i++ {
			files = append(files, fmt.Sprintf("file%02d.go", i))
		}
		return newFilesChange(tb, 40, 300), files
	}},
	{"b", "40 modified files × 300 changed lines", func(tb testing.TB) (string, []string) {
		return modified(tb, 40, 300, func(int) bool { return true })
	}},
	{"c", "40 modified files, 20 scattered one-line changes each", func(tb testing.TB) (string, []string) {
		return modified(tb, 40, 300, func(j int) bool { return j%15 == 7 })
	}},
	{"d", "one 3,000-line file plus 30 small ones", func(tb testing.TB) (string, []string) {
		head := map[string]string{"big/big.go": funcLines("big", 3000, nil)}
		for i := 1; i <= 30; i++ {
			head[fmt.Sprintf("small/s%02d.go", i)] = funcLines(fmt.Sprintf("s%02d", i), 30, nil)
		}
		return gittest.Change(tb, map[string]string{"main.go": "package main\n\nfunc main() {}\n"}, head), slices.Sorted(mapsKeys(head))
	}},
	{"e", "10 renamed-and-edited files", func(tb testing.TB) (string, []string) {
		gittest.Isolate(tb)
		r := gittest.New(tb)
		base := map[string]string{}
		for i := 1; i <= 10; i++ {
			base[fmt.Sprintf("old/r%02d.go", i)] = funcLines(fmt.Sprintf("r%02d", i), 100, nil)
		}
		r.Write(base)
		r.Commit("base")
		r.Git("checkout", "-q", "-b", "feature")
		r.Git("rm", "-q", "-r", "old")
		head := map[string]string{}
		var files []string
		for i := 1; i <= 10; i++ {
			path := fmt.Sprintf("new/r%02d.go", i)
			head[path] = funcLines(fmt.Sprintf("r%02d", i), 100, func(j int) bool { return j%10 == 5 })
			files = append(files, path)
		}
		r.Write(head)
		r.Commit("change")
		return r.Dir, files
	}},
	{"f", "200 files of 10 changed lines", func(tb testing.TB) (string, []string) {
		base, head := map[string]string{}, map[string]string{}
		for i := 1; i <= 200; i++ {
			path := fmt.Sprintf("pkg%02d/f%03d.go", i%10, i)
			name := fmt.Sprintf("f%03d", i)
			base[path] = funcLines(name, 30, nil)
			head[path] = funcLines(name, 30, func(j int) bool { return j%3 == 1 })
		}
		return gittest.Change(tb, base, head), slices.Sorted(mapsKeys(head))
	}},
}

// funcLines is a Go file of n one-line functions named after name; the
// lines changed says are written as a change rewrites them.
func funcLines(name string, n int, changed func(j int) bool) string {
	var s strings.Builder
	s.WriteString("package main\n")
	for j := 1; j <= n; j++ {
		if changed != nil && changed(j) {
			fmt.Fprintf(&s, "func %s_%d(x int) int { return x*%d - %d }\n", name, j, j+1, j)
			continue
		}
		fmt.Fprintf(&s, "func %s_%d(x int) int { return x*%d + %d }\n", name, j, j, j)
	}
	return s.String()
}

// modified is a change of n files of lines functions each, the lines
// changed says rewritten.
func modified(tb testing.TB, n, lines int, changed func(j int) bool) (string, []string) {
	base, head := map[string]string{}, map[string]string{}
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("file%02d", i)
		base[name+".go"], head[name+".go"] = funcLines(name, lines, nil), funcLines(name, lines, changed)
	}
	return gittest.Change(tb, base, head), slices.Sorted(mapsKeys(head))
}

func mapsKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// shapeWindows are the windows the shapes are reviewed at.
var shapeWindows = []string{"16000", "32000", "128000"}

// shapeScript answers each unit's first request with a read of the first
// of its files not read yet (a unit's prompt heads each of its files
// "### `path`"), and its forced request with a submission, each after
// delay.
func shapeScript(files []string, delay string) *reviewtest.Script {
	read := func(path string) reviewtest.Step {
		return reviewtest.Step{Delay: delay, ToolCalls: []reviewtest.ScriptCall{{Name: "get_file_diff", Arguments: json.RawMessage(`{"path": "` + path + `"}`)}}}
	}
	s := &reviewtest.Script{
		Forced: &reviewtest.Step{Delay: delay, ToolCalls: []reviewtest.ScriptCall{{Name: "submit_review", Arguments: json.RawMessage(`{"summary": "Fine.", "findings": []}`)}}},
	}
	for _, f := range files {
		st := read(f)
		st.When = "### `" + f + "`"
		s.Steps = append(s.Steps, st)
	}
	// A unit of a file already read (a large file in several units)
	// reads it again.
	fb := read(files[0])
	s.Fallback = &fb
	return s
}

// edges is how long a process started at start and run for wall took to
// send its first request (as the server saw it arrive), and to exit after
// the last answer: the time over the latency floor that no overlap of
// units can hide.
func edges(start time.Time, wall time.Duration, reqs []reviewtest.Received) (first, last time.Duration) {
	if len(reqs) == 0 {
		return 0, 0
	}
	arrived, answered := reqs[0].Arrived, reqs[0].Answered
	for _, q := range reqs[1:] {
		if q.Arrived.Before(arrived) {
			arrived = q.Arrived
		}
		if q.Answered.After(answered) {
			answered = q.Answered
		}
	}
	return arrived.Sub(start), start.Add(wall).Sub(answered)
}

// shapeRun is what one review of a shape did.
type shapeRun struct {
	wall, cpu                     time.Duration
	first, last                   time.Duration // to the first request's arrival; from the last answer to the exit
	units, requests, waits, bytes int
	notReviewed, files, jobs      int
}

// reviewShape reviews dir with the built binary at window against a
// scripted server answering after delay, each unit reading once and
// then, at --max-steps 1, submitting; jobs "" takes the default from the
// server, which then says it serves slots at once.
func reviewShape(tb testing.TB, bin, dir string, files []string, env []string, window, jobs, delay string, slots int) shapeRun {
	script := shapeScript(files, delay)
	args := []string{"--base", "main", "--format", "json", "--max-steps", "1", "--model", "gpt-4o", "--context-window", window}
	if slots > 0 {
		script.Props = json.RawMessage(fmt.Sprintf(`{"total_slots": %d}`, slots))
	} else {
		args = append(args, "--jobs", jobs)
	}
	srv := reviewtest.NewServer(script, "")
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	store := filepath.Join(tb.TempDir(), "store")
	cmd.Env = append(slices.Clone(env), "OPENAI_BASE_URL="+srv.URL, "REVIEW_STORE="+store)
	start := time.Now()
	out, stderr, wall, reqs, err := runAgainst(cmd, srv)
	if err != nil && !strings.Contains(stderr, "not reviewed") {
		tb.Fatalf("review %v: %v\n%s", args, err, stderr)
	}
	r := shapeRun{wall: wall, requests: len(reqs), files: len(files), units: 1}
	r.first, r.last = edges(start, wall, reqs)
	if ps := cmd.ProcessState; ps != nil {
		// The review's own CPU and that of the git processes it waited
		// for (wait4's rusage counts its reaped children).
		r.cpu = ps.UserTime() + ps.SystemTime()
	}
	r.bytes, r.waits = sentTo(reqs)
	var res struct {
		NotReviewed []json.RawMessage `json:"not_reviewed"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		tb.Fatalf("reading the review: %v\n%s", err, out)
	}
	r.notReviewed = len(res.NotReviewed)
	for _, q := range reqs {
		if m := unitsIn.FindSubmatch(q.Body); m != nil {
			r.units, _ = strconv.Atoi(string(m[1]))
			break
		}
	}
	r.jobs, _ = strconv.Atoi(jobs)
	if slots > 0 {
		r.jobs = slots
	}
	return r
}

// BenchmarkProcessShapes reviews each of issue 49's shapes (shapes) at
// 16k, 32k and 128k with the built binary, in the peer's setup: a
// scripted server that answers every request after $REVIEW_BENCH_DELAY
// (default 1s), --jobs 8 (the peer's concurrency; $REVIEW_BENCH_JOBS),
// each unit one read and then, at --max-steps 1, its submission, under
// the default prompt-token budget. Each shape is reviewed again at 32k
// against a server that says it serves 16 requests at once, with no
// --jobs. It reports the wall time, the units, the requests, the
// answer-waits in sequence, the bytes sent, the files not reviewed and
// the latency floor: units ÷ jobs, rounded up, × 2 answers × the delay,
// the time to the first request and from the last answer to the exit
// (the process's own start and end, which no overlap hides), and the
// review's CPU time (with the git processes it ran). `.ci/shapes`
// prints the table docs/performance.md quotes, beside the peer's figures
// from BenchmarkProcessShapesOCR. REVIEW_BASE_BIN names a review binary
// of another revision (`.ci/shapes 1x REV` builds one): each review is
// then followed by the same review with it, its times reported as base-…,
// so that a change to what the process spends around the floor is
// measured against its base on the machine as it is at that moment.
func BenchmarkProcessShapes(b *testing.B) {
	base := os.Getenv("REVIEW_BASE_BIN")
	delay := cmp.Or(os.Getenv("REVIEW_BENCH_DELAY"), "1s")
	jobs := cmp.Or(os.Getenv("REVIEW_BENCH_JOBS"), "8")
	lat, err := time.ParseDuration(delay)
	if err != nil {
		b.Fatal(err)
	}
	runs := []struct {
		name, window string
		slots        int
	}{{"16k", "16000", 0}, {"32k", "32000", 0}, {"128k", "128000", 0}, {"32k-slots16", "32000", 16}}
	for _, s := range shapes {
		b.Run(s.name, func(b *testing.B) {
			env := benchEnv(b)
			dir, files := s.make(b)
			for _, w := range runs {
				b.Run(w.name, func(b *testing.B) {
					var r shapeRun
					var this, other shapeTimes
					for b.Loop() {
						r = reviewShape(b, reviewBinary(b), dir, files, env, w.window, jobs, delay, w.slots)
						this.add(r)
						if base != "" {
							other.add(reviewShape(b, base, dir, files, env, w.window, jobs, delay, w.slots))
						}
					}
					floor := time.Duration((r.units+r.jobs-1)/max(r.jobs, 1)*2) * lat
					this.report(b, "")
					if base != "" {
						other.report(b, "base-")
					}
					b.ReportMetric(float64(r.units), "units")
					b.ReportMetric(float64(r.requests), "requests")
					b.ReportMetric(float64(r.waits), "answer-waits")
					b.ReportMetric(float64(r.bytes)/1000, "sent-kB")
					b.ReportMetric(float64(r.notReviewed), "not-reviewed")
					b.ReportMetric(float64(r.files), "files")
					b.ReportMetric(float64(r.jobs), "jobs")
					b.ReportMetric(floor.Seconds(), "floor-s")
				})
			}
		})
	}
}

// shapeTimes gathers the times of reviews of one shape and window.
type shapeTimes struct{ walls, cpus, firsts, lasts []time.Duration }

func (t *shapeTimes) add(r shapeRun) {
	t.walls, t.cpus = append(t.walls, r.wall), append(t.cpus, r.cpu)
	t.firsts, t.lasts = append(t.firsts, r.first), append(t.lasts, r.last)
}

// report reports the medians of t, their names after prefix.
func (t *shapeTimes) report(b *testing.B, prefix string) {
	med := func(ds []time.Duration) time.Duration {
		s := slices.Clone(ds)
		slices.Sort(s)
		return s[len(s)/2]
	}
	b.ReportMetric(med(t.walls).Seconds(), prefix+"wall-s")
	b.ReportMetric(med(t.cpus).Seconds(), prefix+"CPU-s")
	b.ReportMetric(float64(med(t.firsts).Microseconds())/1000, prefix+"first-request-ms")
	b.ReportMetric(float64(med(t.lasts).Microseconds())/1000, prefix+"exit-after-answer-ms")
}

// BenchmarkProcessShapesOCR reviews each shape with the peer,
// open-code-review, named by $REVIEW_PEER_BIN (skipped when unset),
// against the same scripted server as BenchmarkProcessPeerOCR: each
// file's first request answered with a read of its diff, its second with
// task_done, each after $REVIEW_BENCH_DELAY, 8 files at once (its
// default). The peer takes no window: one run of a shape stands for
// every window. It reports the wall time, the agents (files reviewed),
// the requests, the answer-waits and the bytes sent.
func BenchmarkProcessShapesOCR(b *testing.B) {
	bin := os.Getenv("REVIEW_PEER_BIN")
	if bin == "" {
		b.Skip("REVIEW_PEER_BIN names no open-code-review binary")
	}
	delay := cmp.Or(os.Getenv("REVIEW_BENCH_DELAY"), "1s")
	for _, s := range shapes {
		b.Run(s.name, func(b *testing.B) {
			dir, files := s.make(b)
			var walls []time.Duration
			var requests, bytes, waits, reviewed int
			for b.Loop() {
				r := reviewByPeer(b, bin, dir, ocrScriptFor(files, delay))
				walls = append(walls, r.wall)
				reviewed, requests, bytes, waits = r.files, r.requests, r.bytes, r.waits
			}
			slices.Sort(walls)
			b.ReportMetric(walls[len(walls)/2].Seconds(), "wall-s")
			b.ReportMetric(float64(reviewed), "agents")
			b.ReportMetric(float64(requests), "requests")
			b.ReportMetric(float64(waits), "answer-waits")
			b.ReportMetric(float64(bytes)/1000, "sent-kB")
		})
	}
}

// ocrScriptFor is ocrScript for any files: each file's first request is
// answered with a read of its diff, its second with task_done.
func ocrScriptFor(files []string, delay string) *reviewtest.Script {
	s := &reviewtest.Script{}
	for _, path := range files {
		when := "<current_file_path>" + path + "</current_file_path>"
		s.Steps = append(s.Steps,
			reviewtest.Step{When: when, Delay: delay, ToolCalls: []reviewtest.ScriptCall{{Name: "file_read_diff", Arguments: json.RawMessage(`{"path_array": ["` + path + `"]}`)}}},
			reviewtest.Step{When: when, Delay: delay, ToolCalls: []reviewtest.ScriptCall{{Name: "task_done", Arguments: json.RawMessage(`{"state": "DONE"}`)}}})
	}
	done := reviewtest.Step{Delay: delay, ToolCalls: []reviewtest.ScriptCall{{Name: "task_done", Arguments: json.RawMessage(`{"state": "DONE"}`)}}}
	s.Fallback = &done
	return s
}

// TestShapesDefault reviews each shape at each window with the built
// binary and the defaults a user starts with: an empty store, the default
// --max-steps and prompt-token budget (--jobs 8, the peer's), against a
// scripted server that answers at once, each unit reading its first file
// and, once it has the read's result, submitting. It holds issue 49's
// targets that do not depend on latency: every file reviewed; no more
// units than the peer's agents (a file each) but where a file alone does
// not fit a unit with its loop's room (shape d's 3,000-line file at 16k
// and 32k; a 300-line file at 16k); the 40 modified files at 32k in 40
// units. And the forecast, as a property of every shape and window: the
// plan on the prior expects no less than the review takes, at most twice
// the budget; a plan made after it, from its record, expects what it took.
func TestShapesDefault(t *testing.T) {
	if testing.Short() {
		t.Skip("reviews six changes at three windows")
	}
	bin := reviewBinary(t)
	for _, s := range shapes {
		t.Run(s.name, func(t *testing.T) {
			dir, files := s.make(t)
			for _, window := range shapeWindows {
				env := append(os.Environ(), "REVIEW_STORE="+filepath.Join(t.TempDir(), "store"), "OPENAI_API_KEY=bench")
				args := []string{"--base", "main", "--format", "json", "--model", "gpt-4o", "--context-window", window, "--jobs", "8"}
				plan := func() shapePlan {
					cmd := exec.Command(bin, append(args, "--dry-run")...)
					cmd.Dir, cmd.Env = dir, env
					out, err := cmd.Output()
					if err != nil {
						t.Fatalf("dry run at %s: %v\n%s", window, err, benchStderr(err))
					}
					var d shapePlan
					if err := json.Unmarshal(out, &d); err != nil {
						t.Fatal(err)
					}
					return d
				}
				p := plan().Plan
				srv := reviewtest.NewServer(readOnceScript(files), "")
				cmd := exec.Command(bin, args...)
				cmd.Dir, cmd.Env = dir, append(env, "OPENAI_BASE_URL="+srv.URL)
				out, stderr, _, _, err := runAgainst(cmd, srv)
				if err != nil {
					t.Fatalf("review at %s: %v\n%s", window, err, stderr)
				}
				var run shapePlan
				if err := json.Unmarshal(out, &run); err != nil {
					t.Fatal(err)
				}
				if len(run.NotReviewed) > 0 {
					t.Errorf("%s at %s: %d files not reviewed: %s", s.title, window, len(run.NotReviewed), run.NotReviewed)
				}
				if p.Units > len(files) && p.Cut == nil {
					t.Errorf("%s at %s: %d units for %d files, none of which a unit cannot hold whole", s.title, window, p.Units, len(files))
				}
				if s.name == "b" && window == "32000" && p.Units != 40 {
					t.Errorf("%s at 32k: %d units, want 40", s.title, p.Units)
				}
				took := run.Usage.Own
				if p.Forecast.Source != "prior" || p.Tokens < took || float64(p.Tokens) > p.Forecast.Factor*3_000_000 {
					t.Errorf("%s at %s: the plan on the prior (%+v) expected %d prompt tokens; the review took %d", s.title, window, p.Forecast, p.Tokens, took)
				}
				// The next plan expects what this review took.
				if n := plan().Plan; n.Forecast.Source != "earlier_runs" || math.Abs(float64(n.Tokens-took)) > 0.01*float64(took) {
					t.Errorf("%s at %s: the review took %d prompt tokens; the plan after it (%+v) expects %d", s.title, window, took, n.Forecast, n.Tokens)
				}
				t.Logf("%s at %s: %d units, %d files; expected %d prompt tokens on the prior, took %d (%.2f)", s.title, window, p.Units, len(files), p.Tokens, took, float64(took)/float64(p.Tokens))
			}
		})
	}
}

// shapePlan is what TestShapesDefault reads of a dry run (Plan) or a
// review (NotReviewed, Usage).
type shapePlan struct {
	Plan struct {
		Units    int `json:"units"`
		Tokens   int `json:"expected_prompt_tokens"`
		Forecast struct {
			Source string  `json:"source"`
			Factor float64 `json:"budget_factor"`
		} `json:"forecast"`
		Cut *struct {
			Path string `json:"path"`
		} `json:"split_file"`
	} `json:"plan"`
	NotReviewed []json.RawMessage `json:"not_reviewed"`
	Usage       struct {
		Own int `json:"own_prompt_tokens"`
	} `json:"usage"`
}

// readOnceScript answers each unit's first request with a read of its
// first file (shapeScript) and, once it has the read's result, with its
// submission, at once: a review that reads once a unit and submits, at
// any --max-steps.
func readOnceScript(files []string) *reviewtest.Script {
	s := shapeScript(files, "")
	submit := *s.Forced
	submit.When, submit.Repeat = `"role":"tool"`, 4*len(files)
	s.Steps = append([]reviewtest.Step{submit}, s.Steps...)
	return s
}

// BenchmarkProcessShapesBytes breaks down the bytes of the requests each
// reviewer sends on shape (b), 40 modified files of 300 changed lines,
// at 32k, as BenchmarkProcessShapes and BenchmarkProcessShapesOCR review
// it (the peer only with $REVIEW_PEER_BIN), at zero latency: bytes do not
// depend on it. It reports, in kB over all requests, what each part of a
// request took as sent (its JSON, escapes included): for review the
// system prompt, the tool definitions, the overview (the static layer's
// user message), the unit turn's words and its hunks, and the loop's
// messages after them; for the peer its two system prompts (planning,
// review), the changed-file list, the file's diff and the rest of its
// user message (the checklist and the task); for both the rest of the
// body (model, options, the JSON around the messages), the total, and
// the first and second requests of a unit (a file, for the peer).
// $REVIEW_BENCH_BODIES names a folder to keep the bodies in.
func BenchmarkProcessShapesBytes(b *testing.B) {
	var shape shape
	for _, s := range shapes {
		if s.name == "b" {
			shape = s
		}
	}
	keep := os.Getenv("REVIEW_BENCH_BODIES")
	b.Run("review", func(b *testing.B) {
		env := benchEnv(b)
		dir, files := shape.make(b)
		var parts map[string]int
		for b.Loop() {
			srv := reviewtest.NewServer(shapeScript(files, ""), keepIn(b, keep, "review"))
			cmd := exec.Command(reviewBinary(b), "--base", "main", "--format", "json", "--max-steps", "1", "--model", "gpt-4o", "--context-window", "32000", "--jobs", "8")
			cmd.Dir = dir
			cmd.Env = append(slices.Clone(env), "OPENAI_BASE_URL="+srv.URL, "REVIEW_STORE="+filepath.Join(b.TempDir(), "store"))
			_, stderr, _, reqs, err := runAgainst(cmd, srv)
			if err != nil {
				b.Fatalf("review: %v\n%s", err, stderr)
			}
			parts = map[string]int{}
			for _, r := range reqs {
				reviewParts(b, r.Body, parts)
			}
		}
		reportParts(b, parts)
	})
	b.Run("peer", func(b *testing.B) {
		bin := os.Getenv("REVIEW_PEER_BIN")
		if bin == "" {
			b.Skip("REVIEW_PEER_BIN names no open-code-review binary")
		}
		dir, files := shape.make(b)
		var parts map[string]int
		for b.Loop() {
			srv := reviewtest.NewServer(ocrScriptFor(files, ""), keepIn(b, keep, "peer"))
			out, stderr, _, reqs, err := runAgainst(peerCommand(b, bin, dir, srv.URL), srv)
			if err != nil {
				b.Fatalf("ocr review: %v\n%s\n%s", err, out, stderr)
			}
			parts = map[string]int{}
			for _, r := range reqs {
				peerParts(b, r.Body, parts)
			}
		}
		reportParts(b, parts)
	})
}

// keepIn is the folder under keep the scripted server records name's
// bodies in; "" when keep is.
func keepIn(b *testing.B, keep, name string) string {
	if keep == "" {
		return ""
	}
	dir := filepath.Join(keep, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	return dir
}

// requestBody is a chat-completions request as sent: its messages and
// tool definitions as the bytes that carried them.
type requestBody struct {
	Messages []json.RawMessage `json:"messages"`
	Tools    json.RawMessage   `json:"tools"`
}

// bodyMessage is what reviewParts and peerParts read of a message.
type bodyMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// reviewParts adds the bytes of review's request body to parts: system,
// tools, overview, turn, hunks, loop, rest; and first or second by the
// request's place in its unit's loop.
func reviewParts(b *testing.B, body []byte, parts map[string]int) {
	var req requestBody
	if err := json.Unmarshal(body, &req); err != nil {
		b.Fatal(err)
	}
	counted := len(req.Tools)
	parts["tools"] += len(req.Tools)
	users := 0
	for i, raw := range req.Messages {
		var m bodyMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			b.Fatal(err)
		}
		counted += len(raw)
		switch {
		case m.Role == "system":
			parts["system"] += len(raw)
		case m.Role == "user" && users == 0:
			users++
			parts["overview"] += len(raw)
		case m.Role == "user" && users == 1 && i == 2:
			users++
			// The unit turn: its words, then its files' hunks from
			// the first file's heading on, as the body escapes them.
			words := len(raw)
			if k := strings.Index(m.Content, "### `"); k >= 0 {
				hunks, _ := json.Marshal(m.Content[k:])
				words -= len(hunks) - 2
				parts["hunks"] += len(hunks) - 2
			}
			parts["turn"] += words
		default:
			parts["loop"] += len(raw)
		}
	}
	parts["rest"] += len(body) - counted
	parts["total"] += len(body)
	if len(req.Messages) > 3 {
		parts["second"] += len(body)
	} else {
		parts["first"] += len(body)
	}
}

// peerParts adds the bytes of the peer's request body to parts: its
// planning and review system prompts, the changed-file list, the file's
// diff, the rest of its user message, the rest of the body; and first
// (planning) or second (review) by the request's place in its file's
// loop.
func peerParts(b *testing.B, body []byte, parts map[string]int) {
	var req requestBody
	if err := json.Unmarshal(body, &req); err != nil {
		b.Fatal(err)
	}
	counted, planning := len(req.Tools), false
	parts["tools"] += len(req.Tools)
	for _, raw := range req.Messages {
		var m bodyMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			b.Fatal(err)
		}
		counted += len(raw)
		if m.Role == "system" {
			planning = strings.Contains(m.Content, "review plan")
			if planning {
				parts["system-planning"] += len(raw)
			} else {
				parts["system-review"] += len(raw)
			}
			continue
		}
		rest := len(raw)
		for _, tag := range []string{"other_changed_files", "current_file_diff"} {
			open, end := strings.Index(m.Content, "<"+tag+">"), strings.Index(m.Content, "</"+tag+">")
			if open < 0 || end < open {
				continue
			}
			part, _ := json.Marshal(m.Content[open : end+len(tag)+3])
			parts[tag] += len(part) - 2
			rest -= len(part) - 2
		}
		parts["user-rest"] += rest
	}
	parts["rest"] += len(body) - counted
	parts["total"] += len(body)
	if planning {
		parts["first"] += len(body)
	} else {
		parts["second"] += len(body)
	}
}

// reportParts reports each part's kB.
func reportParts(b *testing.B, parts map[string]int) {
	for _, k := range slices.Sorted(maps.Keys(parts)) {
		b.ReportMetric(float64(parts[k])/1000, k+"-kB")
	}
}
