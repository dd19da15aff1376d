package toolmem

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// textOutput returns about n bytes of tool-like output.
func textOutput(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "internal/pkg/file%04d.go:%d: result line with some text, match %d\n", i%1000, i, i)
	}
	return b.Bytes()[:n]
}

func BenchmarkPut1MB(b *testing.B) {
	s := openTest(b)
	data := textOutput(1 << 20)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		// A few calls over and over: the store stays small, as in a run.
		if _, err := s.Put("run", i%8, "call", "t", "", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGet1MB(b *testing.B) {
	s := openTest(b)
	data := textOutput(1 << 20)
	ref, err := s.Put("run", 1, "call", "t", "", data)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := s.Get(ref); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPreview50MB(b *testing.B) {
	data := textOutput(50 << 20)
	b.SetBytes(int64(len(data)))
	var out string
	for b.Loop() {
		out = Preview(testRef, data, Limits{})
	}
	b.ReportMetric(float64(len(out)), "preview-bytes")
	b.ReportMetric(float64(len(data))/float64(len(out)), "ratio")
}

func BenchmarkPage50MB(b *testing.B) {
	s := openTest(b)
	data := textOutput(50 << 20)
	ref, err := s.Put("run", 1, "call", "t", "", data)
	if err != nil {
		b.Fatal(err)
	}
	total := countLines(data)
	for i := 0; b.Loop(); i++ {
		if _, err := s.Page(ref, 1+(i*7919)%total, DefaultPageLines, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPutStep measures a step record, whose sync to disk runs in the
// background (Store.sync), against BenchmarkPutSmall, the same bytes as
// an output, which is not synced.
func BenchmarkPutStep(b *testing.B) {
	s := openTest(b)
	req := json.RawMessage(textOutput(2 << 10))
	for i := 0; b.Loop(); i++ {
		if err := s.PutStep(Step{Run: "run", N: i % 64, Request: req, Started: time.Now()}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPutSmall(b *testing.B) {
	s := openTest(b)
	data := textOutput(2 << 10)
	for i := 0; b.Loop(); i++ {
		if _, err := s.Put("run", i%64, "call", "t", "", data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpen opens and closes for writing a store of 100 reviews, each
// written by an open of its own, with and without the read-only probe
// that goes before every writable open (see probe).
func BenchmarkOpen(b *testing.B) {
	dir := b.TempDir() + "/store"
	for i := range 100 {
		s, err := Open(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		id := fmt.Sprintf("run-%d", i)
		if err := s.PutRun(Run{ID: id, Status: StatusComplete, Started: time.Unix(int64(i), 0)}); err != nil {
			b.Fatal(err)
		}
		for n := range 10 {
			if err := s.PutStep(Step{Run: id, N: n + 1, Request: textOutput(9000), Response: textOutput(2000)}); err != nil {
				b.Fatal(err)
			}
			if _, err := s.Put(id, n+1, "call", "t", "{}", textOutput(20000)); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		f    func() error
	}{
		{"writable", func() error {
			s, err := Open(dir, Options{})
			if err != nil {
				return err
			}
			return s.Close()
		}},
		{"probe", func() error { return probe(dir, badgerOptions(dir, nil), false) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if err := tc.f(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// smallReview writes to s what a review of a three-line change writes: its
// run record, two steps (the second request about 12 KB), a stored
// output, a few events and the conversation, the run record again at the
// end.
func smallReview(s *Store, id string) error {
	run := Run{ID: id, Status: StatusRunning, Started: time.Unix(1, 0), Settings: json.RawMessage(`{"units":1}`)}
	if err := s.PutRun(run); err != nil {
		return err
	}
	for n := 1; n <= 2; n++ {
		if err := s.AddEvent(id, n, json.RawMessage(`{"kind":"sent"}`)); err != nil {
			return err
		}
		st := Step{Run: id, N: n, Request: textOutput(6000 * n), Started: time.Unix(1, 0)}
		if err := s.PutStep(st); err != nil {
			return err
		}
		st.Response = textOutput(800)
		if err := s.PutStep(st); err != nil {
			return err
		}
		if n == 1 {
			if _, err := s.Put(id, n, "call", "t", "{}", textOutput(3000)); err != nil {
				return err
			}
		}
		if err := s.PutConversation(id, Conversation{Parts: [][]byte{textOutput(3000), textOutput(500 * n)}}); err != nil {
			return err
		}
	}
	run.Status, run.Ended = StatusComplete, time.Unix(2, 0)
	return s.PutRun(run)
}

// BenchmarkSmallReview creates a store, writes a small review to it
// (smallReview) and closes it, as the first review of a clone does, each
// time in a process of its own (smallReviewChild), whose heap and page
// tables are as fresh as a review's: the medians of the time it takes,
// the CPU it uses (user and system, Badger's goroutines included), the
// page faults it takes and what it adds to the process's peak RSS.
// TOOLMEM_TEST_OPTIONS names other options of footprintOptions to compare.
func BenchmarkSmallReview(b *testing.B) {
	var wall, cpu, faults, rss []float64
	for b.Loop() {
		m := childFigures(b, "small-review", filepath.Join(b.TempDir(), "store"), "TOOLMEM_TEST_OPTIONS="+os.Getenv("TOOLMEM_TEST_OPTIONS"))
		wall, cpu = append(wall, m["wall_us"]/1000), append(cpu, m["cpu_us"]/1000)
		faults, rss = append(faults, m["faults"]), append(rss, m["rss_kb"]/1024)
	}
	b.ReportMetric(median(wall), "wall-ms")
	b.ReportMetric(median(cpu), "cpu-ms")
	b.ReportMetric(median(faults), "faults")
	b.ReportMetric(median(rss), "peak-RSS-MiB-added")
}

func median(v []float64) float64 {
	slices.Sort(v)
	return v[len(v)/2]
}
