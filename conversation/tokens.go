package conversation

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/reviewdev/review/internal/text"
)

// Tokenizer modes accepted by NewCounter, and Server, NewServerCounter's.
const (
	Tiktoken = "tiktoken"
	Estimate = "estimate"
	Server   = "server"
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
// only when the bound says they might not hold: see bound.
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
	// ExactCount is tiktoken's or the server's (or the estimate, in
	// Estimate mode).
	ExactCount Kind = iota
	// UpperBound is at least the exact count.
	UpperBound
	// EstimatedCount is EstimateTokens: close, but either way.
	EstimatedCount
)

// counterState is a counter's encoder, server and memo.
type counterState struct {
	once sync.Once
	enc  *bpe
	err  error

	// server, if set, counts exactly in place of the encoder, which
	// counts only the texts the server fails to.
	server *ServerTokenizer
	// fails are the server's failures; after maxServerFails it is not
	// asked again. unbounded is set once the server counted a text above
	// its bound: bounds are exact counts from then on.
	fails     atomic.Int32
	unbounded atomic.Bool

	// memo remembers counts of long texts: a tool loop re-counts the same
	// history on every step, and BPE encoding is the expensive part. A
	// server's counts are all remembered: each costs a round trip.
	mu       sync.Mutex
	memo     map[string]int
	firstErr error // the server's first failure
}

// ServerTokenizer is a model server's own tokenizer, outside this
// program: llama.cpp's /tokenize. It counts what the server will count,
// which a borrowed tiktoken encoding only approximates.
type ServerTokenizer struct {
	// Name says what counts, e.g. "llama.cpp /tokenize".
	Name string
	// Count counts s as the server does. It may fail: the server may be
	// gone, slow, or answer what is not a count.
	Count func(s string) (int, error)
	// Failed, if set, is told of Count's first failure, once.
	Failed func(error)
}

// maxServerFails is how many failures a server may make before it is no
// longer asked: a server that has gone would otherwise cost a timeout a
// count.
const maxServerFails = 3

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

// NewServerCounter returns a counter that counts exactly as the model's
// server does, with t, and counts the texts t fails to with tiktoken's
// encoding (O200k when empty) instead; those counts are estimates of the
// server's, and Failed says there were some.
func NewServerCounter(encoding string, t ServerTokenizer) *Counter {
	if encoding == "" {
		encoding = O200k
	}
	return &Counter{mode: Server, encoding: encoding, st: &counterState{server: &t}}
}

// AddsAtLines reports whether Count adds up across a join of two texts
// where the first ends in a newline and the second starts with a character
// other than white space or a slash: Count(a+b) == Count(a)+Count(b). It
// holds for tiktoken's encodings, whose pre-tokenizers never carry a piece
// past such a join (a newline is followed, within a piece, only by white
// space, or by a slash in o200k's), and which cut long runs from their
// start. A server's tokenizer, a bound or an estimate may not add up.
func (c *Counter) AddsAtLines() bool {
	if c == nil || c.Kind() != ExactCount || c.mode == Estimate || c.st.server != nil {
		return false
	}
	c.load()
	return c.st.err == nil
}

// Warm starts reading the counter's encoding in the background, when it
// will count with it (tiktoken, not the estimate nor a server), and
// returns at once. A run counts its figures exactly, so it reads the
// table (some milliseconds of decompression and hashing) in any case: read
// while the run waits on git and the server, it costs no wall time. The
// first count waits for it.
func (c *Counter) Warm() {
	if c == nil || c.mode != Tiktoken || c.st.server != nil {
		return
	}
	go c.load()
}

// load reads the counter's encoding, once.
func (c *Counter) load() {
	st := c.st
	st.once.Do(func() { st.enc, st.err = encoder(c.encoding) })
}

// Mode reports how the counter counts: Tiktoken, Estimate or Server.
func (c *Counter) Mode() string { return c.mode }

// Source says what counts exactly: "tiktoken o200k_base", "estimate", or
// the server tokenizer's name.
func (c *Counter) Source() string {
	switch c.mode {
	case Estimate:
		return Estimate
	case Server:
		return c.st.server.Name
	}
	return Tiktoken + " " + c.encoding
}

