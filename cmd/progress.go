package cmd

import (
	"fmt"
	"time"

	"github.com/reviewdev/review/review"
)

// progress draws a live status line on a terminal's standard error and
// nothing at all otherwise, so CI logs stay clean.
type progress struct {
	io    *IOStreams
	drawn bool
}

func newProgress(s *IOStreams) *progress { return &progress{io: s} }

func (p *progress) step(s review.Progress) {
	if !p.io.ErrTTY {
		return
	}
	fmt.Fprintf(p.io.ErrOut, "\r\033[K  step %d · %d tool calls · %d tokens sent", s.Step, s.ToolCalls, s.Tokens)
	p.drawn = true
}

func (p *progress) retry(attempt int, wait time.Duration, err error) {
	if !p.io.ErrTTY {
		return
	}
	fmt.Fprintf(p.io.ErrOut, "\r\033[K  retrying in %s (attempt %d): %v", wait.Round(100*time.Millisecond), attempt+1, err)
	p.drawn = true
}

func (p *progress) done() {
	if p.drawn {
		fmt.Fprint(p.io.ErrOut, "\r\033[K")
		p.drawn = false
	}
}
