package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reviewdev/review/review/reviewtest"
)

// BenchmarkProcessStart measures what every command pays before its work,
// side by side with the peer (open-code-review, named by REVIEW_PEER_BIN)
// in one run, each start of review followed by the peer's, so both see the
// machine in the same state:
//
//   - deps: a program that imports every package review's own packages
//     import from outside the module, and does nothing (depsBinary): what
//     the runtime and those packages' initialisation cost a start before
//     any code of review's runs, the least `review version` could take
//     with the libraries it links;
//   - version: `review version`, the start alone;
//   - review3: `review --base main` of a three-line change, one read of
//     the file's diff and the submission from a zero-latency scripted
//     server, with exact counts (the default tokenizer);
//   - peer3: the peer's review of the same change, the same read and
//     its submission (task_done) from the same kind of server;
//   - units12: a review of 12 new files of 60 lines at a 16k window, 12
//     units of a read and a submission each, the server answering at once.
//
// Each reports its median wall time and largest peak RSS, both as peakrss
// measures them around the command alone (its own start, a few
// milliseconds, is not the command's); .ci/start prints them with the
// ratios against the peer and the targets.
//
// REVIEW_BASE_BIN names a review binary of another revision (`.ci/start
// 21x REV` builds one): each start of review is then followed by the same
// start of it, reported as base-…, so that a change is measured against
// its base on the machine as it is at that moment. This machine's speed
// drifts by a third over minutes; figures taken at different times do not
// compare.
func BenchmarkProcessStart(b *testing.B) {
	peer, base := os.Getenv("REVIEW_PEER_BIN"), os.Getenv("REVIEW_BASE_BIN")
	// floor is what starting any process costs here, from peakrss as
	// every start below is: /bin/true, the least a start can take.
	b.Run("floor", func(b *testing.B) {
		var f starts
		for range b.N {
			cmd := exec.Command("/bin/true")
			cmd.Dir = b.TempDir()
			f.add(startTimed(b, cmd, nil))
		}
		b.ReportMetric(f.wall(), "median-ms")
	})
	b.Run("deps", func(b *testing.B) {
		bin := depsBinary(b)
		reviewBinary(b) // and peakrss
		var f starts
		for range b.N {
			cmd := exec.Command(bin)
			cmd.Dir = b.TempDir()
			f.add(startTimed(b, cmd, nil))
		}
		f.report(b, "")
	})
	b.Run("version", func(b *testing.B) {
		env := benchEnv(b)
		var f, o starts
		for range b.N {
			for _, bin := range binaries(b, base) {
				cmd := exec.Command(bin, "version")
				cmd.Dir = b.TempDir()
				which(&f, &o, bin, base).add(startTimed(b, cmd, env))
			}
		}
		f.report(b, "")
		o.reportBase(b, &f)
	})
	b.Run("review3", func(b *testing.B) {
		env := benchEnv(b)
		dir := smallChangeIn(b, "file01.go") // the name both reviewers' scripts read
		var r, p, o starts
		for range b.N {
			for _, bin := range binaries(b, base) {
				which(&r, &o, bin, base).add(startOnce(b, dir, env, bin, peerScript(b, 1, "0s"),
					"--base", "main", "--format", "json", "--max-steps", "1"))
			}
			if peer != "" {
				p.add(startOnce(b, dir, nil, peer, ocrScript(1, "0s"), peerArgs...))
			}
		}
		r.report(b, "")
		o.reportBase(b, &r)
		if peer != "" {
			p.report(b, "peer-")
			b.ReportMetric(r.wall()/p.wall(), "wall-ratio")
			b.ReportMetric(r.cpu()/p.cpu(), "CPU-ratio")
			b.ReportMetric(float64(r.peak)/float64(p.peak), "RSS-ratio")
		}
	})
	b.Run("units12", func(b *testing.B) {
		env := benchEnv(b)
		dir := newFilesChange(b, 12, 60)
		var f, o starts
		for range b.N {
			for _, bin := range binaries(b, base) {
				which(&f, &o, bin, base).add(startOnce(b, dir, env, bin, peerScript(b, 12, "0s"),
					"--base", "main", "--format", "json", "--max-steps", "1", "--context-window", "16000"))
			}
		}
		f.report(b, "")
		o.reportBase(b, &f)
	})
}

