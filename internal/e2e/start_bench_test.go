package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/reviewdev/review/review/reviewtest"
)

// BenchmarkProcessStart measures what every command pays before its work,
// side by side with the peer (open-code-review, named by REVIEW_PEER_BIN)
// in one run, each start of review followed by the peer's, so both see the
// machine in the same state:
//
//   - version: `review version`, the start alone;
//   - review3: `review --base main` of a three-line change, one read of
//     the file's diff and the submission from a zero-latency scripted
//     server, with exact counts (the default tokenizer);
//   - peer3: the peer's review of the same change, the same read and
//     its submission (task_done) from the same kind of server;
//   - units12: a review of 12 new files of 60 lines at a 16k window, 12
//     units of a read and a submission each, the server answering at once.
//
// Each reports its median wall time and largest peak RSS; .ci/start prints
// them with the ratios against the peer and the targets.
func BenchmarkProcessStart(b *testing.B) {
	peer := os.Getenv("REVIEW_PEER_BIN")
	// floor is what starting any process costs here, through peakrss as
	// every start below is: /bin/true, the least a start can take.
	b.Run("floor", func(b *testing.B) {
		var ws []time.Duration
		for range b.N {
			reviewBinary(b) // builds peakrss
			out := filepath.Join(b.TempDir(), "peakrss")
			cmd := exec.Command(rssPath, "/bin/true")
			cmd.Env = []string{"PEAKRSS_OUT=" + out}
			start := time.Now()
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
			ws = append(ws, time.Since(start))
		}
		b.ReportMetric(medianMs(ws), "median-ms")
	})
	b.Run("version", func(b *testing.B) {
		runProcess(b, b.TempDir(), benchEnv(b), nil, "version")
	})
	b.Run("review3", func(b *testing.B) {
		env := benchEnv(b)
		dir := smallChangeIn(b, "file01.go") // the name both reviewers' scripts read
		var rw, pw []time.Duration
		var rr, pr int64
		for range b.N {
			w, kib := startOnce(b, dir, env, reviewBinary(b), peerScript(b, 1, "0s"),
				"--base", "main", "--format", "json", "--max-steps", "1")
			rw, rr = append(rw, w), max(rr, kib)
			if peer != "" {
				w, kib := startOnce(b, dir, nil, peer, ocrScript(1, "0s"), peerArgs...)
				pw, pr = append(pw, w), max(pr, kib)
			}
		}
		b.ReportMetric(medianMs(rw), "median-ms")
		b.ReportMetric(float64(rr)/1024, "peak-RSS-MiB")
		if peer != "" {
			b.ReportMetric(medianMs(pw), "peer-median-ms")
			b.ReportMetric(float64(pr)/1024, "peer-peak-RSS-MiB")
			b.ReportMetric(medianMs(rw)/medianMs(pw), "wall-ratio")
			b.ReportMetric(float64(rr)/float64(pr), "RSS-ratio")
		}
	})
	b.Run("units12", func(b *testing.B) {
		env := benchEnv(b)
		dir := newFilesChange(b, 12, 60)
		var ws []time.Duration
		var rss int64
		for range b.N {
			w, kib := startOnce(b, dir, env, reviewBinary(b), peerScript(b, 12, "0s"),
				"--base", "main", "--format", "json", "--max-steps", "1", "--context-window", "16000")
			ws, rss = append(ws, w), max(rss, kib)
		}
		b.ReportMetric(medianMs(ws), "median-ms")
		b.ReportMetric(float64(rss)/1024, "peak-RSS-MiB")
	})
}

// startOnce runs bin with args in dir from peakrss against a fresh
// scripted server (review's environment env; nil for the peer's, which
// reads its own variables) and returns its wall time and peak RSS in KiB.
// It fails unless the run succeeds and every request was answered by the
// script.
func startOnce(b *testing.B, dir string, env []string, bin string, script *reviewtest.Script, args ...string) (time.Duration, int64) {
	b.StopTimer()
	defer b.StartTimer()
	srv := reviewtest.NewServer(script, "")
	out := filepath.Join(b.TempDir(), "peakrss")
	cmd := exec.Command(rssPath, append([]string{bin}, args...)...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(slices.Clone(env), "OPENAI_BASE_URL="+srv.URL, "REVIEW_STORE="+filepath.Join(b.TempDir(), "store"))
	} else {
		cmd.Env = peerEnv(b, srv.URL)
	}
	cmd.Env = append(cmd.Env, "PEAKRSS_OUT="+out)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	b.StartTimer()
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	b.StopTimer()
	reqs := srv.Requests()
	srv.Close()
	if err != nil {
		b.Fatalf("%s %v: %v\n%s\n%s", filepath.Base(bin), args, err, stdout.String(), stderr.String())
	}
	if !json.Valid(stdout.Bytes()) {
		b.Fatalf("%s %v printed no JSON:\n%s", filepath.Base(bin), args, stdout.String())
	}
	if len(reqs) == 0 {
		b.Fatalf("%s %v sent no request", filepath.Base(bin), args)
	}
	data, err := os.ReadFile(out)
	var kib int64
	if err == nil {
		_, err = fmt.Sscanf(string(data), "peakrss %d", &kib)
	}
	if err != nil {
		b.Fatalf("reading the peak RSS: %v", err)
	}
	return wall, kib
}

// medianMs is the median of ws in milliseconds.
func medianMs(ws []time.Duration) float64 {
	s := slices.Clone(ws)
	slices.Sort(s)
	return float64(s[len(s)/2].Microseconds()) / 1000
}
