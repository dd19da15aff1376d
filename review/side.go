package review

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/record"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/toolmem"
)

// Units side by side. A review in units runs up to Jobs of them at once,
// each its own tool loop over a fork of the static layer: the same bytes
// first in every unit's requests (so providers' prompt caches hit), then
// the unit's prompt, and no other unit's turn. The units share the run:
// its step numbers, usage, figures and records, its guard (the caps hold
// for the whole run) and the model client, whose one limiter slows every
// unit when the server pushes back. A unit that fails loses nothing of
// the others: its files are reported as not reviewed, and the unit as
// failed. With Jobs 1 the units run in sequence (units.go), each with the
// earlier units' turns as its history.

// sideBySide reports whether a review in n units runs them side by side.
func sideBySide(jobs, n int) bool { return jobs > 1 && n > 1 }

// unitTask is the user message of unit k of n, side by side or in
// sequence as jobs has it.
func unitTask(jobs int, d *diffctx.Diff, k, n int, md string) string {
	if !sideBySide(jobs, n) {
		return unitPrompt(d, k, n, md)
	}
	return sidePrompt(d, k, n, md)
}

// sidePrompt is the user message of unit k of n side by side: each unit
// is reviewed in a conversation of its own. It is no longer than the
// first unit's prompt in sequence, which the plan counts for every unit.
func sidePrompt(d *diffctx.Diff, k, n int, md string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Review the change from %s to %s. Its hunks do not fit one request, so it is reviewed in %d units at once, as the overview above assigns them. ", d.Base, d.Head, n)
	fmt.Fprintf(&b, "This is unit %d of %d; its hunks are below. The other units are reviewed apart: fetch their hunks with "+toolname.GetFileDiff+" only if this unit cannot be judged without them. Explore with the tools as needed, then call "+toolname.SubmitReview+" with this unit's findings and summary.", k, n)
	if md != "" {
		b.WriteString("\n\n" + md)
	}
	return b.String()
}

// lane is a unit's own state while it runs side by side.
type lane struct {
	unit int
	// last is the step of the unit's request before, which its next one
	// extends.
	last int
	// pending are the events recorded before the unit's next step, whose
	// number is known only when it is sent.
	pending []record.Event
}

// sideState is what units side by side share in the main session.
type sideState struct {
	mu sync.Mutex
	// turns are each unit's turn as last saved, for the recorded
	// conversation: the run's own messages (have), then the units'
	// turns in unit order.
	turns map[int]turnParts
	have  map[string]bool
	// written are the parts of the conversation last recorded: a save
	// writes only those that differ, found without reading the store
	// back. keys are the units with a turn, in order, offsets where each
	// starts in written, ownLen how many are the run's own, and dirty
	// the first unit whose turn changed since (0: none).
	written [][]byte
	keys    []int
	offsets []int
	ownLen  int
	dirty   int
	// running are the units under way.
	running []int
}

// turnParts is a unit's turn as its fork encodes it
// (conversation.History.TurnParts).
type turnParts struct {
	ids   []string
	parts [][]byte
}

// unitOutcome is how one unit ended.
type unitOutcome struct {
	started bool
	sub     *submission
	text    string
	err     error
	h       *conversation.History
}

