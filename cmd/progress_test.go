package cmd

import (
	"testing"
	"time"

	"github.com/reviewdev/review/review"
)

func TestProgressLine(t *testing.T) {
	for _, c := range []struct {
		p    review.Progress
		d    time.Duration
		want string
	}{
		{review.Progress{Step: 1, ToolCalls: 0, Tokens: 812}, 1400 * time.Millisecond, "step 1 · 0 tool calls · 812 tokens sent · 1s"},
		{review.Progress{Step: 7, ToolCalls: 1, Tokens: 41200, Unit: 2, Units: 5}, 72 * time.Second, "unit 2/5 · step 7 · 1 tool call · 41,200 tokens sent · 1m12s"},
		{review.Progress{Step: 3, ToolCalls: 2, Tokens: 5000, Receiving: true, Received: 1312}, 9 * time.Second, "step 3 · 2 tool calls · 5,000 tokens sent · receiving ~1,312 tokens · 9s"},
	} {
		if got := progressLine(c.p, c.d); got != c.want {
			t.Errorf("progressLine(%+v, %s) = %q, want %q", c.p, c.d, got, c.want)
		}
	}
}