// Failed is the server tokenizer's first failure, nil while it has
// none: the texts it failed to count, and every text once it failed
// maxServerFails times, are counted with tiktoken's encoding, as
// estimates of the server's count.
func (c *Counter) Failed() error {
	if c == nil || c.st.server == nil {
		return nil
	}
	c.st.mu.Lock()
	defer c.st.mu.Unlock()
	return c.st.firstErr
}

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

// Bounds is the view of c whose Count is an upper bound of the exact
// count (see bound).
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
		return c.bound(s)
	}
	if c.st.server != nil {
		return c.serverCount(s)
	}
	return c.encoderCount(s)
}

// serverCount counts s with the server, remembered, or with the encoder
// when the server fails or has failed too often.
func (c *Counter) serverCount(s string) int {
	st := c.st
	st.mu.Lock()
	n, ok := st.memo[s]
	st.mu.Unlock()
	if ok {
		return n
	}
	if st.fails.Load() >= maxServerFails {
		return c.encoderCount(s)
	}
	n, err := st.server.Count(s)
	if err == nil && n < 0 {
		err = fmt.Errorf("%s counted %d tokens", st.server.Name, n)
	}
	if err != nil {
		st.fails.Add(1)
		st.mu.Lock()
		first := st.firstErr == nil
		if first {
			st.firstErr = err
		}
		st.mu.Unlock()
		if first && st.server.Failed != nil {
			st.server.Failed(err)
		}
		return c.encoderCount(s)
	}
	if n > byteBound(s)+1 {
		st.unbounded.Store(true)
	}
	st.remember(s, n)
	return n
}

// remember memoizes the count n of s.
func (st *counterState) remember(s string, n int) {
	st.mu.Lock()
	if st.memo == nil || len(st.memo) >= memoMax {
		st.memo = map[string]int{}
	}
	st.memo[s] = n
	st.mu.Unlock()
}

// encoderCount counts s with the tiktoken encoder.
func (c *Counter) encoderCount(s string) int {
	c.load()
	st := c.st
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
	st.remember(s, n)
	return n
}

// bound returns an upper bound of the exact count of s, at the cost of
// reading its length: every token of a BPE encoding is at least one byte
// of the text as encoded, and the pre-tokenizer's pieces and maxRun's
// cuts only split it. Text that is not UTF-8 is encoded with U+FFFD, three
// bytes, for each stray byte, so it is bounded at three tokens a byte.
// Code and English run three to four bytes a token, so a bound is that
// much above the count: it settles that far from a limit something fits,
// and near one the exact count decides. In Estimate mode, where nothing is
// counted exactly, bound is the estimate.
//
// A server's tokenizer is bounded one token higher: llama.cpp's
// SentencePiece tokenizers (Llama 2, Mistral) put a space before the text,
// one token more than its bytes for "\n", and its byte-level BPE ones
// (Llama 3, Qwen) take at least a byte a token. Text that is not UTF-8
// reaches the server with U+FFFD for each stray byte, as JSON carries it.
// A tokenizer that normalizes text (NFKC expands some characters many
// times) may count more: the first count above its bound makes bounds
// exact counts from then on.
//
// TestBoundProperty holds it to the exact count on random ASCII, CJK,
// code, emoji, long runs and bytes that are not UTF-8.
func (c *Counter) bound(s string) int {
	if c != nil && c.mode == Estimate {
		return text.EstimateTokens(s)
	}
	if c != nil && c.st.server != nil {
		if c.st.unbounded.Load() {
			return c.Exact().Count(s)
		}
		return byteBound(s) + 1
	}
	return byteBound(s)
}

// byteBound is the bound of a byte-level encoding: a token a byte, three
// for a byte that is not UTF-8.
func byteBound(s string) int {
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
	if len(s) <= maxRun {
		return nil
	}
	var out []int
	run, space := 0, false
	for i, r := range s {
		var sp bool
		if r < utf8.RuneSelf {
			// unicode.IsSpace's ASCII spaces, without its call.
			sp = r == ' ' || '\t' <= r && r <= '\r'
		} else {
			sp = unicode.IsSpace(r)
		}
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
