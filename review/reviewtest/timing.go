package reviewtest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Timing is when a recorded request arrived and was answered, and the
// answer's status, as the server wrote it to req-NNN.timing.
type Timing struct {
	N                 int
	Arrived, Answered time.Time
	Status            int
}

// ReadTimings reads the timings the server recorded in dir, in request
// order. A request still unanswered has none.
func ReadTimings(dir string) ([]Timing, error) {
	files, err := filepath.Glob(filepath.Join(dir, "req-*.timing"))
	if err != nil {
		return nil, err
	}
	var out []Timing
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var t Timing
		var a, b int64
		if _, err := fmt.Sscanf(filepath.Base(f), "req-%d.timing", &t.N); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if _, err := fmt.Sscanf(string(data), "%d %d %d", &a, &b, &t.Status); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		t.Arrived, t.Answered = time.Unix(0, a), time.Unix(0, b)
		out = append(out, t)
	}
	slices.SortFunc(out, func(x, y Timing) int { return x.N - y.N })
	return out, nil
}

// Overlap says how requests overlapped: the most in flight at once, and
// the answer-waits in sequence, the longest chain of requests each of
// which arrived after the one before it was answered. A review of units
// side by side waits for as many answers in sequence as its longest
// unit makes requests (times the rounds of units, when there are more
// units than jobs), not for all of them.
func Overlap(ts []Timing) (inflight, waits int) {
	byArrival := slices.Clone(ts)
	slices.SortFunc(byArrival, func(x, y Timing) int { return x.Arrived.Compare(y.Arrived) })
	depth := make([]int, len(byArrival))
	for i, r := range byArrival {
		open := 1
		depth[i] = 1
		for j, q := range byArrival[:i] {
			if q.Answered.After(r.Arrived) {
				open++
			} else {
				depth[i] = max(depth[i], depth[j]+1)
			}
		}
		inflight = max(inflight, open)
		waits = max(waits, depth[i])
	}
	return inflight, waits
}
