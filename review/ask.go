package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/review/record"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/toolmem"
)

// AskOptions tune a follow-up turn.
type AskOptions struct {
	Limits conversation.Limits
	// SummarizeWithModel has the model write the digest of dropped turns,
	// falling back to the rule-based digest on error.
	SummarizeWithModel bool
}

// Resume loads a recorded run so a new turn can be added to it. id may be an
// unambiguous prefix. The diff is recomputed from the recorded commits.
func (a *Agent) Resume(ctx context.Context, id string, ignore []string) (*Session, error) {
	run, err := a.Store.Run(id)
	if err != nil {
		return nil, err
	}
	raw, err := record.LoadConversation(a.Store, run.ID)
	if err != nil {
		return nil, err
	}
	conv := &conversation.History{}
	if err := json.Unmarshal(raw, conv); err != nil {
		return nil, fmt.Errorf("run %s has an unreadable conversation (%v): start a new review", run.ID, err)
	}
	if conv.Len() == 0 {
		return nil, fmt.Errorf("run %s has no conversation to continue: it is not a review run", run.ID)
	}
	var set Settings
	if len(run.Settings) > 0 {
		_ = json.Unmarshal(run.Settings, &set) // units are checked where they are used
	}
	d, err := diffctx.Load(ctx, diffctx.Options{Dir: run.Repo, Base: run.BaseSHA, Head: run.HeadSHA, Ignore: ignore, FindCopies: set.FindCopies, Patches: diffctx.DefaultPatches})
	if err != nil {
		return nil, fmt.Errorf("reloading the diff of run %s: %w", run.ID, err)
	}
	d.Base, d.Head = run.Base, run.Head
	d.RedactPaths(a.redact()) // the paths the conversation and findings hold
	steps, err := a.Store.Steps(run.ID)
	if err != nil {
		return nil, err
	}
	s := &Session{Agent: a, Run: run, History: conv, Diff: d, FindCopies: set.FindCopies, tools: &toolCount{}, rejected: &rejections{}}
	s.open(d, set.FindCopies, set.NoNavigation)
	for _, st := range steps {
		s.Steps = max(s.Steps, st.N)
	}
	if len(run.Usage) > 0 {
		_ = json.Unmarshal(run.Usage, &s.Usage)
	}
	// The learnings the run's static layer holds, which a follow-up's
	// findings may cite as its review's did.
	var r result.Result
	if raw, ok := ResultOf(run); ok && json.Unmarshal(raw, &r) == nil {
		s.learnings = r.Learnings
	}
	return s, nil
}

// known separates from fs the findings the run's review already reported
// (the result it recorded): the same defect by its fingerprint, or on the
// same line in the same category.
func (s *Session) known(fs []result.Finding) (fresh, known []result.Finding) {
	raw, ok := ResultOf(s.Run)
	var r result.Result
	if !ok || json.Unmarshal(raw, &r) != nil {
		return fs, nil
	}
	before := append(append([]result.Finding(nil), r.Findings...), r.Ungrounded...)
	for _, w := range r.Withheld {
		before = append(before, w.Finding)
	}
	for _, f := range fs {
		seen := false
		for _, b := range before {
			if b.Path == f.Path && (b.Fingerprint() == f.Fingerprint() || f.Line > 0 && b.Line == f.Line && b.Category == f.Category) {
				seen = true
				break
			}
		}
		if seen {
			known = append(known, f)
		} else {
			fresh = append(fresh, f)
		}
	}
	return fresh, known
}

// Ask adds a question as a new turn and answers it with a fresh tool loop.
// Before the loop starts, earlier turns are pruned to opts.Limits; if the
// provider still says the context is too long, the history budget is halved
// and the turn retried once.
func (s *Session) Ask(ctx context.Context, question string, opts AskOptions) (*result.Answer, error) {
	question = strings.TrimSpace(question)
	if question == "" {
		return nil, errors.New("the question is empty: say what you want to know about the change")
	}
	s.History.Ask(question) // redacted as it joins (Session.open)
	return s.Answer(ctx, opts)
}

// Answer runs the loop of the latest turn, a question already in the
// conversation, and records how the run ended.
func (s *Session) Answer(ctx context.Context, opts AskOptions) (*result.Answer, error) {
	s.Run.Status, s.Run.Error = toolmem.StatusRunning, ""
	// A question's turn shows no unit's hunks: the last unit's turn is
	// history now, and may be pruned.
	s.unitParts = nil
	// A question is held to the caps on tokens and cost, counted afresh;
	// the review's plan bounded the review.
	s.guard = s.capsGuard()
	before := s.Usage
	turn, question := s.History.Turns(), s.History.Question()
	sub, text, err := s.turn(ctx, opts, true)
	if ferr := s.finish(err); ferr != nil && err == nil {
		err = ferr
	}
	if err != nil {
		return nil, err
	}
	ans := &result.Answer{RunID: s.Run.ID, Turn: turn, Question: question, Answer: text, Findings: []result.Finding{}, Model: s.Model, RunUsage: s.Usage}
	ans.Usage = result.RunUsage{
		Requests: s.Usage.Requests - before.Requests, Prompt: s.Usage.Prompt - before.Prompt,
		Completion: s.Usage.Completion - before.Completion, Cached: s.Usage.Cached - before.Cached, Own: s.Usage.Own - before.Own,
	}
	if sub != nil {
		ans.Findings, ans.Dropped = checkFindings(s.Diff, sub.Findings, s.OffDiff)
		ans.Findings, ans.Known = s.known(ans.Findings)
		if ans.Findings == nil {
			ans.Findings = []result.Finding{}
		}
		if strings.TrimSpace(text) == "" {
			ans.Answer = sub.Summary
		}
	}
	return ans, nil
}
