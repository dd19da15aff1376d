package review

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/record"
)

// The turn engine. Every review and every follow-up question is a turn: the
// history before it is pruned to the limits, then a tool loop runs on top of
// it (agent.go). A review of a large diff is several turns, one per unit
// (units.go); review ask adds one turn per question (ask.go).

// turn prunes the history and runs the loop of the latest turn. When the
// provider says the first request of the loop is over its context length,
// the history budget is halved and the turn retried once, if halving
// leaves out anything. The first turn of a run has no history: there the
// diff context is halved instead (shrinkFirst), so a first review and a
// first question get the same one retry. ask ends the loop on a prose
// answer instead of asking for submit_review.
func (s *Session) turn(ctx context.Context, opts AskOptions, ask bool) (*submission, string, error) {
	lim := opts.Limits
	if _, err := s.prune(ctx, lim, opts.SummarizeWithModel, false); err != nil {
		return nil, "", err
	}
	for attempt := 0; ; attempt++ {
		n := s.History.Len()
		sub, text, err := s.loop(ctx, ask)
		if attempt > 0 || !errors.Is(err, llm.ErrContextLength) || s.History.Len() != n {
			return sub, text, err
		}
		lim.Turns /= 2
		lim.Chars /= 2
		changed, perr := s.prune(ctx, lim, opts.SummarizeWithModel, true)
		if !changed && perr == nil && s.History.Turns() == 1 {
			changed, perr = s.shrinkFirst(ask)
		}
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
	// Limits are decided by exact counts near them; the figures the
	// event records are counted as the run's (figureCounter). The turn's
	// requests carry the tool definitions too: the line is the loop's.
	lim.Extra = s.toolTokens
	ev, err := s.History.Prune(lim, s.figureCounter(), sum)
	if err != nil {
		return false, err
	}
	if !ev.Changed() {
		return false, nil
	}
	if harder {
		ev.Reasons = append([]string{"context_length"}, ev.Reasons...)
	}
	return true, s.eventNext(record.Prune{PruneEvent: *ev})
}

// summaryPrompt asks the model for a digest of dropped turns.
const summaryPrompt = `You condense earlier turns of a code review conversation that no longer fit the context. Write at most 250 words as plain text lines. Keep: questions asked and the answers reached, decisions, every finding (severity, file:line, title), open questions, and every tool output ref with what it contains (refs stay readable with ` + toolname.ReadToolOutput + `). Drop pleasantries and anything already settled as irrelevant.`

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
		b.WriteString(text.OneLine(m.Content, 1500))
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(&b, " → %s %s", tc.Name, text.OneLine(tc.Arguments, 200))
		}
		b.WriteString("\n")
	}
	msgs := []conversation.Message{
		{ID: "summary-system", Role: conversation.System, Content: summaryPrompt, Layer: conversation.Summary},
		{ID: "summary-user", Role: conversation.User, Content: b.String(), Layer: conversation.Summary},
	}
	reply, err := s.record(ctx, llm.Request{Model: s.Model, Messages: msgs, MaxTokens: 600}, s.History.Turns(), msgs)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(reply.Message.Content), nil
}
