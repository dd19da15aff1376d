package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/toolmem"
)

// Settings are recorded with a run so replay can say how it was made. They
// never hold the API key.
type Settings struct {
	MergeBase string              `json:"merge_base"`
	BaseURL   string              `json:"base_url"`
	Tokenizer string              `json:"tokenizer"`
	Budget    conversation.Budget `json:"budget"`
	OffDiff   result.OffDiff      `json:"off_diff"`
	// Units are the units a diff too large for the static context is
	// reviewed in, one turn each; none when it fitted.
	Units []diffctx.Unit `json:"units,omitempty"`
	// FindCopies records that git was asked for copies, so a follow-up
	// turn diffs the same way.
	FindCopies bool `json:"find_copies,omitempty"`
	// NoNavigation records that the code navigation tools were left out,
	// so a follow-up turn offers the same tools.
	NoNavigation bool `json:"no_navigation,omitempty"`
	// Price is the configured price of the model's tokens, if any, so
	// the run's cost can be told later; without it, the list price.
	Price *llm.Price `json:"price,omitempty"`
}

// RunCost is what run cost in US dollars: at the price recorded with it,
// else at its model's list price. False when neither is known or the run
// records no usage.
func RunCost(run toolmem.Run) (float64, bool) {
	u, ok := RunUsageOf(run)
	if !ok || u.Requests == 0 {
		return 0, false
	}
	var set Settings
	if len(run.Settings) > 0 && json.Unmarshal(run.Settings, &set) == nil && set.Price != nil {
		return u.Cost(*set.Price), true
	}
	p, ok := llm.PriceFor(run.Model)
	if !ok {
		return 0, false
	}
	return u.Cost(p), true
}

// Start records a new run for plan and returns its session. The run is
// written before any request is made, so even a run killed at once can be
// listed and replayed.
func (a *Agent) Start(plan *Plan, settings Settings) (*Session, error) {
	d := plan.Diff
	settings.BaseURL = llm.DisplayURL(settings.BaseURL) // never credentials in a record
	settings.MergeBase = d.MergeBase
	settings.Units = plan.Units
	settings.NoNavigation = a.NoNavigation
	set, err := json.Marshal(settings)
	if err != nil {
		return nil, err
	}
	s := &Session{
		tools:    &toolCount{},
		rejected: &rejections{},
		Agent:    a,
		Diff:     d,
		History:  &conversation.History{},
		Run: toolmem.Run{
			ID: toolmem.NewRunID(a.now()), Repo: d.Root,
			Base: d.Base, Head: d.Head, BaseSHA: d.BaseSHA, HeadSHA: d.HeadSHA,
			Model: a.Model, Status: toolmem.StatusRunning, Settings: set, Started: a.now(),
		},
	}
	s.guard = plan.guard
	if plan.split == nil {
		s.contextWhole = wholeIn(plan.Context)
	}
	s.leaks = plan.Leaks
	s.injections = plan.Injections
	s.learnings = plan.Learnings
	s.notReviewed = append([]result.NotReviewed(nil), plan.Estimate.NotReviewed...)
	for _, m := range plan.Messages {
		s.History.Append(m)
	}
	// The plan's messages were rendered from the redacted diff; all that
	// joins the conversation after them passes the redactor here.
	s.symbols = plan.symbols
	s.open(d, settings.FindCopies, settings.NoNavigation)
	if err := s.save(); err != nil {
		return nil, err
	}
	return s, nil
}

// RunOutcome is how a review run ended beyond its status: whether the model
// submitted its review and how many findings it reported. It is kept in
// the run's usage record beside the counts, and stays through the turns
// asked after it. Runs recorded before it have none.
type RunOutcome struct {
	Submitted bool `json:"submitted"`
	Findings  int  `json:"findings"`
}

// explain records r, the result the run's outputs show, with the run.
func (s *Session) explain(r *result.Result) error {
	// The record's copy shows each finding's lines beside it.
	rec := *r
	outs := map[string]*outputLines{}
	withText := func(fs []result.Finding) []result.Finding {
		out := make([]result.Finding, len(fs))
		for i, f := range fs {
			f.Evidence = append([]result.Evidence(nil), f.Evidence...)
			for j := range f.Evidence {
				f.Evidence[j].Text = s.evidenceText(f.Evidence[j], outs)
			}
			out[i] = f
		}
		return out
	}
	rec.Findings, rec.Ungrounded = withText(r.Findings), withText(r.Ungrounded)
	b, err := json.Marshal(&rec)
	if err != nil {
		return err
	}
	if red := s.redact(); red != nil {
		out, _ := red.RedactJSON(string(b))
		b = []byte(out)
	}
	s.result = b
	s.setOutcome(RunOutcome{Submitted: r.Submitted, Findings: len(r.Findings)})
	return s.save()
}

// usageRecord is the run record's Usage: the counts, and the outcome once
// the review ended, with the result its outputs showed.
type usageRecord struct {
	result.RunUsage
	Outcome *RunOutcome `json:"outcome,omitempty"`
	// Result is the review's result as its outputs show it (findings
	// merged and held as configured, each with its evidence and its
	// lines), which the replay explains; runs recorded before it have
	// none.
	Result json.RawMessage `json:"result,omitempty"`
}