// reviewSide runs the units side by side, at most Jobs at once, and
// merges what they found.
func (s *Session) reviewSide(ctx context.Context, units []diffctx.Unit) (*result.Result, error) {
	n := len(units)
	s.side = &sideState{turns: map[int]turnParts{}, have: map[string]bool{}}
	for _, m := range s.History.Messages() {
		s.side.have[m.ID] = true
	}
	// What every unit reads is made before they start.
	s.figures()
	s.records()
	// Each unit's hunks are rendered as it starts, on the cores of the
	// units starting beside it, rather than all of them, in turn, before
	// the first request: only the diff's index, which rendering reads, is
	// built here, so that the units read it side by side.
	if s.Diff != nil {
		s.Diff.File("")
	}
	// The history as planned, should the units have to start again in
	// sequence (refused).
	planned, err := json.Marshal(s.History)
	if err != nil {
		return nil, err
	}
	outs := make([]unitOutcome, n)
	next := make(chan int)
	var wg sync.WaitGroup
	capped := false
	for range min(s.Jobs, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				outs[k-1] = s.runUnit(ctx, n, k, units[k-1])
				var ce *capError
				if errors.As(outs[k-1].err, &ce) {
					s.side.mu.Lock()
					capped = true
					s.side.mu.Unlock()
				}
			}
		}()
	}
	for k := 1; k <= n; k++ {
		s.side.mu.Lock()
		stop := capped
		s.side.mu.Unlock()
		if stop || ctx.Err() != nil {
			break
		}
		select {
		case next <- k:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	forks := make([]*conversation.History, 0, n)
	for _, o := range outs {
		if o.h != nil {
			forks = append(forks, o.h)
		}
	}
	s.History.Adopt(forks...)
	s.side.turns, s.side.written, s.side.keys, s.side.offsets = nil, nil, nil, nil
	r, err := s.mergeUnits(ctx, units, outs)
	if err != nil && refused(outs) {
		// Every unit's first request was refused as longer than the
		// provider's window, smaller than the one planned for: the
		// review starts again in sequence, whose first turn is planned
		// again for half the room (shrinkFirst), as it would have been.
		if uerr := json.Unmarshal(planned, s.History); uerr != nil {
			return nil, err
		}
		s.side, s.Jobs = nil, 1
		return s.review(ctx)
	}
	return r, err
}

// refused reports whether every unit started was refused at its first
// request as longer than the provider's context window.
func refused(outs []unitOutcome) bool {
	n := 0
	for _, o := range outs {
		if !o.started {
			continue
		}
		if !errors.Is(o.err, llm.ErrContextLength) || (o.h != nil && len(o.h.TurnMessages(o.h.Turns())) > 1) {
			return false
		}
		n++
	}
	return n > 0
}

// runUnit runs unit k of n, whose hunks are md (parts), in a session of
// its own: a copy of s with a fork of the history and the unit's lane.
func (s *Session) runUnit(ctx context.Context, n, k int, unit diffctx.Unit) unitOutcome {
	unlock := s.lock() // the copy reads the counts other units write
	u := *s
	unlock()
	u.main, u.side, u.lane = s, nil, &lane{unit: k}
	u.History = s.History.Fork(fmt.Sprintf("u%d.", k), k)
	u.unitNow, u.unitsAll, u.unitParts = k, n, unit.Parts
	if u.History.Turns() != k {
		// The first unit's prompt is the plan's first turn; the
		// others' are made here.
		md, err := diffctx.RenderUnit(s.Diff, unit)
		if err != nil {
			return unitOutcome{started: true, err: fmt.Errorf("unit %d of %d: %w", k, n, err)}
		}
		u.History.Append(conversation.Message{Role: conversation.User, Content: sidePrompt(s.Diff, k, n, md),
			Layer: conversation.Loop, Turn: k, Hunks: true})
	}
	s.guard.start(k)
	s.setRunning(k, true)
	defer s.setRunning(k, false)
	opts := AskOptions{Limits: conversation.LimitsFrom(s.Budget)}
	sub, text, err := u.turn(llm.WithLabel(ctx, fmt.Sprintf("unit %d", k)), opts, false)
	if serr := u.save(); serr != nil && err == nil {
		err = serr
	}
	s.records().EndLane(k)
	return unitOutcome{started: true, sub: sub, text: text, err: err, h: u.History}
}

// mergeUnits makes one result of the units' outcomes: their findings
// checked together (duplicates across units merge), a summary by rules
// from theirs, the files of failed and unstarted units as not reviewed.
// Interrupted, it returns the interruption, naming the units under way;
// when every unit failed, the first failure.
func (s *Session) mergeUnits(ctx context.Context, units []diffctx.Unit, outs []unitOutcome) (*result.Result, error) {
	var (
		findings  []result.Finding
		summaries []string
		failed    []result.FailedUnit
		firstErr  error
		stopped   string
		left      = s.notReviewed
		submitted = true
		reviewed  int
	)
	n := len(units)
	// The cap that stopped a unit stops the units not started.
	capped := &capError{Reason: result.ReasonMaxRequests}
	for _, o := range outs {
		if errors.As(o.err, &capped) {
			break
		}
	}
	for i, o := range outs {
		k := i + 1
		var ce *capError
		switch {
		case !o.started:
			if ctx.Err() == nil {
				stopped = capped.Error()
			}
			left = mergeNotReviewed(left, notReviewed(units[i:i+1], capped.Reason), s.Diff)
		case errors.As(o.err, &ce):
			stopped = ce.Error()
			if o.sub != nil {
				findings = append(findings, o.sub.Findings...)
				summaries = append(summaries, unitSummary(k, n, o.sub.Summary))
				reviewed++
				continue
			}
			left = mergeNotReviewed(left, notReviewed(units[i:i+1], ce.Reason), s.Diff)
		case o.err != nil:
			if firstErr == nil {
				firstErr = o.err
			}
			failed = append(failed, result.FailedUnit{Unit: k, Files: units[i].Files(), Error: text.OneLine(o.err.Error(), 300)})
			left = mergeNotReviewed(left, notReviewed(units[i:i+1], result.ReasonUnitFailed), s.Diff)
		case o.sub == nil:
			submitted = false
			reviewed++
			summaries = append(summaries, unitSummary(k, n, o.text))
		default:
			reviewed++
			findings = append(findings, o.sub.Findings...)
			summaries = append(summaries, unitSummary(k, n, o.sub.Summary))
		}
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return nil, &interruptedError{units: s.interrupted(outs), cause: context.Cause(ctx)}
	}
	if ctx.Err() != nil && firstErr != nil {
		// Out of time (--deadline): the run failed, as one in sequence.
		return nil, firstErr
	}
	if reviewed == 0 && firstErr != nil {
		return nil, firstErr
	}
	if stopped != "" {
		s.Stopped = stopped
	}
	if left == nil {
		left = []result.NotReviewed{}
	}
	r := &result.Result{
		RunID: s.Run.ID, Revisions: result.RevisionsOf(s.Diff),
		Model: s.Model, Usage: s.Usage, Steps: s.Steps,
		Summary: strings.Join(summaries, "\n\n"), Submitted: submitted,
		NotReviewed: left, Stopped: s.Stopped, FailedUnits: failed, Learnings: s.learnings,
	}
	r.Findings, r.Dropped = checkFindings(s.Diff, append(s.localFindings(), findings...), s.OffDiff)
	if r.Findings == nil {
		r.Findings = []result.Finding{}
	}
	if s.SummarizeUnits && reviewed > 1 {
		// Asked for: one more request writes the run's summary. Should
		// it fail, the units' own summaries stand.
		if sum, err := s.summarizeUnits(ctx, r); err == nil && sum != "" {
			r.Summary = sum
		}
		r.Usage, r.Steps = s.Usage, s.Steps
	}
	return r, nil
}

// unitsSummaryPrompt asks the model for the summary of a review in units.
const unitsSummaryPrompt = `You write the summary of a code review that was made in units, each unit reviewing part of the change apart from the others. From the units' summaries and the findings below, write one summary of the whole change and its verdict, at most 200 words of plain text. Name no finding that is not listed; say which parts were not reviewed, if any.`

// summarizeUnits has the model write the summary of r, a review in
// units, from its units' summaries and findings: one request, recorded as
// a step of the run.
func (s *Session) summarizeUnits(ctx context.Context, r *result.Result) (string, error) {
	var b strings.Builder
	b.WriteString(r.Summary + "\n\nFindings:\n")
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "- %s %s:%d %s\n", f.Severity, f.Path, f.Line, text.OneLine(f.Title, 200))
	}
	if len(r.Findings) == 0 {
		b.WriteString("(none)\n")
	}
	for _, f := range r.FailedUnits {
		fmt.Fprintf(&b, "Unit %d failed and was not reviewed: %s\n", f.Unit, strings.Join(f.Files, ", "))
	}
	msgs := []conversation.Message{
		{ID: "summary-system", Role: conversation.System, Content: unitsSummaryPrompt, Layer: conversation.Summary},
		{ID: "summary-user", Role: conversation.User, Content: b.String(), Layer: conversation.Summary},
	}
	reply, err := s.record(ctx, llm.Request{Model: s.Model, Messages: msgs, MaxTokens: 600}, s.History.Turns(), msgs)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(reply.Message.Content), nil
}

