package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/reviewdev/review/conversation"
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
}

// Start records a new run for plan and returns its session. The run is
// written before any request is made, so even a run killed at once can be
// listed and replayed.
func (a *Agent) Start(plan *Plan, settings Settings) (*Session, error) {
	d := plan.Diff
	settings.MergeBase = d.MergeBase
	set, err := json.Marshal(settings)
	if err != nil {
		return nil, err
	}
	s := &Session{
		Agent: a,
		Diff:  d,
		Conv:  &conversation.Conversation{},
		Run: toolmem.Run{
			ID: toolmem.NewRunID(a.now()), Repo: d.Root,
			Base: d.Base, Head: d.Head, BaseSHA: d.BaseSHA, HeadSHA: d.HeadSHA,
			Model: a.ModelName, Status: StatusRunning, Settings: set, Started: a.now(),
		},
	}
	for _, m := range plan.Messages {
		s.Conv.Append(m)
	}
	if err := s.save(); err != nil {
		return nil, err
	}
	return s, nil
}

// save writes the run record and the conversation.
func (s *Session) save() error {
	u, err := json.Marshal(s.Usage)
	if err != nil {
		return err
	}
	s.Run.Usage = u
	if err := s.Store.PutRun(s.Run); err != nil {
		return fmt.Errorf("recording run %s: %w", s.Run.ID, err)
	}
	c, err := json.Marshal(s.Conv)
	if err != nil {
		return err
	}
	if err := s.Store.PutConversation(s.Run.ID, c); err != nil {
		return fmt.Errorf("recording run %s: %w", s.Run.ID, err)
	}
	return nil
}

// Review runs the first turn's tool loop and returns the findings. The run
// record ends complete, failed or interrupted whatever happens.
func (s *Session) Review(ctx context.Context) (*Result, error) {
	var static []conversation.Message
	for _, m := range s.Conv.Messages {
		if m.Layer == conversation.Static {
			static = append(static, m)
		}
	}
	sub, text, err := s.loop(ctx, static, false)
	if ferr := s.finish(err); ferr != nil && err == nil {
		err = ferr
	}
	if err != nil {
		return nil, err
	}
	return s.result(sub, text), nil
}

// finish records how the run ended.
func (s *Session) finish(err error) error {
	s.Run.Ended = s.now()
	switch {
	case err == nil:
		s.Run.Status = StatusComplete
	case errors.Is(err, context.Canceled):
		s.Run.Status = StatusInterrupted
		s.Run.Error = "interrupted"
	default:
		s.Run.Status = StatusFailed
		s.Run.Error = err.Error()
	}
	return s.save()
}

// result turns a submission into the checked findings.
func (s *Session) result(sub *submission, text string) *Result {
	r := &Result{
		RunID: s.Run.ID, Base: s.Diff.Base, Head: s.Diff.Head,
		BaseSHA: s.Diff.BaseSHA, HeadSHA: s.Diff.HeadSHA, MergeBase: s.Diff.MergeBase,
		Model: s.ModelName, Usage: s.Usage, Steps: s.Steps, Findings: []Finding{},
	}
	if sub == nil {
		r.Summary = text
		return r
	}
	r.Submitted = true
	r.Summary = sub.Summary
	r.Findings, r.Dropped = checkFindings(s.Diff, sub.Findings, s.OffDiff)
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	return r
}
