package conversation

import (
	"fmt"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/reviewdev/review/internal/text"
)

// Tokenizer modes accepted by NewCounter.
const (
	Tiktoken = "tiktoken"
	Estimate = "estimate"
)

// Encodings used for counting.
const (
	O200k  = "o200k_base"
	CL100k = "cl100k_base"
)

// messageOverhead approximates the per-message framing tokens that
// chat-completion APIs add around role and content.
const messageOverhead = 4

// Counter counts tokens in one encoding. The encoder is read on the first
// exact count, once: only its table's header is checked then, and its
// pages are read as lookups need them.
//
// A counter counts exactly, or as one of its views: Bounds, whose counts
// are upper bounds that cost a length, for deciding that something fits
// without counting it; and Estimates, for figures that are recorded but
// decide nothing. Budgets are decided on bounds first and counted exactly
// only when the bound says they might not hold: see Bound.
type Counter struct {
	mode     string
	encoding string
	view     Kind
	st       *counterState // shared by a counter's views
}

// Kind is how a counter's Count counts.
type Kind int

// Kinds of count.
const (
	// ExactCount is tiktoken's (or the estimate, in Estimate mode).
	ExactCount Kind = iota
	// UpperBound is at least the exact count.
	UpperBound
	// EstimatedCount is EstimateTokens: close, but either way.
	EstimatedCount
)

// counterState is a counter's encoder and memo.
type counterState struct {
	once sync.Once
	enc  *bpe
	err  error

	// memo remembers counts of long texts: a tool loop re-counts the same
	// history on every step, and BPE encoding is the expensive part.
	mu   sync.Mutex
	memo map[string]int
}

// memoMin is the shortest text worth remembering; memoMax bounds the
// entries, after which the memo starts over.
const (
	memoMin = 256
	memoMax = 4096
)

// NewCounter returns a counter for a tiktoken encoding (O200k when empty;
// the model table in review/llm names each model's). mode is Tiktoken (the
// default when empty) or Estimate.
func NewCounter(encoding, mode string) (*Counter, error) {
	switch mode {
	case "", Tiktoken:
		mode = Tiktoken
	case Estimate:
	default:
		return nil, fmt.Errorf("unknown tokenizer %q: use %q or %q", mode, Tiktoken, Estimate)
	}
	if encoding == "" {
		encoding = O200k
	}
	return &Counter{mode: mode, encoding: encoding, st: &counterState{}}, nil
}

// Mode reports how the counter counts: Tiktoken or Estimate.
func (c *Counter) Mode() string { return c.mode }

// Encoding is the tiktoken encoding used for the model.
func (c *Counter) Encoding() string { return c.encoding }

// Kind reports how Count counts. A counter in Estimate mode counts
// EstimatedCount whatever its view.
func (c *Counter) Kind() Kind {
	if c == nil || c.mode == Estimate {
		return EstimatedCount
	}
	return c.view
}

// Exact is the view of c that counts exactly.
func (c *Counter) Exact() *Counter { return c.as(ExactCount) }

// Bounds is the view of c whose Count is Bound.
func (c *Counter) Bounds() *Counter { return c.as(UpperBound) }

// Estimates is the view of c whose Count is EstimateTokens.
func (c *Counter) Estimates() *Counter { return c.as(EstimatedCount) }

func (c *Counter) as(k Kind) *Counter {
	if c == nil || c.view == k {
		return c
	}
	v := *c
	v.view = k
	return &v
}

// Count returns the number of tokens in s, as c's view counts them. If
// the encoder cannot be built it falls back to the estimate rather than
// failing a review over a count.
func (c *Counter) Count(s string) int {
	if s == "" {
		return 0
	}
	switch c.Kind() {
	case EstimatedCount:
		return text.EstimateTokens(s)
	case UpperBound:
		return c.Bound(s)
	}
	st := c.st
	st.once.Do(func() { st.enc, st.err = encoder(c.encoding) })
	if st.err != nil {
		return text.EstimateTokens(s)
	}
	if len(s) < memoMin {
		return st.enc.count(s)
	}
	st.mu.Lock()
	n, ok := st.memo[s]
	st.mu.Unlock()
	if ok {
		return n
	}
	n = c.encodeLen(s)
	st.mu.Lock()
	if st.memo == nil || len(st.memo) >= memoMax {
		st.memo = map[string]int{}
	}
	st.memo[s] = n
	st.mu.Unlock()
	return n
}

// Bound returns an upper bound of the exact count of s, at the cost of
// reading its length: every token of a BPE encoding is at least one byte
// of the text as encoded, and the pre-tokenizer's pieces and maxRun's
// cuts only split it. Text that is not UTF-8 is encoded with U+FFFD, three
// bytes, for each stray byte, so it is bounded at three tokens a byte.
// Code and English run three to four bytes a token, so a bound is that
// much above the count: it settles that far from a limit something fits,
// and near one the exact count decides. In Estimate mode, where nothing is
// counted exactly, Bound is the estimate.
//
// TestBoundProperty holds it to the exact count on random ASCII, CJK,
// code, emoji, long runs and bytes that are not UTF-8.
func (c *Counter) Bound(s string) int {
	if c != nil && c.mode == Estimate {
		return text.EstimateTokens(s)
	}
	if utf8.ValidString(s) {
		return len(s)
	}
	return 3 * len(s)
}

// maxRun is the longest run of white space, or of anything else, that is
// encoded in one piece. BPE merging is quadratic in the length of a piece:
// a committed file of 200 KB of one letter took 44 s to count. Longer runs
// are counted in pieces of this size, which costs at most a token or two
// per cut against the exact count, and never happens in ordinary text.
const maxRun = 256

// encodeLen counts s with the encoder, cutting runs longer than maxRun.
func (c *Counter) encodeLen(s string) int {
	n, start := 0, 0
	for _, cut := range cuts(s) {
		n += c.st.enc.count(s[start:cut])
		start = cut
	}
	return n + c.st.enc.count(s[start:])
}

// cuts returns where to cut s so that no run of white space or of other
// characters is longer than maxRun bytes. Cuts fall on rune boundaries.
func cuts(s string) []int {
	var out []int
	run, space := 0, false
	for i, r := range s {
		sp := unicode.IsSpace(r)
		if sp != space || i == 0 {
			run, space = i, sp
			continue
		}
		if i-run >= maxRun {
			out = append(out, i)
			run = i
		}
	}
	return out
}

// CountMessage counts a message as sent: content, tool calls and framing.
func (c *Counter) CountMessage(m Message) int {
	n := messageOverhead + c.Count(m.Content)
	for _, tc := range m.ToolCalls {
		n += messageOverhead + c.Count(tc.Name) + c.Count(tc.Arguments)
	}
	return n
}

// CountMessages sums CountMessage over msgs.
func (c *Counter) CountMessages(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += c.CountMessage(m)
	}
	return n
}