// depsBinary builds, as reviewBinary builds review, a program whose only
// code is a blank import of every package that the packages of review's
// binary import from outside its module (the standard library's and the
// modules' in go.mod), and returns its path. Its module is a copy of
// go.mod and go.sum under another name, so it links the same versions.
func depsBinary(b *testing.B) string {
	b.StopTimer()
	defer b.StartTimer()
	out, err := exec.Command("go", "list", "-deps", "-f", `{{with .Module}}{{if .Main}}{{join $.Imports "\n"}}{{end}}{{end}}`, ".").Output()
	if err != nil {
		b.Fatalf("go list: %v", err)
	}
	self, err := exec.Command("go", "list", "-m").Output()
	if err != nil {
		b.Fatalf("go list -m: %v", err)
	}
	mod := strings.TrimSpace(string(self))
	var src strings.Builder
	src.WriteString("// Command deps links review's dependencies and runs nothing but their initialisation.\npackage main\n\nimport (\n")
	seen := map[string]bool{"C": true, "unsafe": true, "embed": true}
	for _, p := range strings.Fields(string(out)) {
		if seen[p] || p == mod || strings.HasPrefix(p, mod+"/") {
			continue
		}
		seen[p] = true
		fmt.Fprintf(&src, "\t_ %q\n", p)
	}
	src.WriteString(")\n\nfunc main() {}\n")
	dir := b.TempDir()
	gomod, err := os.ReadFile("go.mod")
	if err != nil {
		b.Fatal(err)
	}
	gomod = regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(gomod, []byte("module deps"))
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		b.Fatal(err)
	}
	for name, data := range map[string][]byte{"go.mod": gomod, "go.sum": sum, "main.go": []byte(src.String())} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "deps")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), goEnv...), "CGO_ENABLED=0", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build of the dependencies alone: %v\n%s", err, out)
	}
	return bin
}

// binaries are the review binaries each start runs, in turn: this tree's,
// then base's when it is set.
func binaries(b *testing.B, base string) []string {
	if base == "" {
		return []string{reviewBinary(b)}
	}
	return []string{reviewBinary(b), base}
}

// which is the figures bin's start joins: o's for the base, f's otherwise.
func which(f, o *starts, bin, base string) *starts {
	if base != "" && bin == base {
		return o
	}
	return f
}

// start is one start's figures, as peakrss measured them.
type start struct {
	wall, cpu time.Duration
	kib       int64 // peak RSS
}

// starts gathers starts of one command: the median wall and CPU times
// and the largest peak.
type starts struct {
	walls, cpus []time.Duration
	peak        int64
}

func (f *starts) add(s start) {
	f.walls, f.cpus, f.peak = append(f.walls, s.wall), append(f.cpus, s.cpu), max(f.peak, s.kib)
}

func (f *starts) wall() float64 { return medianMs(f.walls) }
func (f *starts) cpu() float64  { return medianMs(f.cpus) }

// reportBase reports o's figures as the base's, with f's against them;
// nothing when the base was not run.
func (o *starts) reportBase(b *testing.B, f *starts) {
	if len(o.walls) == 0 {
		return
	}
	o.report(b, "base-")
	b.ReportMetric(f.wall()/o.wall(), "base-wall-ratio")
	b.ReportMetric(f.cpu()/o.cpu(), "base-CPU-ratio")
}

// report reports f's figures, their names after prefix.
func (f *starts) report(b *testing.B, prefix string) {
	b.ReportMetric(f.wall(), prefix+"median-ms")
	b.ReportMetric(f.cpu(), prefix+"median-CPU-ms")
	b.ReportMetric(float64(f.peak)/1024, prefix+"peak-RSS-MiB")
}

// startOnce runs bin with args in dir from peakrss against a fresh
// scripted server (review's environment env; nil for the peer's, which
// reads its own variables) and returns its figures.
// It fails unless the run succeeds and every request was answered by the
// script.
func startOnce(b *testing.B, dir string, env []string, bin string, script *reviewtest.Script, args ...string) start {
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
	err := cmd.Run()
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
	return readPeak(b, out)
}

// startTimed runs cmd from peakrss, with env and PEAKRSS_OUT, and returns
// its figures as peakrss measured them: the wall time from just before the
// command started to its exit, without peakrss's own start.
func startTimed(b *testing.B, cmd *exec.Cmd, env []string) start {
	b.StopTimer()
	defer b.StartTimer()
	reviewBinary(b) // builds peakrss
	out := filepath.Join(b.TempDir(), "peakrss")
	wrapped := exec.Command(rssPath, append([]string{cmd.Path}, cmd.Args[1:]...)...)
	wrapped.Dir, wrapped.Env = cmd.Dir, append(slices.Clone(env), "PEAKRSS_OUT="+out)
	var stderr bytes.Buffer
	wrapped.Stderr = &stderr
	b.StartTimer()
	err := wrapped.Run()
	b.StopTimer()
	if err != nil {
		b.Fatalf("%s: %v\n%s", cmd, err, stderr.String())
	}
	return readPeak(b, out)
}

// readPeak reads the figures peakrss wrote to out.
func readPeak(b *testing.B, out string) start {
	data, err := os.ReadFile(out)
	var kib, wall, cpu int64
	if err == nil {
		_, err = fmt.Sscanf(string(data), "peakrss %d %d %d", &kib, &wall, &cpu)
	}
	if err != nil {
		b.Fatalf("reading peakrss's figures: %v (%q)", err, data)
	}
	return start{wall: time.Duration(wall) * time.Microsecond, cpu: time.Duration(cpu) * time.Microsecond, kib: kib}
}

// medianMs is the median of ws in milliseconds.
func medianMs(ws []time.Duration) float64 {
	s := slices.Clone(ws)
	slices.Sort(s)
	return float64(s[len(s)/2].Microseconds()) / 1000
}
