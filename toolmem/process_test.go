package toolmem

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// Child processes are the test binary itself, run with these variables.
const (
	helperEnv = "TOOLMEM_TEST_HELPER" // what the child does
	dirEnv    = "TOOLMEM_TEST_DIR"    // the store it opens
	// How far a writer may run ahead of its parent (see helper); unset,
	// as far as it can.
	slackEnv = "TOOLMEM_TEST_SLACK"
	// With "tree", most of a writer's values stay in the LSM tree.
	sizesEnv = "TOOLMEM_TEST_SIZES"
	// The level-0 tables Badger merges from in the child
	// (levelZeroTables); unset, the store's own.
	levelZeroEnv = "TOOLMEM_TEST_L0"
)

// TestHelperProcess is not a test: it is the child process of the tests
// that need a second process on a store.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("run as a child process only")
	}
	if n, err := strconv.Atoi(os.Getenv(levelZeroEnv)); err == nil {
		levelZeroTables = n
	}
	if err := helper(mode, os.Getenv(dirEnv)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

func helper(mode, dir string) error {
	switch mode {
	case "write":
		// Write outputs and steps until killed, reporting each once it
		// is committed. With slackEnv set to n, write i > n waits for
		// a byte on stdin, which the parent sends for each report it
		// reads: the writer stays at most n writes ahead of it rather
		// than as far as the pipe holds (some 800 writes, minutes of
		// writing under the race detector).
		slack, err := strconv.Atoi(cmp.Or(os.Getenv(slackEnv), "-1"))
		if err != nil {
			return err
		}
		credit := bufio.NewReader(os.Stdin)
		s, err := Open(dir, Options{LockWait: -1})
		if err != nil {
			return err
		}
		for i := 0; ; i++ {
			if slack >= 0 && i > slack {
				if _, err := credit.ReadByte(); err != nil {
					return err
				}
			}
			data := randomBytes(uint64(i), writeSize(i, os.Getenv(sizesEnv)))
			sum := sha256.Sum256(data)
			if i%3 == 2 {
				if err := s.PutStep(Step{Run: "run", N: i, Request: data}); err != nil {
					return err
				}
				fmt.Printf("step %d %x\n", i, sum)
				continue
			}
			ref, err := s.Put("run", i, strconv.Itoa(i), "t", "", data)
			if err != nil {
				return err
			}
			fmt.Printf("output %s %x\n", ref, sum)
		}
	case "hold":
		// Hold the store until stdin closes.
		s, err := Open(dir, Options{LockWait: -1})
		if err != nil {
			return err
		}
		fmt.Println("ready")
		_, _ = io.Copy(io.Discard, os.Stdin)
		return s.Close()
	case "footprint":
		return footprint(dir, os.Getenv("TOOLMEM_TEST_OPTIONS"))
	case "small-review":
		return smallReviewChild(dir)
	}
	return fmt.Errorf("unknown helper mode %q", mode)
}

// writeSize is the size of the writer's write i: from a kilobyte to
// nearly half a megabyte (all but the first two of each 13 over
// valueThreshold, in the value log). With sizes "tree", only every
// fourth write is that size and the others are at most 61,000 bytes, under
// valueThreshold: they fill the LSM tree's memtables, which are written
// as tables, and the tables are merged.
func writeSize(i int, sizes string) int {
	if sizes == "tree" && i%4 != 0 {
		return 1000 + (i%13)*5000
	}
	return 1000 + (i%13)*40000
}

// child starts the test binary as a helper on dir and returns it with its
// stdin and stdout.
func child(t testing.TB, mode, dir string, env ...string) (*exec.Cmd, io.WriteCloser, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), append(env, helperEnv+"="+mode, dirEnv+"="+dir)...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd, stdin, bufio.NewScanner(stdout)
}

func TestReopenAfterKill(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	cmd, _, out := child(t, "write", dir)
	reported := map[string]string{} // "output <ref>" or "step <n>" -> sha256
	for out.Scan() && len(reported) < 60 {
		f := strings.Fields(out.Text())
		if len(f) != 3 {
			t.Fatalf("child said %q", out.Text())
		}
		reported[f[0]+" "+f[1]] = f[2]
	}
	if len(reported) < 60 {
		t.Fatalf("child reported %d writes, then: %v", len(reported), out.Err())
	}
	// The child is in the middle of its next write.
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	s, err := Open(dir, Options{LockWait: 5 * time.Second})
	if err != nil {
		t.Fatalf("reopening after SIGKILL: %v", err)
	}
	defer s.Close()
	steps, err := s.Steps("run")
	if err != nil {
		t.Fatal(err)
	}
	stepSums := map[string]string{}
	for _, st := range steps {
		sum := sha256.Sum256(st.Request)
		stepSums[strconv.Itoa(st.N)] = hex.EncodeToString(sum[:])
	}
	for what, want := range reported {
		kind, id, _ := strings.Cut(what, " ")
		var got string
		if kind == "step" {
			got = stepSums[id]
		} else {
			data, err := s.Get(id)
			if err != nil {
				t.Errorf("%s: %v", what, err)
				continue
			}
			sum := sha256.Sum256(data)
			got = hex.EncodeToString(sum[:])
		}
		if got != want {
			t.Errorf("%s: sha256 %q after reopening, want %q", what, got, want)
		}
	}
	// The store still takes writes.
	if _, err := s.Put("run", 1000, "after", "t", "", []byte("x")); err != nil {
		t.Fatal(err)
	}
}

