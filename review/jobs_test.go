package review

import (
	"testing"

	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
)

// Without --jobs: what the server serves at once, else 8 for a hosted
// API, 4 for a local server that does not say.
func TestJobsFor(t *testing.T) {
	for _, c := range []struct {
		d    llm.Discovery
		jobs int
		why  string
	}{
		{llm.Discovery{Parallel: 1, ParallelSource: "llama.cpp /props total_slots"}, 1, "the server serves 1 at once (llama.cpp /props total_slots)"},
		{llm.Discovery{Parallel: 6, ParallelSource: "llama.cpp /slots"}, 6, "the server serves 6 at once (llama.cpp /slots)"},
		{llm.Discovery{Hosted: true}, result.DefaultJobs, "hosted API"},
		{llm.Discovery{}, result.LocalJobs, "a local server that does not say how many requests it serves at once"},
	} {
		if n, why := JobsFor(c.d); n != c.jobs || why != c.why {
			t.Errorf("JobsFor(%+v) = %d, %q; want %d, %q", c.d, n, why, c.jobs, c.why)
		}
	}
}
