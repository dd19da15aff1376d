package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/review/llm"
)

// Answer is the outcome of a follow-up turn.
type Answer struct {
	RunID    string `json:"run_id"`
	Turn     int    `json:"turn"`
	Question string `json:"question"`
	Answer   string `json:"answer"`
	// Findings are new findings, if the model submitted a review this turn.
	Findings []Finding `json:"findings"`
	Dropped  []Dropped `json:"dropped,omitempty"`
	// Usage is this turn's; RunUsage the whole run's so far.
	Usage    RunUsage `json:"usage"`
	RunUsage RunUsage `json:"run_usage"`
	Model    string   `json:"model"`
}

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
	raw, err := a.Store.Conversation(run.ID)
	if err != nil {
		return nil, err
	}
	conv := &conversation.Conversation{}
	if err := json.Unmarshal(raw, conv); err != nil {
		return nil, fmt.Errorf("run %s has an unreadable conversation (%v): start a new review", run.ID, err)
	}
	if len(conv.Messages) == 0 {
		return nil, fmt.Errorf("run %s has no conversation to continue: it is not a review run", run.ID)
	}
	d, err := diffctx.Load(ctx, diffctx.Options{Dir: run.Repo, Base: run.BaseSHA, Head: run.HeadSHA, Ignore: ignore})
	if err != nil {
		return nil, fmt.Errorf("reloading the diff of run %s: %w", run.ID, err)
	}
	d.Base, d.Head = run.Base, run.Head
	steps, err := a.Store.Steps(run.ID)
	if err != nil {
		return nil, err
	}
	s := &Session{Agent: a, Run: run, Conv: conv, Diff: d}
	for _, st := range steps {
		s.Steps = max(s.Steps, st.N)
	}
	if len(run.Usage) > 0 {
		_ = json.Unmarshal(run.Usage, &s.Usage)
	}
	return s, nil
}

// Ask adds a question as a new turn and answers it with a fresh tool loop.
// Before the loop starts, earlier turns are pruned to opts.Limits; if the
// provider still says the context is too long, the history budget is halved
// and the turn retried once.
func (s *Session) Ask(ctx context.Context, question string, opts AskOptions) (*Answer, error) {
	question = strings.TrimSpace(question)
	if question == "" {
		return nil, errors.New("the question is empty: say what you want to know about the change")
	}
	s.Conv.Append(conversation.Message{Role: conversation.User, Content: question, Layer: conversation.Loop, Turn: s.Conv.Turns() + 1})
	return s.Answer(ctx, opts)
}

// Answer runs the loop of the latest turn, a question already in the
// conversation, and records how the run ended.
func (s *Session) Answer(ctx context.Context, opts AskOptions) (*Answer, error) {
	s.Run.Status, s.Run.Error = StatusRunning, ""
	before := s.Usage
	turn := s.Conv.Turns()
	question := ""
	for _, m := range s.Conv.Messages {
		if m.Turn == turn && m.Role == conversation.User {
			question = m.Content
			break
		}
	}
	sub, text, err := s.turn(ctx, opts, true)
	if ferr := s.finish(err); ferr != nil && err == nil {
		err = ferr
	}
	if err != nil {
		return nil, err
	}
	ans := &Answer{RunID: s.Run.ID, Turn: turn, Question: question, Answer: text, Findings: []Finding{}, Model: s.ModelName, RunUsage: s.Usage}
	ans.Usage = RunUsage{
		Requests: s.Usage.Requests - before.Requests, Prompt: s.Usage.Prompt - before.Prompt,
		Completion: s.Usage.Completion - before.Completion, Cached: s.Usage.Cached - before.Cached, Own: s.Usage.Own - before.Own,
	}
	if sub != nil {
		ans.Findings, ans.Dropped = checkFindings(s.Diff, sub.Findings, s.OffDiff)
		if ans.Findings == nil {
			ans.Findings = []Finding{}
		}
		if strings.TrimSpace(text) == "" {
			ans.Answer = sub.Summary
		}
	}
	return ans, nil
}

// turn prunes the history and runs the loop of the latest turn. When the
// provider says the first request of the loop is over its context length,
// the history budget is halved and the turn retried once, if halving
// leaves out anything. ask ends the loop on a prose answer instead of
// asking for submit_review.
func (s *Session) turn(ctx context.Context, opts AskOptions, ask bool) (*submission, string, error) {
	lim := opts.Limits
	if _, err := s.prune(ctx, lim, opts.SummarizeWithModel, false); err != nil {
		return nil, "", err
	}
	for attempt := 0; ; attempt++ {
		n := len(s.Conv.Messages)
		sub, text, err := s.loop(ctx, s.Conv.History(s.Conv.Turns()), ask)
		if attempt > 0 || !errors.Is(err, llm.ErrContextLength) || len(s.Conv.Messages) != n {
			return sub, text, err
		}
		lim.Turns /= 2
		lim.Chars /= 2
		changed, perr := s.prune(ctx, lim, opts.SummarizeWithModel, true)
		if perr != nil {
			return nil, "", perr
		}
		if !changed {
			return sub, text, err
		}
	}
}

// prune fits earlier turns into lim and records the event, if anything
// changed, with the step it precedes. harder marks a pass made because the
// provider refused the context as too long.
func (s *Session) prune(ctx context.Context, lim conversation.Limits, withModel, harder bool) (bool, error) {
	var sum conversation.Summarizer
	if withModel {
		sum = func(prev string, dropped []conversation.Message) (string, error) {
			return s.summarize(ctx, prev, dropped)
		}
	}
	ev, err := conversation.Prune(s.Conv, lim, s.Counter, sum)
	if err != nil {
		return false, err
	}
	if !ev.Changed() {
		return false, nil
	}
	if harder {
		ev.Reasons = append([]string{"context_length"}, ev.Reasons...)
	}
	data, err := json.Marshal(ev)
	if err != nil {
		return false, err
	}
	return true, s.Store.AddEvent(s.Run.ID, s.Steps+1, data)
}

// summaryPrompt asks the model for a digest of dropped turns.
const summaryPrompt = `You condense earlier turns of a code review conversation that no longer fit the context. Write at most 250 words as plain text lines. Keep: questions asked and the answers reached, decisions, every finding (severity, file:line, title), open questions, and every tool output ref with what it contains (refs stay readable with read_tool_output). Drop pleasantries and anything already settled as irrelevant.`

// summarize has the model write the digest of dropped turns. The request is
// recorded as a step like any other.
func (s *Session) summarize(ctx context.Context, prev string, dropped []conversation.Message) (string, error) {
	var b strings.Builder
	if prev != "" {
		b.WriteString("Summary so far:\n" + prev + "\n\n")
	}
	b.WriteString("Turns to condense:\n")
	for _, m := range dropped {
		fmt.Fprintf(&b, "[turn %d %s", m.Turn, m.Role)
		if m.Ref != "" {
			fmt.Fprintf(&b, " ref %s", m.Ref)
		}
		b.WriteString("] ")
		b.WriteString(oneLine(m.Content, 1500))
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(&b, " → %s %s", tc.Name, oneLine(tc.Arguments, 200))
		}
		b.WriteString("\n")
	}
	msgs := []conversation.Message{
		{ID: "summary-system", Role: conversation.System, Content: summaryPrompt, Layer: conversation.Summary},
		{ID: "summary-user", Role: conversation.User, Content: b.String(), Layer: conversation.Summary},
	}
	reply, err := s.record(ctx, llm.Request{Model: s.ModelName, Messages: msgs, MaxTokens: 600}, s.Conv.Turns(), msgs)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(reply.Message.Content), nil
}
