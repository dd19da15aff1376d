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
	// PruneTarget is the share of the input budget the earlier history is
	// pruned down to when a turn would start above the stop line; 0 takes
	// DefaultPruneTarget.
	PruneTarget float64 `json:"prune_target,omitempty"`
}

// StopShare is the share of the input budget past which a loop stops
// exploring and asks for its final answer: the next tool result could
// take the rest, and the final request still needs room. It is also the
// line a turn must start below, so that it has room to explore.
const StopShare = 0.8

// DefaultPruneTarget is the share of the input budget the history is
// pruned to when a turn would start above the stop line: pruning in one
// step, well below the line, leaves each turn room for several tool steps
// and keeps the prompt's prefix stable for the turns after it.
const DefaultPruneTarget = 0.5

// StopLine is the stop line in tokens: StopShare of the input budget.
// Every decision counts a request whole against it: the static layer,
// the tool definitions, the summary, the history and the current loop.
func (b Budget) StopLine() int { return int(StopShare * float64(b.Input())) }

// pruneTo is the token count pruning brings a request down to when a turn
// would start above the stop line.
func (b Budget) pruneTo() int {
	t := b.PruneTarget
	if t <= 0 {
		t = DefaultPruneTarget
	}
	return int(min(t, StopShare) * float64(b.Input()))
}

// charsPerToken is how many characters a token holds at least, about, in
// code and prose: caps in characters derived from token shares use it so
// they never hold more tokens than the share.
const charsPerToken = 3

// messageCapShare and pageShare bound one earlier message of the history
// and one page of a stored output as shares of the input budget, so both
// scale with the window and neither can crowd a request out.
const (
	messageCapShare = 0.10
	pageShare       = 0.15
	// summaryShare bounds the summary of dropped turns as a share of
	// the input budget: --history-chars is a cap for large windows, and
	// in a small one the summary alone would take the room a turn starts
	// with.
	summaryShare = 0.10
)

// summaryChars is the cap on the summary of dropped turns, in
// characters: at most 4,000 (and --history-chars), less in a window too
// small for it.
func (b Budget) summaryChars() int {
	scaled := int(summaryShare*float64(b.Input())) * charsPerToken
	return max(min(4000, b.HistoryChars, scaled), 200)
}

// historyCharsCap is the cap on the characters of the earlier turns kept:
// --history-chars, or less in a window whose prune target holds fewer.
func (b Budget) historyCharsCap() int {
	return min(b.HistoryChars, b.pruneTo()*charsPerToken)
}

// PreviewCharsCap caps a tool output's preview of n characters to the
// cap on one earlier message, so that a preview is never cut again once
// its turn is history: that would change the prompt's prefix every turn
// in a small window.
func (b Budget) PreviewCharsCap(n int) int {
	return min(n, b.messageChars())
}

// messageChars is the cap on one earlier message, in characters: the
// configured cap, or less in a window too small for it.
func (b Budget) messageChars() int {
	scaled := int(messageCapShare*float64(b.Input())) * charsPerToken
	if b.MessageCap <= 0 {
		return scaled
	}
	return max(min(b.MessageCap, scaled), 200)
}

// PageChars is the most characters one page of a stored output carries.
func (b Budget) PageChars() int {
	return max(int(pageShare*float64(b.Input()))*charsPerToken, 1000)
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

// LoopRoom is the room a review's tool loop is promised beside its first
// request: what the stop line leaves past the static share (7,200 of a
// 32k window's 24,000 input tokens at the default share). A unit of a
// change reviewed in units holds whatever hunks leave its loop this room
// within the input budget, so a file is split only when it cannot; a
// larger static share promises less and packs fuller units.
func (b Budget) LoopRoom() int { return max(b.StopLine()-b.Static(), 0) }

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
	case b.PruneTarget < 0 || b.PruneTarget > StopShare:
		return fmt.Errorf("prune target must be a share of the input budget up to %g, got %g", StopShare, b.PruneTarget)
	case b.MaxSteps < 1:
		return fmt.Errorf("max steps must be at least 1, got %d", b.MaxSteps)
	}
	return nil
}