// ResultOf reads the result recorded with run: the result its outputs
// showed; false for a run that records none.
func ResultOf(run toolmem.Run) (json.RawMessage, bool) {
	var u usageRecord
	if len(run.Usage) == 0 || json.Unmarshal(run.Usage, &u) != nil || len(u.Result) == 0 {
		return nil, false
	}
	return u.Result, true
}

// OutcomeOf reads the outcome recorded with run; false for a run that
// records none (still running, failed, or recorded before outcomes).
func OutcomeOf(run toolmem.Run) (RunOutcome, bool) {
	var u usageRecord
	if len(run.Usage) == 0 || json.Unmarshal(run.Usage, &u) != nil || u.Outcome == nil {
		return RunOutcome{}, false
	}
	return *u.Outcome, true
}

// RunUsageOf reads the counts recorded with run.
func RunUsageOf(run toolmem.Run) (result.RunUsage, bool) {
	var u result.RunUsage
	if len(run.Usage) == 0 || json.Unmarshal(run.Usage, &u) != nil {
		return result.RunUsage{}, false
	}
	return u, true
}

// save writes the run record and the conversation.
func (s *Session) save() error {
	if m := s.main; m != nil {
		ids, parts, err := s.History.TurnParts(s.lane.unit)
		if err != nil {
			return err
		}
		unlock := s.lock()
		if m.side.turns != nil {
			m.side.setTurn(s.lane.unit, turnParts{ids: ids, parts: parts})
		}
		unlock()
		return m.save()
	}
	// Units side by side save the one run record in turn.
	defer s.lock()()
	rec := usageRecord{RunUsage: s.Usage, Result: s.result}
	if rec.Result == nil {
		rec.Result, _ = ResultOf(s.Run)
	}
	if o, ok := OutcomeOf(s.Run); ok {
		rec.Outcome = &o
	}
	u, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	s.Run.Usage = u
	if err := s.records().Run(s.Run); err != nil {
		return fmt.Errorf("recording run %s: %w", s.Run.ID, err)
	}
	// The history writes what changed since its last save; while units
	// run side by side, the record holds each unit's turn as last saved
	// (sideRecord), and writes what the units under way changed.
	parts, changed, next, err := s.History.Parts()
	if s.side != nil && s.side.turns != nil {
		parts, changed, next, err = s.sideRecord()
	}
	if err != nil {
		return err
	}
	if err := s.records().ConversationParts(parts, changed, next); err != nil {
		return fmt.Errorf("recording run %s: %w", s.Run.ID, err)
	}
	return s.recordEgress()
}

// Review runs the first turn's tool loop and returns the findings. A diff
// planned in units gets a turn for each further unit, with the earlier
// turns pruned before each loop, and one merged list of findings. The run
// record ends complete, failed or interrupted whatever happens.
func (s *Session) Review(ctx context.Context) (*result.Result, error) {
	r, err := s.review(ctx)
	if err == nil && r != nil {
		// Dropped by verification as each unit submitted.
		r.Dropped = append(r.Dropped, s.rejected.all()...)
		s.setOutcome(RunOutcome{Submitted: r.Submitted, Findings: len(r.Findings)})
	}
	if ferr := s.finish(err); ferr != nil && err == nil {
		err = ferr
	}
	if err != nil {
		return nil, err
	}
	r.Efficiency = s.Usage.Efficiency
	r.Usage.Efficiency = nil
	return r, nil
}

// setOutcome puts o in the run record's usage, written by the next save.
func (s *Session) setOutcome(o RunOutcome) {
	rec := usageRecord{RunUsage: s.Usage, Outcome: &o, Result: s.result}
	if rec.Result == nil {
		rec.Result, _ = ResultOf(s.Run)
	}
	if u, err := json.Marshal(rec); err == nil {
		s.Run.Usage = u
	}
}

// finish records how the run ended.
func (s *Session) finish(err error) error {
	s.Run.Ended = s.now()
	s.Usage.Efficiency = s.efficiency()
	switch {
	case err == nil:
		s.Run.Status = toolmem.StatusComplete
		// What its units cost, for the forecasts of later plans.
		s.Run.Costs = recordCosts(s.Store, s.Run)
	case errors.Is(err, context.Canceled):
		s.Run.Status = toolmem.StatusInterrupted
		s.Run.Error = "interrupted"
		var ie *interruptedError
		if errors.As(err, &ie) {
			s.Run.Error = ie.Error()
		}
	default:
		s.Run.Status = toolmem.StatusFailed
		s.Run.Error = err.Error()
	}
	return s.save()
}

// wholeIn is the files a diff context that holds the hunks shows whole,
// long deletions and all: a read of one is not sent again.
func wholeIn(c *diffctx.Context) map[string]bool {
	if c == nil {
		return nil
	}
	var whole map[string]bool
	for _, e := range c.Files {
		if e.Included && !e.Shortened && e.Hunks > 0 && e.Shown == e.Hunks {
			if whole == nil {
				whole = map[string]bool{}
			}
			whole[e.Path] = true
		}
	}
	return whole
}