// unitSummary is unit k's summary in the run's: by rules, each unit's
// own, named.
func unitSummary(k, n int, summary string) string {
	summary = strings.TrimSpace(summary)
	if summary == "" {
		summary = "(no summary)"
	}
	return fmt.Sprintf("Unit %d of %d: %s", k, n, summary)
}

// interrupted lists the units a cancelled review had under way.
func (s *Session) interrupted(outs []unitOutcome) []int {
	var ks []int
	for i, o := range outs {
		if o.started && o.err != nil && errors.Is(o.err, context.Canceled) {
			ks = append(ks, i+1)
		}
	}
	return ks
}

// interruptedError is a review in units side by side cancelled while
// units were under way; it matches context.Canceled.
type interruptedError struct {
	units []int
	cause error
}

func (e *interruptedError) Error() string {
	if len(e.units) == 0 {
		return "interrupted"
	}
	ks := make([]string, len(e.units))
	for i, k := range e.units {
		ks[i] = fmt.Sprint(k)
	}
	word := "unit"
	if len(ks) > 1 {
		word = "units"
	}
	return fmt.Sprintf("interrupted: %s %s under way", word, strings.Join(ks, ", "))
}

func (e *interruptedError) Unwrap() error { return context.Canceled }

// main is the session of the run: s, or the one s is a unit of.
func (s *Session) mainSession() *Session {
	if s.main != nil {
		return s.main
	}
	return s
}

// lock holds what units side by side share, when they do.
func (s *Session) lock() func() {
	m := s.mainSession()
	if m.side == nil {
		return func() {}
	}
	m.side.mu.Lock()
	return m.side.mu.Unlock
}

// nextStep numbers the run's next step.
func (s *Session) nextStep() int {
	m := s.mainSession()
	m.figures() // read back, for a resumed run, before this step counts
	defer s.lock()()
	m.Steps++
	return m.Steps
}

