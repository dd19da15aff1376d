package toolmem

import (
	"bytes"
	"encoding/json"
	"fmt"
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
