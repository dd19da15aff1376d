package cmd

import (
	"errors"
	"io"
	"regexp"
	"strings"
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
		{review.Progress{Step: 9, ToolCalls: 1, Tokens: 30000, Unit: 4, Units: 6, Running: []int{2, 4, 5}}, 3 * time.Second, "units 2, 4, 5 of 6 under way · step 9 · 1 tool call · 30,000 tokens sent · 3s"},
		{review.Progress{Step: 12, ToolCalls: 1, Tokens: 52000, Unit: 6, Units: 6, Running: []int{6}}, 4 * time.Second, "unit 6 of 6 under way · step 12 · 1 tool call · 52,000 tokens sent · 4s"},
	} {
		if got := progressLine(c.p, c.d); got != c.want {
			t.Errorf("progressLine(%+v, %s) = %q, want %q", c.p, c.d, got, c.want)
		}
	}
}

// A streaming answer redraws a terminal's line at most every receiveDraw,
// and writes nothing to a CI log for an answer that arrives quickly, nor
// anything where stderr is neither.
func TestProgressReceiving(t *testing.T) {
	env := func(ci string) func(string) string {
		return func(k string) string {
			if k == "CI" {
				return ci
			}
			return ""
		}
	}
	for _, c := range []struct {
		name  string
		tty   bool
		ci    string
		lines int // drawn or logged while receiving
	}{
		{"terminal", true, "", 1},
		{"ci log", false, "true", 0},
		{"pipe", false, "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var errOut strings.Builder
			p := newProgress(&IOStreams{ErrOut: &errOut, ErrTTY: c.tty}, env(c.ci))
			for i := range 50 {
				p.step(review.Progress{Step: 2, Receiving: true, Received: i})
			}
			if got := strings.Count(errOut.String(), "receiving ~"); got != c.lines {
				t.Errorf("%d receiving lines, want %d: %q", got, c.lines, errOut.String())
			}
			p.step(review.Progress{Step: 2})
			if c.tty || c.ci != "" {
				if !strings.Contains(errOut.String(), "step 2 · 0 tool calls") {
					t.Errorf("no step line after the answer: %q", errOut.String())
				}
			}
		})
	}
}

// TestProgressLog holds the CI log's lines: one per step with the retries
// so far, and one per retry.
func TestProgressLog(t *testing.T) {
	var b strings.Builder
	s := &IOStreams{Out: io.Discard, ErrOut: &b}
	p := newProgress(s, func(k string) string {
		if k == "CI" {
			return "true"
		}
		return ""
	})
	p.step(review.Progress{Step: 1, Tokens: 900})
	p.retry(0, 2*time.Second, errors.New("429 Too Many Requests"))
	p.step(review.Progress{Step: 2, ToolCalls: 3, Tokens: 4100})
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []string{
		`^review: step 1 · 0 tool calls · 900 tokens sent · \d+s · 0 retries$`,
		`^review: retrying in 2s \(attempt 1\): 429 Too Many Requests$`,
		`^review: step 2 · 3 tool calls · 4,100 tokens sent · \d+s · 1 retry$`,
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), b.String())
	}
	for i, w := range want {
		if !regexp.MustCompile(w).MatchString(lines[i]) {
			t.Errorf("line %d = %q, want %s", i+1, lines[i], w)
		}
	}
}
