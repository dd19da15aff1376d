package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/toolmem"
)

// Run statuses.
const (
	StatusRunning     = "running"
	StatusComplete    = "complete"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
)

// Settings are recorded with a run so replay can say how it was made. They
// never hold the API key.
type Settings struct {
	MergeBase string              `json:"merge_base"`
	BaseURL   string              `json:"base_url"`
	Tokenizer string              `json:"tokenizer"`
	Budget    conversation.Budget `json:"budget"`
	OffDiff   OffDiff             `json:"off_diff"`
	// Units are the units a diff too large for the static context is
	// reviewed in, one turn each; none when it fitted.
	Units []diffctx.Unit `json:"units,omitempty"`
	// FindCopies records that git was asked for copies, so a follow-up
	// turn diffs the same way.
	FindCopies bool `json:"find_copies,omitempty"`
}

// Start records a new run for plan and returns its session. The run is
// written before any request is made, so even a run killed at once can be
// listed and replayed.
func (a *Agent) Start(plan *Plan, settings Settings) (*Session, error) {
	d := plan.Diff
	settings.BaseURL = llm.DisplayURL(settings.BaseURL) // never credentials in a record
	settings.MergeBase = d.MergeBase
	settings.Units = plan.Units
	set, err := json.Marshal(settings)
	if err != nil {
		return nil, err
	}
	s := &Session{
		Agent:   a,
		Diff:    d,
		History: &conversation.History{},
		Run: toolmem.Run{
			ID: toolmem.NewRunID(a.now()), Repo: d.Root,
			Base: d.Base, Head: d.Head, BaseSHA: d.BaseSHA, HeadSHA: d.HeadSHA,
			Model: a.ModelName, Status: StatusRunning, Settings: set, Started: a.now(),
		},
	}
	s.guard = plan.guard
	s.leaks = plan.Leaks
	s.notReviewed = append([]NotReviewed(nil), plan.Estimate.NotReviewed...)
	for _, m := range plan.Messages {
		s.History.Append(m)
	}
	// The plan's messages were rendered from the redacted diff; all that
	// joins the conversation after them passes the redactor here.
	s.open(d, settings.FindCopies)
	if err := s.save(); err != nil {
		return nil, err
	}
	return s, nil
}

// save writes the run record and the conversation.
func (s *Session) save() error {
	if m := s.main; m != nil {
		unlock := s.lock()
		if m.side.turns != nil {
			m.side.turns[s.lane.unit] = s.History.TurnMessages(s.lane.unit)
		}
		unlock()
		return m.save()
	}
	// Units side by side save the one run record in turn.
	defer s.lock()()
	u, err := json.Marshal(s.Usage)
	if err != nil {
		return err
	}
	s.Run.Usage = u
	if err := s.records().Run(s.Run); err != nil {
		return fmt.Errorf("recording run %s: %w", s.Run.ID, err)
	}
	c, err := json.Marshal(s.conversation())
	if err != nil {
		return err
	}
	if err := s.records().Conversation(c); err != nil {
		return fmt.Errorf("recording run %s: %w", s.Run.ID, err)
	}
	return nil
}

// Review runs the first turn's tool loop and returns the findings. A diff
// planned in units gets a turn for each further unit, with the earlier
// turns pruned before each loop, and one merged list of findings. The run
// record ends complete, failed or interrupted whatever happens.
func (s *Session) Review(ctx context.Context) (*Result, error) {
	r, err := s.review(ctx)
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

// finish records how the run ended.
func (s *Session) finish(err error) error {
	s.Run.Ended = s.now()
	s.Usage.Efficiency = s.efficiency()
	switch {
	case err == nil:
		s.Run.Status = StatusComplete
	case errors.Is(err, context.Canceled):
		s.Run.Status = StatusInterrupted
		s.Run.Error = "interrupted"
		var ie *interruptedError
		if errors.As(err, &ie) {
			s.Run.Error = ie.Error()
		}
	default:
		s.Run.Status = StatusFailed
		s.Run.Error = err.Error()
	}
	return s.save()
}
