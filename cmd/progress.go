package cmd

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review"
)

// progress draws a live status line on a terminal's standard error; in
// CI (CI or GITHUB_ACTIONS set), where stderr is a log, it writes a line
// per step and per retry instead, so a long review shows that it moves;
// elsewhere nothing. It writes its own control sequences to the
// unfiltered stream, and text it did not make (a provider's error) only
// cleaned and on one line.
type progress struct {
	io    *IOStreams
	drawn bool
	start time.Time
	log   bool // a line per event: stderr is a CI log
	// last is when a streaming answer's progress was last shown: on a
	// terminal at most every receiveDraw, in a CI log every receiveLog.
	last time.Time
	// retries counts the retries of the run so far, for the CI log's
	// step lines: a slow review that is retrying says so at every step.
	retries int
	// mu orders the lines of units side by side, which report at once.
	mu sync.Mutex
}

// How often the tokens of a streaming answer are shown.
const (
	receiveDraw = 100 * time.Millisecond
	receiveLog  = 30 * time.Second
)

func newProgress(s *IOStreams, getenv func(string) string) *progress {
	ci := getenv("CI") != "" || getenv("GITHUB_ACTIONS") != ""
	return &progress{io: s, start: time.Now(), log: !s.ErrTTY && ci}
}

func (p *progress) step(s review.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.Receiving {
		every := receiveDraw
		if p.log {
			// A CI log gets a line only for an answer that takes long.
			every = receiveLog
			if p.last.IsZero() {
				p.last = time.Now()
			}
		}
		if time.Since(p.last) < every || (!p.log && !p.io.ErrTTY) {
			return
		}
		p.last = time.Now()
	} else {
		p.last = time.Time{}
	}
	if p.log {
		n := fmt.Sprintf("%d retries", p.retries)
		if p.retries == 1 {
			n = "1 retry"
		}
		fmt.Fprintf(p.io.ErrOut, "review: %s · %s\n", progressLine(s, time.Since(p.start)), n)
		return
	}
	if !p.io.ErrTTY {
		return
	}
	fmt.Fprintf(p.io.rawErr(), "\r\033[K  %s", progressLine(s, time.Since(p.start)))
	p.drawn = true
}

func (p *progress) retry(attempt int, wait time.Duration, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.retries++
	if p.log {
		fmt.Fprintf(p.io.ErrOut, "review: retrying in %s (attempt %d): %s\n", wait.Round(100*time.Millisecond), attempt+1, text.OneLine(errorLine(err), 300))
		return
	}
	if !p.io.ErrTTY {
		return
	}
	fmt.Fprintf(p.io.rawErr(), "\r\033[K  retrying in %s (attempt %d): %s", wait.Round(100*time.Millisecond), attempt+1, text.OneLine(text.Clean(errorLine(err)), 300))
	p.drawn = true
}

func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.io.rawErr(), "\r\033[K")
		p.drawn = false
	}
}

// progressLine says where a review is: "unit 2/5 · step 7 · 3 tool calls ·
// 41,200 tokens sent · 1m12s", with "receiving ~312 tokens" before the
// time while an answer streams in; units side by side start "units 2, 3
// of 5 under way".
func progressLine(s review.Progress, elapsed time.Duration) string {
	var b strings.Builder
	switch {
	case len(s.Running) > 0:
		fmt.Fprintf(&b, "%s of %d under way · ", unitList(s.Running), s.Units)
	case s.Units > 1:
		fmt.Fprintf(&b, "unit %d/%d · ", s.Unit, s.Units)
	}
	fmt.Fprintf(&b, "step %d · %s · %s tokens sent · ", s.Step, text.Plural(s.ToolCalls, "tool call"),
		humanize.Comma(int64(s.Tokens)))
	if s.Receiving {
		fmt.Fprintf(&b, "receiving ~%s tokens · ", humanize.Comma(int64(s.Received)))
	}
	b.WriteString(elapsed.Round(time.Second).String())
	return b.String()
}

// unitList names the units under way: "unit 3", "units 1, 2, 4".
func unitList(ks []int) string {
	ns := make([]string, len(ks))
	for i, k := range ks {
		ns[i] = fmt.Sprint(k)
	}
	if len(ks) == 1 {
		return "unit " + ns[0]
	}
	return "units " + strings.Join(ns, ", ")
}
