package conversation

import (
	"fmt"
	"sync"
	"unicode"
	"unicode/utf8"
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

// Counter counts tokens in one encoding. The encoder is built on first use and
// only once, because loading a BPE table costs tens of milliseconds.
type Counter struct {
	mode     string
	encoding string

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
	if mode == Tiktoken {
		// Build the encoder while the caller runs git and opens the
		// store: the first count then rarely waits for it.
		go encoder(encoding) // Count reports an error, if any
	}
	return &Counter{mode: mode, encoding: encoding}, nil
}

// Mode reports how the counter counts: Tiktoken or Estimate.
func (c *Counter) Mode() string { return c.mode }

// Encoding is the tiktoken encoding used for the model.
func (c *Counter) Encoding() string { return c.encoding }

// Count returns the number of tokens in s. If the encoder cannot be built it
// falls back to the estimate rather than failing a review over a count.
func (c *Counter) Count(s string) int {
	if s == "" {
		return 0
	}
	if c == nil || c.mode == Estimate {
		return EstimateTokens(s)
	}
	c.once.Do(func() { c.enc, c.err = encoder(c.encoding) })
	if c.err != nil {
		return EstimateTokens(s)
	}
	if len(s) < memoMin {
		return c.enc.count(s)
	}
	c.mu.Lock()
	n, ok := c.memo[s]
	c.mu.Unlock()
	if ok {
		return n
	}
	n = c.encodeLen(s)
	c.mu.Lock()
	if c.memo == nil || len(c.memo) >= memoMax {
		c.memo = map[string]int{}
	}
	c.memo[s] = n
	c.mu.Unlock()
	return n
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
		n += c.enc.count(s[start:cut])
		start = cut
	}
	return n + c.enc.count(s[start:])
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

// EstimateTokens is a script-aware estimate: ASCII text runs about four
// characters a token, while CJK and most other scripts run about one token a
// character.
func EstimateTokens(s string) int {
	ascii, other := 0, 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r < utf8.RuneSelf:
			ascii++
		case unicode.IsSpace(r):
			ascii++
		default:
			other++
		}
	}
	return (ascii+3)/4 + other
}