func TestLockedByAnotherProcess(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	cmd, stdin, out := child(t, "hold", dir)
	if !out.Scan() || out.Text() != "ready" {
		t.Fatalf("child did not open the store: %q %v", out.Text(), out.Err())
	}

	const wait = 400 * time.Millisecond
	start := time.Now()
	_, err := Open(dir, Options{LockWait: wait})
	took := time.Since(start)
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("Open of a held store: %v, want ErrLocked", err)
	}
	// Not giving up would wait until the child lets go, at the test's end.
	if took < wait || took > wait+time.Minute {
		t.Errorf("Open gave up after %v, want about %v", took, wait)
	}
	var le *LockedError
	if !errors.As(err, &le) || le.Dir != dir || le.Waited != wait {
		t.Errorf("error %#v, want a *LockedError for %s after %v", err, dir, wait)
	}

	// Open waits for the other process to finish.
	time.AfterFunc(300*time.Millisecond, func() { stdin.Close() })
	s, err := Open(dir, Options{LockWait: 10 * time.Second})
	if err != nil {
		t.Fatalf("Open while the other process finishes: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// footprintOptions are the Badger options BenchmarkFootprint compares.
var footprintOptions = map[string]func(dir string, errLog io.Writer) badger.Options{
	"small": badgerOptions,
	"badger-defaults": func(dir string, _ io.Writer) badger.Options {
		return badger.DefaultOptions(dir).WithLogger(nil)
	},
	// For BenchmarkSmallReview: the memtable at 1 MiB (memTableSize's doc).
	"mem1": func(dir string, w io.Writer) badger.Options {
		return badgerOptions(dir, w).WithMemTableSize(1 << 20)
	},
	// Value log files of 1 MiB (valueLogFileSize's doc).
	"vlog1": func(dir string, w io.Writer) badger.Options {
		return badgerOptions(dir, w).WithValueLogFileSize(1 << 20)
	},
}

// footprint opens a fresh store in dir with the named options, then uses
// it as a review does (40 outputs of 256 KiB written, read and paged), and
// prints the process's resident memory and the store's disk use before and
// after, as JSON.
func footprint(dir, name string) error {
	bopts, ok := footprintOptions[name]
	if !ok {
		return fmt.Errorf("unknown options %q", name)
	}
	s, err := open(dir, Options{}, bopts)
	if err != nil {
		return err
	}
	defer s.Close()
	m := map[string]int64{}
	measure := func(when string) error {
		runtime.GC()
		rss, err := residentKB()
		if err != nil {
			return err
		}
		disk, err := diskUsage(dir)
		if err != nil {
			return err
		}
		var apparent int64
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if info, err := e.Info(); err == nil {
				apparent += info.Size()
			}
		}
		m["rss_kb_"+when], m["disk_"+when], m["apparent_"+when] = rss, disk, apparent
		return nil
	}
	if err := measure("fresh"); err != nil {
		return err
	}
	data := textOutput(256 << 10)
	for i := range 40 {
		ref, err := s.Put("run", i, strconv.Itoa(i), "t", "", data)
		if err != nil {
			return err
		}
		if _, err := s.Get(ref); err != nil {
			return err
		}
		if _, err := s.Page(ref, 100, 80, 0); err != nil {
			return err
		}
	}
	if err := measure("used"); err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(m)
}

// residentKB reads the process's resident set size from /proc.
func residentKB() (int64, error) { return statusKB("VmRSS") }

// peakKB reads the process's peak resident set size from /proc.
func peakKB() (int64, error) { return statusKB("VmHWM") }

// statusKB reads a figure in kB of /proc/self/status.
func statusKB(name string) (int64, error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, name+":"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc/self/status", name)
}

// childFigures runs the helper mode on dir in a child process and returns
// the figures it prints as JSON.
func childFigures(b *testing.B, mode, dir string, env ...string) map[string]float64 {
	cmd, _, out := child(b, mode, dir, env...)
	var buf bytes.Buffer
	for out.Scan() {
		buf.Write(out.Bytes())
	}
	if err := cmd.Wait(); err != nil {
		b.Fatal(err)
	}
	var m map[string]float64
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		b.Fatalf("child said %q: %v", buf.String(), err)
	}
	return m
}

// BenchmarkFootprint reports what a freshly opened store costs in memory
// and disk with the options Open uses and with Badger's defaults, each in a
// process of its own.
func BenchmarkFootprint(b *testing.B) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("needs /proc")
	}
	for _, name := range []string{"small", "badger-defaults"} {
		b.Run(name, func(b *testing.B) {
			var m map[string]int64
			for b.Loop() {
				dir := filepath.Join(b.TempDir(), "store")
				cmd, _, out := child(b, "footprint", dir, "TOOLMEM_TEST_OPTIONS="+name)
				var buf bytes.Buffer
				for out.Scan() {
					buf.Write(out.Bytes())
				}
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
				if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
					b.Fatalf("child said %q: %v", buf.String(), err)
				}
			}
			for _, when := range []string{"fresh", "used"} {
				b.ReportMetric(float64(m["rss_kb_"+when])/1024, "rss-MiB-"+when)
				b.ReportMetric(float64(m["disk_"+when])/1024, "disk-KiB-"+when)
				b.ReportMetric(float64(m["apparent_"+when])/(1<<20), "apparent-MiB-"+when)
			}
		})
	}
}
