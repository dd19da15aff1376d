package llm

import (
	"fmt"
	"strings"
)

// The cap on an answer's size. An answer is carried into every later
// request of its loop and stored with each step, so a model caught
// repeating itself for megabytes (or a server that ignores max_tokens)
// would make each request and the store that much larger. An answer's
// content and tool calls together may hold at most AnswerBytesPerToken
// bytes per token of the request's max_tokens (the answer reserve): eight
// times the four bytes a token takes on average, room for text whose
// tokens are long. A request without max_tokens gets NoReserveAnswerLimit,
// and no request less than MinAnswerLimit. Reasoning is held to
// ReasoningLimit on its own: DeepSeek's reasoner thinks for up to 32K
// tokens whatever max_tokens says.
const (
	AnswerBytesPerToken  = 32
	MinAnswerLimit       = 64 << 10
	NoReserveAnswerLimit = 1 << 20
	ReasoningLimit       = 1 << 20
	// maxAnswers is how many answers one request may get: an answer over
	// the cap is asked for once more, as a fresh sample may well end.
	maxAnswers = 2
)

// AnswerLimit is the most bytes of text an answer to a request with
// max_tokens maxTokens may hold (0: none set).
func AnswerLimit(maxTokens int) int {
	if maxTokens <= 0 {
		return NoReserveAnswerLimit
	}
	return max(MinAnswerLimit, maxTokens*AnswerBytesPerToken)
}

// answerSize is the text an answer holds besides its reasoning: its
// content and the names and arguments of its tool calls.
func answerSize(r *Reply) int {
	n := len(r.Message.Content)
	for _, tc := range r.Message.ToolCalls {
		n += len(tc.Name) + len(tc.Arguments)
	}
	return n
}

// checkSize refuses an answer over the cap for a request with max_tokens
// maxTokens, or whose reasoning is over ReasoningLimit.
func (c *Client) checkSize(r *Reply, maxTokens int) error {
	return c.sizeError(answerSize(r), len(r.Reasoning), maxTokens, false)
}

// sizeError is the error of an answer of n bytes with reasoning of
// reasoning bytes, if either is over its cap; cut says a streamed answer
// was read no further.
func (c *Client) sizeError(n, reasoning, maxTokens int, cut bool) error {
	if limit := AnswerLimit(maxTokens); n > limit {
		return &AnswerSizeError{Site: c.site, Bytes: n, Limit: limit, MaxTokens: maxTokens, Cut: cut}
	}
	if reasoning > ReasoningLimit {
		return &AnswerSizeError{Site: c.site, Bytes: reasoning, Limit: ReasoningLimit, Reasoning: true, Cut: cut}
	}
	return nil
}

// AnswerSizeError is an answer over the cap (see AnswerLimit), in each of
// the answers asked for. Like a response that is no chat completion, it
// matches ErrBadResponse.
type AnswerSizeError struct {
	Site      string // the endpoint, as DisplayURL shows it
	Bytes     int    // the text the last answer held
	Limit     int    // the cap
	MaxTokens int    // the request's max_tokens; 0 if it set none
	// Cut is set when a streamed answer was read no further than Bytes.
	Cut bool
	// Reasoning is set when it is the answer's reasoning that is over
	// ReasoningLimit.
	Reasoning bool
	// Answers counts the answers received, each over the cap; Attempts
	// the HTTP requests made for them.
	Answers, Attempts int
}

func (e *AnswerSizeError) Error() string {
	part := "an answer"
	if e.Reasoning {
		part = "reasoning"
	}
	what := fmt.Sprintf("model endpoint %s sent %s of %s, over the limit of %s", e.Site, part, byteSize(e.Bytes), byteSize(e.Limit))
	if e.Cut {
		what = fmt.Sprintf("model endpoint %s sent %s over the limit of %s", e.Site, part, byteSize(e.Limit))
	}
	var why []string
	if e.MaxTokens > 0 {
		why = append(why, fmt.Sprintf("%d bytes for each of the %d tokens asked for", AnswerBytesPerToken, e.MaxTokens))
	}
	if e.Cut {
		why = append(why, "read no further")
	}
	if len(why) > 0 {
		what += " (" + strings.Join(why, "; ") + ")"
	}
	if e.Answers > 1 {
		what += fmt.Sprintf(", in each of %d answers", e.Answers)
	}
	return what
}

// Is makes errors.Is(err, ErrBadResponse) true: the answer is refused as
// one that is no chat completion would be.
func (e *AnswerSizeError) Is(target error) bool { return target == ErrBadResponse }

// byteSize says a size in bytes, KiB or MiB.
func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return byteCount(int64(n))
}
