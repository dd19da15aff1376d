package e2e

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
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
func newFilesChange(b testing.TB, n, lines int) string {
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

// BenchmarkProcessPeer reviews the changes issue 36 measured open-code-review
// on, with the built binary, in the peer's setup: a scripted server that
// answers every request after $REVIEW_BENCH_DELAY (default 1s), 8 units
// at once ($REVIEW_BENCH_JOBS; the scripted server is on 127.0.0.1, which
// review takes for a local server and gives 4 by default, so --jobs 8
// stands for a hosted API's default), and every unit answering with one
// read of its first file (get_file_diff) and then, at --max-steps 1, its
// submission. The whole change is reviewed, as the peer reviews every
// file. It reports the wall time, the units, the requests, the
// answer-waits in sequence and the bytes sent; `.ci/peer` prints them
// beside the peer's figures and the targets.
func BenchmarkProcessPeer(b *testing.B) {
	delay, jobs := "1s", "8"
	if d := os.Getenv("REVIEW_BENCH_DELAY"); d != "" {
		delay = d
	}
	if j := os.Getenv("REVIEW_BENCH_JOBS"); j != "" {
		jobs = j
	}
	changes := []struct {
		name         string
		files, lines int
		window       string
		// slots, when set, is what the server says it serves at once
		// (llama.cpp's /props total_slots); the run then takes its
		// default --jobs from it instead of jobs.
		slots int
		// more are further flags of the row.
		more []string
	}{
		{"12x60/16k", 12, 60, "16000", 0, nil},
		{"40x300/32k", 40, 300, "32000", 0, nil},
		{"40x300/128k", 40, 300, "128000", 0, nil},
		{"40x300/32k/slots16", 40, 300, "32000", 16, nil},
		// Units of two files each: less room for each unit's loop,
		// half the units.
		{"40x300/32k/share0.75", 40, 300, "32000", 0, []string{"--static-share", "0.75"}},
	}
	for _, c := range changes {
		b.Run(c.name, func(b *testing.B) {
			script := peerScript(b, c.files, delay)
			env := benchEnv(b)
			dir := newFilesChange(b, c.files, c.lines)
			bin := reviewBinary(b)
			args := []string{"--base", "main", "--format", "json", "--max-steps", "1",
				"--model", "gpt-4o", "--context-window", c.window}
			args = append(args, c.more...)
			if c.slots > 0 {
				script.Props = json.RawMessage(fmt.Sprintf(`{"total_slots": %d}`, c.slots))
			} else {
				args = append(args, "--jobs", jobs)
			}
			var walls []time.Duration
			var requests, bytes, waits, units int
			b.ResetTimer()
			for range b.N {
				srv := reviewtest.NewServer(script, "")
				cmd := exec.Command(bin, args...)
				cmd.Dir = dir
				cmd.Env = append(slices.Clone(env), "OPENAI_BASE_URL="+srv.URL, "REVIEW_STORE="+filepath.Join(b.TempDir(), "store"))
				out, stderr, wall, reqs, err := runAgainst(cmd, srv)
				walls = append(walls, wall)
				if err != nil {
					b.Fatalf("review %v: %v\n%s", args, err, stderr)
				}
				requests, units = len(reqs), 1
				bytes, waits = sentTo(reqs)
				for _, r := range reqs {
					if m := unitsIn.FindSubmatch(r.Body); m != nil {
						units, _ = strconv.Atoi(string(m[1]))
					}
				}
				if requests != 2*units {
					b.Fatalf("%d units sent %d requests, want a read and a submission each", units, requests)
				}
				var res struct {
					NotReviewed []json.RawMessage `json:"not_reviewed"`
				}
				if err := json.Unmarshal(out, &res); err != nil {
					b.Fatalf("reading the review: %v\n%s", err, out)
				}
				if len(res.NotReviewed) > 0 {
					b.Fatalf("not the whole change was reviewed: %s", res.NotReviewed)
				}
			}
			b.StopTimer()
			slices.Sort(walls)
			b.ReportMetric(walls[len(walls)/2].Seconds(), "wall-s")
			b.ReportMetric(float64(units), "units")
			b.ReportMetric(float64(requests), "requests")
			b.ReportMetric(float64(waits), "answer-waits")
			b.ReportMetric(float64(bytes)/1000, "sent-kB")
		})
	}
}

// unitsIn finds the unit count in a unit's request side by side.
var unitsIn = regexp.MustCompile(`reviewed in (\d+) units`)

// peerScript answers each unit's first request with a read of the first
// of its files (a unit's prompt heads each of its files "### `path`"),
// and its forced request with a submission, each after delay.
func peerScript(b *testing.B, files int, delay string) *reviewtest.Script {
	read := func(path string) reviewtest.Step {
		return reviewtest.Step{Delay: delay, ToolCalls: []reviewtest.ScriptCall{{Name: "get_file_diff", Arguments: json.RawMessage(`{"path": "` + path + `"}`)}}}
	}
	s := &reviewtest.Script{
		Forced: &reviewtest.Step{Delay: delay, ToolCalls: []reviewtest.ScriptCall{{Name: "submit_review", Arguments: json.RawMessage(`{"summary": "Fine.", "findings": []}`)}}},
	}
	for i := 1; i <= files; i++ {
		st := read(fmt.Sprintf("file%02d.go", i))
		st.When = fmt.Sprintf("### `file%02d.go`", i)
		s.Steps = append(s.Steps, st)
	}
	// A unit with part of a file already read takes the file's read again.
	fb := read("file01.go")
	s.Fallback = &fb
	return s
}

// BenchmarkProcessPeerOCR reviews the same changes as BenchmarkProcessPeer
// with the peer itself, open-code-review, built from its public source
// and named by $REVIEW_PEER_BIN (skipped when unset): its `ocr review`
// against the same scripted server, answering each file's first request
// with a read of its diff (file_read_diff) and its second with task_done,
// each after $REVIEW_BENCH_DELAY, the peer reviewing 8 files at once (its
// default --concurrency). The peer takes no context window: one run of
// each change stands for every window. It fails unless every file is
// reviewed with exactly its read and its submission.
func BenchmarkProcessPeerOCR(b *testing.B) {
	bin := os.Getenv("REVIEW_PEER_BIN")
	if bin == "" {
		b.Skip("REVIEW_PEER_BIN names no open-code-review binary")
	}
	delay := cmp.Or(os.Getenv("REVIEW_BENCH_DELAY"), "1s")
	for _, c := range []struct {
		name         string
		files, lines int
	}{{"12x60", 12, 60}, {"40x300", 40, 300}} {
		b.Run(c.name, func(b *testing.B) {
			dir := newFilesChange(b, c.files, c.lines)
			var walls []time.Duration
			var requests, bytes, waits int
			b.ResetTimer()
			for range b.N {
				r := reviewByPeer(b, bin, dir, ocrScript(c.files, delay))
				walls = append(walls, r.wall)
				if r.files != c.files {
					b.Fatalf("ocr reviewed %d files, want %d", r.files, c.files)
				}
				requests, bytes, waits = r.requests, r.bytes, r.waits
				if requests != 2*c.files {
					b.Fatalf("ocr sent %d requests for %d files, want a read and a submission each", requests, c.files)
				}
			}
			b.StopTimer()
			slices.Sort(walls)
			b.ReportMetric(walls[len(walls)/2].Seconds(), "wall-s")
			b.ReportMetric(float64(requests), "requests")
			b.ReportMetric(float64(waits), "answer-waits")
			b.ReportMetric(float64(bytes)/1000, "sent-kB")
		})
	}
}

// peerRun is what one review by the peer did.
type peerRun struct {
	wall                          time.Duration
	files, requests, bytes, waits int
}

// reviewByPeer runs the peer's review of dir (bin, REVIEW_PEER_BIN)
// against a scripted server answering with script, and reads the files
// it says it reviewed; it fails the benchmark if the peer fails.
func reviewByPeer(b *testing.B, bin, dir string, script *reviewtest.Script) peerRun {
	srv := reviewtest.NewServer(script, "")
	cmd := peerCommand(b, bin, dir, srv.URL)
	out, stderr, wall, reqs, err := runAgainst(cmd, srv)
	if err != nil {
		b.Fatalf("ocr review: %v\n%s\n%s", err, out, stderr)
	}
	var res struct {
		Summary struct {
			Files int `json:"files_reviewed"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		b.Fatalf("reading ocr's review: %v\n%s", err, out)
	}
	r := peerRun{wall: wall, files: res.Summary.Files, requests: len(reqs)}
	r.bytes, r.waits = sentTo(reqs)
	return r
}

// peerArgs are the arguments of the peer's review of a branch against main.
var peerArgs = []string{"review", "--from", "main", "--to", "HEAD", "--format", "json", "--audience", "agent"}

// peerCommand is the peer's review of the change in dir against the
// scripted server at url.
func peerCommand(b *testing.B, bin, dir, url string) *exec.Cmd {
	cmd := exec.Command(bin, peerArgs...)
	cmd.Dir, cmd.Env = dir, peerEnv(b, url)
	return cmd
}

// peerEnv is the peer's environment: the scripted server at url as its
// model, in a home of its own.
func peerEnv(b *testing.B, url string) []string {
	home := b.TempDir()
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + home,
		"OCR_LLM_URL=" + url, "OCR_LLM_TOKEN=bench", "OCR_LLM_MODEL=gpt-4o", "OCR_LLM_PROTOCOL=openai"}
}

// ocrScript answers open-code-review's requests for each file (its prompt
// names the file under review "<current_file_path>path</current_file_path>"):
// the first with a read of the file's diff, the second with task_done.
func ocrScript(files int, delay string) *reviewtest.Script {
	s := &reviewtest.Script{}
	for i := 1; i <= files; i++ {
		path := fmt.Sprintf("file%02d.go", i)
		when := "<current_file_path>" + path + "</current_file_path>"
		s.Steps = append(s.Steps,
			reviewtest.Step{When: when, Delay: delay, ToolCalls: []reviewtest.ScriptCall{{Name: "file_read_diff", Arguments: json.RawMessage(`{"path_array": ["` + path + `"]}`)}}},
			reviewtest.Step{When: when, Delay: delay, ToolCalls: []reviewtest.ScriptCall{{Name: "task_done", Arguments: json.RawMessage(`{"state": "DONE"}`)}}})
	}
	return s
}

// runAgainst runs cmd, a review of changes against the scripted server
// srv, and closes srv: cmd's output and standard error, its wall time and
// the requests srv received.
func runAgainst(cmd *exec.Cmd, srv *reviewtest.Server) (out []byte, stderr string, wall time.Duration, reqs []reviewtest.Received, err error) {
	var errb strings.Builder
	cmd.Stderr = &errb
	start := time.Now()
	out, err = cmd.Output()
	wall = time.Since(start)
	reqs = srv.Requests()
	srv.Close()
	return out, errb.String(), wall, reqs, err
}

// sentTo is the bytes of the requests reqs and the answers waited for in
// sequence to make them.
func sentTo(reqs []reviewtest.Received) (bytes, waits int) {
	var tms []reviewtest.Timing
	for _, r := range reqs {
		bytes += len(r.Body)
		tms = append(tms, reviewtest.Timing{N: r.N, Arrived: r.Arrived, Answered: r.Answered, Status: r.Status})
	}
	_, waits = reviewtest.Overlap(tms)
	return bytes, waits
}
