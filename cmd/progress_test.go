package cmd

import (
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/review"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
)

func TestProgressLine(t *testing.T) {
	for _, c := range []struct {
		p    review.Progress
		cost string
		d    time.Duration
		want string
	}{
		{review.Progress{Step: 4, ToolCalls: 3, Tokens: 23922, Tool: "read_file"}, "$0.0123", 5 * time.Second, "step 4 · 23,922 tokens · 5s · $0.0123 · read_file · 3 tool calls"},
		{review.Progress{Step: 1, ToolCalls: 0, Tokens: 812}, "", 1400 * time.Millisecond, "step 1 · 812 tokens · 1s · 0 tool calls"},
		{review.Progress{Step: 2, ToolCalls: 1, Tokens: 41200, Unit: 3, Units: 12}, "", 72 * time.Second, "unit 3/12 · step 2 · 41,200 tokens · 1m12s · 1 tool call"},
		{review.Progress{Step: 3, ToolCalls: 2, Tokens: 5000, Receiving: true, Received: 1312}, "", 9 * time.Second, "step 3 · 5,000 tokens · 9s · 2 tool calls · receiving ~1,312 tokens"},
		{review.Progress{Step: 2, ToolCalls: 1, Tokens: 30000, Unit: 4, Units: 6, Running: []int{2, 4, 5}}, "", 3 * time.Second, "unit 4/6 · step 2 · 30,000 tokens · 3s · 1 tool call · units 2, 4, 5 under way"},
		{review.Progress{Step: 3, ToolCalls: 1, Tokens: 52000, Unit: 6, Units: 6, Running: []int{6}}, "", 4 * time.Second, "unit 6/6 · step 3 · 52,000 tokens · 4s · 1 tool call"},
		// The README's example.
		{review.Progress{Step: 2, ToolCalls: 3, Tokens: 41200, Tool: toolname.ReadFileHunk, Unit: 3, Units: 12}, "$0.0123", 72 * time.Second, "unit 3/12 · step 2 · 41,200 tokens · 1m12s · $0.0123 · read_file_hunk · 3 tool calls"},
	} {
		if got := progressLine(c.p, c.cost, c.d); got != c.want {
			t.Errorf("progressLine(%+v, %s) = %q, want %q", c.p, c.d, got, c.want)
		}
	}
}

// A streaming answer redraws a terminal's line at most every receiveDraw,
// and writes nothing to a CI log for an answer that arrives quickly, nor
// anything where stderr is neither.
func TestProgressReceiving(t *testing.T) {
	for _, c := range []struct {
		name  string
		tty   bool
		ci    bool
		lines int // drawn or logged while receiving
	}{
		{"terminal", true, false, 1},
		{"ci log", false, true, 0},
		{"pipe", false, false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var errOut strings.Builder
			p := newProgress(&IOStreams{ErrOut: &errOut, ErrTTY: c.tty}, c.ci, nil)
			for i := range 50 {
				p.step(review.Progress{Step: 2, Receiving: true, Received: i})
			}
			if got := strings.Count(errOut.String(), "receiving ~"); got != c.lines {
				t.Errorf("%d receiving lines, want %d: %q", got, c.lines, errOut.String())
			}
			p.step(review.Progress{Step: 2})
			if c.tty || c.ci {
				if !strings.Contains(errOut.String(), "step 2 · 0 tokens") {
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
	p := newProgress(s, true, nil)
	p.step(review.Progress{Step: 1, Tokens: 900})
	p.retry(0, 2*time.Second, errors.New("429 Too Many Requests"))
	p.step(review.Progress{Step: 2, ToolCalls: 3, Tokens: 4100})
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []string{
		`^review: step 1 · 900 tokens · \d+s · 0 tool calls · 0 retries$`,
		`^review: retrying in 2s \(attempt 1\): 429 Too Many Requests$`,
		`^review: step 2 · 4,100 tokens · \d+s · 3 tool calls · 1 retry$`,
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

// On a terminal the line never wraps, whatever the width: it is cut to
// fit, and names the running tool and the cost so far when the price is
// known. At 50 columns the unit, the tokens sent and the time come before
// the tool's name, which is cut first.
func TestProgressFitsWidth(t *testing.T) {
	for _, width := range []int{20, 50, 80, 200} {
		var errOut strings.Builder
		s := &IOStreams{ErrOut: &errOut, ErrTTY: true, Width: func() int { return width }}
		p := newProgress(s, false, &llm.Price{Prompt: 2.5, Completion: 10})
		p.step(review.Progress{Step: 2, ToolCalls: 31, Tokens: 1234567, Unit: 3, Units: 12, Tool: "get_dependencies",
			Usage: result.RunUsage{Requests: 12, Prompt: 1234567, Completion: 4000}})
		for _, draw := range strings.Split(errOut.String(), "\r\033[K")[1:] {
			if n := utf8.RuneCountInString(draw); n >= width {
				t.Errorf("width %d: drawn %d columns: %q", width, n, draw)
			}
		}
		if width == 50 && !regexp.MustCompile(`unit 3/12 · step 2 · 1,234,567 tokens · \d+s`).MatchString(errOut.String()) {
			t.Errorf("width 50: %q", errOut.String())
		}
		if width == 200 && !regexp.MustCompile(`unit 3/12 · step 2 · 1,234,567 tokens · \d+s · \$3\.13 · get_dependencies · 31 tool calls`).MatchString(errOut.String()) {
			t.Errorf("width 200: %q", errOut.String())
		}
	}
}

// --quiet draws nothing; --verbose adds a line per request with its
// tokens.
func TestProgressQuietVerbose(t *testing.T) {
	var quiet, verbose strings.Builder
	q := newProgress(&IOStreams{ErrOut: &quiet, ErrTTY: true, Quiet: true}, false, nil)
	v := newProgress(&IOStreams{ErrOut: &verbose, Verbose: true}, false, nil)
	for _, p := range []*progress{q, v} {
		p.step(review.Progress{Step: 1, Usage: result.RunUsage{Requests: 1, Prompt: 13642, Completion: 300, Own: 13500}})
		p.step(review.Progress{Step: 1, Tool: "read_file"})
		p.step(review.Progress{Step: 2, Usage: result.RunUsage{Requests: 2, Prompt: 30000, Cached: 13000, Completion: 500, Own: 29000}})
		p.retry(0, time.Second, errors.New("429"))
	}
	if quiet.Len() != 0 {
		t.Errorf("quiet wrote %q", quiet.String())
	}
	want := "review: request 1 · 13,642 prompt tokens · 300 completion tokens · our count 13,500\n" +
		"review: request 2 · 16,358 prompt tokens (13,000 cached) · 200 completion tokens · our count 15,500\n"
	if verbose.String() != want {
		t.Errorf("verbose wrote\n%s\nwant\n%s", verbose.String(), want)
	}
}

// A rate limit says so, and until when the run waits.
func TestProgressRateLimit(t *testing.T) {
	var b strings.Builder
	s := &IOStreams{Out: io.Discard, ErrOut: &b}
	p := newProgress(s, true, nil)
	p.retry(4, 3*time.Second, &llm.APIError{Status: 429, Message: "Rate limit reached"})
	if !regexp.MustCompile(`^review: the server is rate-limiting until \d\d:\d\d:\d\d: retrying in 3s \(attempt 5\): model endpoint answered HTTP 429: Rate limit reached\n$`).MatchString(b.String()) {
		t.Errorf("got %q", b.String())
	}
}
