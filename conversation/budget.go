package conversation

import "fmt"

// Budget bounds what a conversation may send. Every field is configuration:
// call sites read it from here, never from constants of their own.
type Budget struct {
	// ContextWindow is the model's window in tokens.
	ContextWindow int `json:"context_window"`
	// AnswerReserve is kept free for the model's answer, in tokens.
	AnswerReserve int `json:"answer_reserve"`
	// StaticShare is the fraction of the input budget given to the static
	// diff context.
	StaticShare float64 `json:"static_share"`
	// PreviewChars and PreviewLines bound a tool output's preview; zero
	// takes the store's defaults, which the store owns with its minimums.
	PreviewChars int `json:"preview_chars"`
	PreviewLines int `json:"preview_lines"`
	// HistoryTurns and HistoryChars bound the earlier turns kept before a
	// loop starts.
	HistoryTurns int `json:"history_turns"`
	HistoryChars int `json:"history_chars"`
	// HistorySelect chooses the earlier turns kept: SelectRelevance
	// (default, "") or SelectRecency.
	HistorySelect string `json:"history_select,omitempty"`
	// MessageCap truncates a single oversized history message, in chars.
	MessageCap int `json:"message_cap"`
	// MaxSteps bounds the exploring requests of one tool loop; one more
	// request then asks for the final review.
	MaxSteps int `json:"max_steps"`
}

// DefaultBudget returns the default budget for a model with the given
// context window (the model table in review/llm knows the windows).
func DefaultBudget(window int) Budget {
	b := Budget{
		ContextWindow: window,
		StaticShare:   0.5,
		HistoryTurns:  4,
		HistoryChars:  24000,
		MessageCap:    8000,
		MaxSteps:      20,
	}
	b.AnswerReserve = DefaultReserve(b.ContextWindow)
	return b
}

// DefaultReserve is the answer reserve for a window: 8192 tokens, but never
// more than a quarter of a small window.
func DefaultReserve(window int) int {
	return min(8192, window/4)
}

// Input is the number of tokens a request may carry.
func (b Budget) Input() int { return b.ContextWindow - b.AnswerReserve }

// Static is the token budget of the static diff context.
func (b Budget) Static() int { return int(float64(b.Input()) * b.StaticShare) }

// Validate reports the first setting that cannot work.
func (b Budget) Validate() error {
	switch {
	case b.ContextWindow <= 0:
		return fmt.Errorf("context window must be positive, got %d", b.ContextWindow)
	case b.AnswerReserve < 0 || b.AnswerReserve >= b.ContextWindow:
		return fmt.Errorf("answer reserve %d must be between 0 and the context window %d", b.AnswerReserve, b.ContextWindow)
	case b.StaticShare <= 0 || b.StaticShare > 1:
		return fmt.Errorf("static share must be in (0, 1], got %g", b.StaticShare)
	case b.HistoryTurns < 0 || b.HistoryChars < 0:
		return fmt.Errorf("history limits must not be negative")
	case b.MaxSteps < 1:
		return fmt.Errorf("max steps must be at least 1, got %d", b.MaxSteps)
	}
	return nil
}
