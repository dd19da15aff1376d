package cmd

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
)

// progress draws a live status line on a terminal's standard error; in
// CI (ciFrom), where stderr is a log, it writes a line
// per step and per retry instead, so a long review shows that it moves;
// elsewhere nothing. It writes its own control sequences to the
// unfiltered stream, and text it did not make (a provider's error) only
// cleaned and on one line.
type progress struct {
	io    *IOStreams
	drawn bool
	start time.Time
	log   bool // a line per event: stderr is a CI log
	// price prices the run so far, when the model's price is known.
	price *llm.Price
	// usage is the run's usage at the last request, for --verbose's line
	// per request.
	usage result.RunUsage
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

// newProgress makes the progress of a run whose tokens cost price, nil
// when it is not known; in CI (ciFrom), where standard error is a job's
// log, progress is a line per step.
func newProgress(s *IOStreams, ci bool, price *llm.Price) *progress {
	return &progress{io: s, start: time.Now(), log: !s.ErrTTY && ci, price: price}
}

// priceOf is the price of the configured model's tokens: as configured,
// else its list price; nil when neither is known.
func priceOf(model string, configured *llm.Price) *llm.Price {
	if configured != nil {
		return configured
	}
	if p, ok := llm.PriceFor(model); ok {
		return &p
	}
	return nil
}

func (p *progress) step(s review.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.io.Quiet {
		return
	}
	if p.io.Verbose && s.Usage.Requests > p.usage.Requests {
		p.request(s)
	}
	if s.Tool != "" && !p.io.ErrTTY {
		return // a CI log gets a line per step, not per tool call
	}
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
		fmt.Fprintf(p.io.ErrOut, "review: %s · %s\n", progressLine(s, p.cost(s), time.Since(p.start)), n)
		return
	}
	if !p.io.ErrTTY {
		return
	}
	p.draw(progressLine(s, p.cost(s), time.Since(p.start)))
}

// draw replaces the terminal's status line with line, cut to the
// terminal's width: a line that wrapped could not be redrawn in place.
func (p *progress) draw(line string) {
	fmt.Fprintf(p.io.rawErr(), "\r\033[K  %s", text.Truncate(line, p.io.width()-3))
	p.drawn = true
}

// begin takes the usage a continued run had before this command, so
// --verbose's lines count this command's requests alone.
func (p *progress) begin(u result.RunUsage) { p.usage = u }

// request says what the request just answered took, for --verbose.
func (p *progress) request(s review.Progress) {
	u, was := s.Usage, p.usage
	p.usage = u
	p.clear()
	line := fmt.Sprintf("review: request %d · %s prompt tokens", u.Requests, text.Number(u.Prompt-was.Prompt))
	if c := u.Cached - was.Cached; c > 0 {
		line += fmt.Sprintf(" (%s cached)", text.Number(c))
	}
	line += fmt.Sprintf(" · %s completion tokens", text.Number(u.Completion-was.Completion))
	if r := u.Reasoning - was.Reasoning; r > 0 {
		line += fmt.Sprintf(" (%s reasoning)", text.Number(r))
	}
	line += fmt.Sprintf(" · our count %s", text.Number(u.Own-was.Own))
	fmt.Fprintln(p.io.ErrOut, line)
}

// cost is what the run has cost so far, "" when the price is not known.
func (p *progress) cost(s review.Progress) string {
	if p.price == nil || s.Usage.Requests == 0 {
		return ""
	}
	return llm.FormatUSD(s.Usage.Cost(*p.price))
}

func (p *progress) retry(attempt int, wait time.Duration, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.retries++
	if p.io.Quiet {
		return
	}
	what := fmt.Sprintf("retrying in %s (attempt %d)", wait.Round(100*time.Millisecond), attempt+1)
	if limited(err) {
		// A rate limit is waited out as long as the server names its
		// end and the deadline allows: say so, and until when.
		what = fmt.Sprintf("the server is rate-limiting until %s: %s", time.Now().Add(wait).Format("15:04:05"), what)
	}
	if p.log {
		fmt.Fprintf(p.io.ErrOut, "review: %s: %s\n", what, text.OneLine(errorLine(err), 300))
		return
	}
	if !p.io.ErrTTY {
		return
	}
	p.draw(fmt.Sprintf("%s: %s", what, text.OneLine(text.Clean(errorLine(err)), 0)))
}

// limited reports whether err is the server's rate limit (HTTP 429).
func limited(err error) bool {
	var ae *llm.APIError
	return errors.As(err, &ae) && ae.Status == http.StatusTooManyRequests
}

// warn writes a warning line, under the status line if one is drawn:
// units side by side may warn while another draws it.
func (p *progress) warn(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	fmt.Fprintln(p.io.ErrOut, line)
}

func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

// clear takes the status line off the terminal; p.mu is held.
func (p *progress) clear() {
	if p.drawn {
		fmt.Fprint(p.io.rawErr(), "\r\033[K")
		p.drawn = false
	}
}

// progressLine says where a review is: "unit 3/12 · step 2 · 41,200
// tokens · 1m12s · $0.0123 · read_file · 3 tool calls": the unit and
// its own step, then what a narrow terminal must keep, the tokens sent
// and the time, then the cost so far, if known, the tool that runs, if
// one does, "receiving ~312 tokens" while an answer streams in, and for
// units side by side "units 2, 3, 5 under way".
func progressLine(s review.Progress, cost string, elapsed time.Duration) string {
	var b strings.Builder
	if s.Units > 1 {
		fmt.Fprintf(&b, "unit %d/%d · ", s.Unit, s.Units)
	}
	fmt.Fprintf(&b, "step %d · %s tokens · %s", s.Step, text.Number(s.Tokens), elapsed.Round(time.Second))
	if cost != "" {
		fmt.Fprintf(&b, " · %s", cost)
	}
	if s.Tool != "" {
		fmt.Fprintf(&b, " · %s", s.Tool)
	}
	fmt.Fprintf(&b, " · %s", text.Plural(s.ToolCalls, "tool call"))
	if s.Receiving {
		fmt.Fprintf(&b, " · receiving ~%s tokens", text.Number(s.Received))
	}
	if len(s.Running) > 1 {
		fmt.Fprintf(&b, " · %s under way", unitList(s.Running))
	}
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
