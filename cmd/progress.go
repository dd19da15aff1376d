package cmd

import (
	"fmt"
	"time"

	"github.com/reviewdev/review/conversation/text"
	"github.com/reviewdev/review/review"
)

// progress draws a live status line on a terminal's standard error and
// nothing at all otherwise, so CI logs stay clean. It writes its own
// control sequences to the unfiltered stream, and text it did not make
// (a provider's error) only cleaned and on one line.
type progress struct {
	io    *IOStreams
	drawn bool
}

func newProgress(s *IOStreams) *progress { return &progress{io: s} }

func (p *progress) step(s review.Progress) {
	if !p.io.ErrTTY {
		return
	}
	fmt.Fprintf(p.io.rawErr(), "\r\033[K  step %d · %d tool calls · %d tokens sent", s.Step, s.ToolCalls, s.Tokens)
	p.drawn = true
}

func (p *progress) retry(attempt int, wait time.Duration, err error) {
	if !p.io.ErrTTY {
		return
	}
	fmt.Fprintf(p.io.rawErr(), "\r\033[K  retrying in %s (attempt %d): %s", wait.Round(100*time.Millisecond), attempt+1, text.OneLine(text.Clean(err.Error()), 300))
	p.drawn = true
}

func (p *progress) done() {
	if p.drawn {
		fmt.Fprint(p.io.rawErr(), "\r\033[K")
		p.drawn = false
	}
}