// eventNext records ev before the step that follows: the next one of the
// run, or of the unit, whose number is known only when it is sent.
func (s *Session) eventNext(ev record.Event) error {
	if s.lane != nil {
		s.lane.pending = append(s.lane.pending, ev)
		return nil
	}
	return s.records().Event(s.Steps+1, ev)
}

// stepEvents records the events of step n as it is sent: those waiting
// for it, then its request's.
func (s *Session) stepEvents(n int, req record.Request) error {
	if s.lane != nil {
		for _, ev := range s.lane.pending {
			if err := s.records().Event(n, ev); err != nil {
				return err
			}
		}
		s.lane.pending = nil
	}
	return s.records().Event(n, req)
}

// putStep records st, in its unit's lane when it has one.
func (s *Session) putStep(st toolmem.Step) error {
	if s.lane != nil {
		return s.records().LaneStep(s.lane.unit, st)
	}
	return s.records().Step(st)
}

// addUsage adds a request's usage to the run's.
func (s *Session) addUsage(u llm.Usage, own int) {
	m := s.mainSession()
	defer s.lock()()
	m.Usage.Add(u, own)
}

// progress tells the run's progress: p with the run's step, tokens and
// the units under way.
func (s *Session) progress(p Progress) {
	if s.Progress == nil {
		return
	}
	m := s.mainSession()
	defer s.lock()()
	p.Usage, p.Tokens = m.Usage, m.Usage.Own
	if m.side != nil {
		p.Running = slices.Clone(m.side.running)
	}
	s.Progress(p)
}

// setRunning notes unit k under way, or done.
func (s *Session) setRunning(k int, on bool) {
	defer s.lock()()
	side := s.mainSession().side
	if on {
		side.running = append(side.running, k)
		slices.Sort(side.running)
		return
	}
	side.running = slices.DeleteFunc(side.running, func(x int) bool { return x == k })
}

// isUnforced reports whether the server ignores forced tool choices.
func (s *Session) isUnforced() bool {
	defer s.lock()()
	return s.mainSession().unforced
}

// setUnforced notes that the server ignores forced tool choices.
func (s *Session) setUnforced() {
	defer s.lock()()
	s.mainSession().unforced = true
}

// sideRecord is the conversation to record while units run side by side:
// the run's history, then each unit's turn as last saved after it, in unit
// order, and which of its parts differ from those recorded last. Only the
// turns of units under way change from one save to the next, and they come
// last but for a few: the record is kept up to the first of them, and a
// save costs what the units under way hold, not the whole conversation
// again.
func (s *Session) sideRecord() (parts [][]byte, changed []int, next int, err error) {
	side := s.side
	own, ownChanged, next, err := s.History.Parts()
	if err != nil {
		return nil, nil, 0, err
	}
	// The record is kept up to the first unit whose turn changed, or a
	// unit saved for the first time: all of it when the run's own
	// messages changed, which they do not while units run.
	from := len(side.keys)
	if side.dirty > 0 {
		from, _ = slices.BinarySearch(side.keys, side.dirty)
	}
	if len(own) != side.ownLen || len(ownChanged) > 0 {
		from = 0
	}
	var at int // where the parts built again start
	switch {
	case from == 0:
		at = len(own)
		parts = append(make([][]byte, 0, len(own)+4*len(side.keys)), own...)
	case from < len(side.offsets):
		at = side.offsets[from]
		parts = slices.Clip(side.written[:at])
	default:
		at = len(side.written)
		parts = slices.Clip(side.written)
	}
	side.offsets = side.offsets[:min(from, len(side.offsets))]
	for _, k := range side.keys[from:] {
		side.offsets = append(side.offsets, len(parts))
		t := side.turns[k]
		for i, id := range t.ids {
			if !side.have[id] {
				parts = append(parts, t.parts[i])
			}
		}
	}
	changed = append([]int{}, ownChanged...)
	for i := at; i < len(parts); i++ {
		if i >= len(side.written) || !samePart(side.written[i], parts[i]) {
			changed = append(changed, i)
		}
	}
	side.written, side.ownLen, side.dirty = parts, len(own), 0
	return parts, changed, next, nil
}

// setTurn notes unit k's turn as last saved, under s's lock.
func (side *sideState) setTurn(k int, t turnParts) {
	if _, ok := side.turns[k]; !ok {
		i, _ := slices.BinarySearch(side.keys, k)
		side.keys = slices.Insert(side.keys, i, k)
	}
	side.turns[k] = t
	if side.dirty == 0 || k < side.dirty {
		side.dirty = k
	}
}

// samePart reports whether two encoded parts are equal: the same
// encoding, most often, since a message is encoded once.
func samePart(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	return len(a) == 0 || &a[0] == &b[0] || bytes.Equal(a, b)
}
