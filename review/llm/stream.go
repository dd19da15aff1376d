package llm

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// DefaultFirstByteTimeout bounds, in a streamed request, the wait for the
// first byte of the answer and any silence within it. Hosted servers
// start streaming within seconds (DeepSeek sends keep-alive comments
// while a request waits), so a minute of silence is a server in trouble;
// a local server that loads a large model or reads a long prompt on a
// CPU may need more (--first-byte-timeout).
const DefaultFirstByteTimeout = time.Minute

// StreamStats describes a streamed answer as it arrived. The agent
// records it as an event of its step, beside the reassembled response.
type StreamStats struct {
	// Events counts the data events; Bytes the bytes of the body, framing
	// included.
	Events int
	Bytes  int64
	// FirstByteMS is how long the first byte of the answer took, from
	// the request.
	FirstByteMS int64
}

// Received is how much of a streamed answer has arrived, for progress.
type Received struct {
	Events int
	// Tokens counts the events that carried text: servers send about one
	// token per event.
	Tokens int
	Bytes  int64
}

type receiveHookKey struct{}

// WithReceiveHook returns a context under which a streamed Complete calls
// hook after each event, in the caller's goroutine, so a progress line
// can show the answer arriving.
func WithReceiveHook(ctx context.Context, hook func(Received)) context.Context {
	return context.WithValue(ctx, receiveHookKey{}, hook)
}

func receiveHook(ctx context.Context) func(Received) {
	hook, _ := ctx.Value(receiveHookKey{}).(func(Received))
	return hook
}

var (
	errFirstByte = errors.New("no first byte in time")
	errStalled   = errors.New("stream stalled")
	errTruncated = errors.New("stream ended before the answer did")
)

// cutError is a streamed attempt cut short: no first byte, a silence
// mid-answer, the attempt's whole time up, or the connection closed before
// the answer ended. All are worth another attempt.
type cutError struct {
	why   error
	bytes int64         // of the body when it was cut
	limit time.Duration // the limit that cut it, if a timer did
	cause error         // what the read returned
}

func (e *cutError) Error() string { return e.why.Error() + ": " + causeText(e.cause) }
func (e *cutError) Unwrap() []error {
	return []error{e.why, e.cause}
}

// meter is a response body that counts what arrives, remembers it for the
// record, and restarts the silence timer at each read.
type meter struct {
	r    *bufio.Reader
	body io.ReadCloser
	// n counts the bytes read; the attempt's timer reads it, from its
	// own goroutine.
	n       *atomic.Int64
	raw     bytes.Buffer
	first   time.Duration // when the first byte came, from the start
	start   time.Time
	onRead  func()
	readErr error
}

func (m *meter) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	if n > 0 {
		if m.n.Load() == 0 {
			m.first = time.Since(m.start)
		}
		if m.raw.Len() <= maxResponseBytes {
			m.raw.Write(p[:n])
		}
		if m.n.Add(int64(n)) > maxResponseBytes {
			return n, errTooLarge
		}
		m.onRead()
	}
	if err != nil && err != io.EOF && m.readErr == nil {
		m.readErr = err
	}
	return n, err
}

func (m *meter) Close() error { return m.body.Close() }

// streamDoer is the HTTP client go-openai's stream is made with: it sends
// our body, byte for byte the one recorded (go-openai's own request type
// cannot send a temperature of 0, nor the extra body fields), with our
// headers, and keeps the response for the caller.
type streamDoer struct {
	c     *Client
	body  []byte
	res   *http.Response
	m     *meter
	start time.Time
	n     atomic.Int64
	read  func()
}

func (d *streamDoer) Do(r *http.Request) (*http.Response, error) {
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, d.c.endpoint, bytes.NewReader(d.body))
	if err != nil {
		return nil, err
	}
	req.Header = d.c.header.Clone()
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")
	res, err := d.c.http.Do(req)
	if err != nil {
		return nil, err
	}
	d.m = &meter{r: bufio.NewReader(io.LimitReader(res.Body, maxResponseBytes+1)), body: res.Body, n: &d.n, start: d.start, onRead: d.read}
	res.Body = d.m
	d.res = res
	return res, nil
}

// firstByteTimeout is the streamed attempt's limit on silence: never more
// than the whole attempt's.
func (c *Client) firstByteTimeout() time.Duration {
	fb := c.cfg.FirstByteTimeout
	if fb <= 0 {
		fb = DefaultFirstByteTimeout
	}
	return min(fb, c.cfg.Timeout)
}

// attemptStream makes one streamed request with go-openai's stream reader
// and reassembles the answer. The first byte must come within the
// first-byte timeout, no later silence may last longer, and the whole
// attempt must end within the timeout. A server that answers with a whole
// JSON body instead is read as one. On success got.body is the
// reassembled completion; on failure, the raw bytes that arrived. An
// answer that grows over the cap for maxTokens is read no further.
func (c *Client) attemptStream(ctx context.Context, body []byte, maxTokens int) (got attemptResult, err error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	start := time.Now()
	limit := time.AfterFunc(c.cfg.Timeout, func() { cancel(errAttemptTimeout) })
	defer limit.Stop()
	fb := c.firstByteTimeout()
	d := &streamDoer{c: c, body: body, start: start}
	idle := time.AfterFunc(fb, func() {
		if d.n.Load() == 0 {
			cancel(errFirstByte)
		} else {
			cancel(errStalled)
		}
	})
	defer idle.Stop()
	d.read = func() { idle.Reset(fb) }
	k := streamCut{caller: ctx, attempt: actx, firstByte: fb, timeout: c.cfg.Timeout, received: &d.n}

	stream, err := openStream(actx, d)
	if d.res != nil {
		defer d.res.Body.Close()
		got.status, got.header = d.res.StatusCode, d.res.Header
	}
	if err != nil && (d.res == nil || d.m.readErr != nil) {
		// No response, or one whose body broke off while go-openai read
		// it: the meter kept the read's own failure.
		if d.m != nil {
			got.body = c.redactBody(d.m.raw.Bytes())
			if d.m.readErr != nil {
				err = d.m.readErr
			}
		}
		return got, k.err(err)
	}
	if err != nil || !eventStream(d.res.Header, d.m.r) {
		return c.readUnstreamed(got, d.m, err == nil, k)
	}
	defer stream.Close()
	var a assembler
	bad, err := c.receive(ctx, stream, d.m, &a, maxTokens, k)
	if bad != nil || err != nil {
		got.body = c.redactBody(bytes.Clone(d.m.raw.Bytes()))
		got.bad = bad
		return got, err
	}
	return c.finishStream(got, &a, d.m)
}

// openStream starts a streamed request with go-openai's stream reader,
// sending through d.
func openStream(ctx context.Context, d *streamDoer) (*openai.ChatCompletionStream, error) {
	cfg := openai.DefaultConfig("")
	cfg.HTTPClient = d
	// Comments and blank lines (keep-alives) are bounded by the timers
	// and the body limit, not by a count.
	cfg.EmptyMessagesLimit = maxResponseBytes
	// The model named here is not sent: the doer sends our body.
	return openai.NewClientWithConfig(cfg).CreateChatCompletionStream(ctx, openai.ChatCompletionRequest{Model: "review"})
}

// streamCut tells why a streamed attempt was cut short, from the limit
// that cancelled the attempt's context.
type streamCut struct {
	caller    context.Context // the caller's context
	attempt   context.Context // the attempt's, cancelled with the limit that ran out
	firstByte time.Duration   // the limit on silence
	timeout   time.Duration   // the limit on the whole attempt
	received  *atomic.Int64   // bytes of the body so far
}

// err turns a read failure into the reason the attempt was cut.
func (k streamCut) err(readErr error) error {
	n := k.received.Load()
	why := context.Cause(k.attempt)
	switch {
	case k.caller.Err() != nil:
		return readErr
	case errors.Is(why, errFirstByte) && k.firstByte >= k.timeout:
		// The first-byte limit is the whole timeout: say so.
		return fmt.Errorf("%w: %w", errAttemptTimeout, readErr)
	case errors.Is(why, errFirstByte), errors.Is(why, errStalled):
		return &cutError{why: why, bytes: n, limit: k.firstByte, cause: readErr}
	case errors.Is(why, errAttemptTimeout):
		if n == 0 {
			return fmt.Errorf("%w: %w", errAttemptTimeout, readErr)
		}
		return &cutError{why: errAttemptTimeout, bytes: n, limit: k.timeout, cause: readErr}
	}
	return readErr
}

// readUnstreamed reads a response to a streamed request that is no event
// stream as a request without streaming would: an error status, whose
// body go-openai read already (it is in the meter), or a whole answer
// (whole), read here to its end.
func (c *Client) readUnstreamed(got attemptResult, m *meter, whole bool, k streamCut) (attemptResult, error) {
	if whole {
		if _, err := io.Copy(io.Discard, m); err != nil {
			got.body = c.redactBody(m.raw.Bytes())
			return got, k.err(err)
		}
	}
	got.body = c.redactBody(bytes.Clone(m.raw.Bytes()))
	got.whole = whole
	return got, nil
}

// receive reads the stream's events into a until the stream ends. It stops
// at a failure worth another attempt (err): the connection broken or cut
// by a limit, or an error event; or at events that are no answer, or an
// answer grown over the cap for maxTokens (bad).
func (c *Client) receive(ctx context.Context, stream *openai.ChatCompletionStream, m *meter, a *assembler, maxTokens int, k streamCut) (bad, err error) {
	hook := receiveHook(ctx)
	for {
		data, rerr := stream.RecvRaw()
		if errors.Is(rerr, io.EOF) && m.readErr == nil {
			return nil, nil
		}
		if rerr != nil {
			var oe *openai.APIError
			if errors.As(rerr, &oe) {
				return nil, c.midStreamError(oe)
			}
			if m.readErr != nil {
				rerr = m.readErr
			}
			return nil, k.err(rerr)
		}
		if aerr := a.add(data); aerr != nil {
			var se *errorEvent
			if errors.As(aerr, &se) {
				return nil, c.midStreamError(&openai.APIError{Message: se.Message, Type: se.Type, Code: se.Code})
			}
			return fmt.Errorf("%w: %v", ErrBadResponse, aerr), nil
		}
		if big := c.sizeError(a.size(), len(a.reasoning), maxTokens, true); big != nil {
			return big, nil
		}
		if hook != nil {
			hook(Received{Events: a.events, Tokens: a.texts, Bytes: m.n.Load()})
		}
	}
}

// finishStream makes the answer assembled from a stream that ended the
// attempt's body, once sure the answer ended with it.
func (c *Client) finishStream(got attemptResult, a *assembler, m *meter) (attemptResult, error) {
	got.stream = &StreamStats{Events: a.events, Bytes: m.n.Load(), FirstByteMS: m.first.Milliseconds()}
	if a.choices && a.finish == "" && !bytes.HasSuffix(bytes.TrimSpace(m.raw.Bytes()), []byte("[DONE]")) {
		// The connection closed without finish_reason or [DONE]: the
		// answer may be cut anywhere, even inside a tool call's
		// arguments.
		got.body = c.redactBody(bytes.Clone(m.raw.Bytes()))
		return got, &cutError{why: errTruncated, bytes: m.n.Load(), cause: io.ErrUnexpectedEOF}
	}
	whole, err := a.body()
	if err != nil {
		got.body = c.redactBody(bytes.Clone(m.raw.Bytes()))
		got.bad = fmt.Errorf("%w (HTTP %d): %v", ErrBadResponse, got.status, err)
		return got, nil
	}
	got.body = c.redactBody(whole)
	return got, nil
}

// eventStream reports whether a response is an event stream: labelled so,
// or, whatever its label, opening with a field of one.
func eventStream(h http.Header, r *bufio.Reader) bool {
	if mt, _, err := mime.ParseMediaType(h.Get("Content-Type")); err == nil && mt == "text/event-stream" {
		return true
	}
	for i := 1; i <= 4096; i++ {
		b, err := r.Peek(i)
		if err != nil {
			return false
		}
		if c := b[i-1]; c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			continue
		}
		rest, err := r.Peek(min(i+5, r.Size()))
		if err != nil && len(rest) < i {
			return false
		}
		rest = rest[i-1:]
		return rest[0] == ':' || bytes.HasPrefix(rest, []byte("data:")) || bytes.HasPrefix(rest, []byte("event"))
	}
	return false
}

// midStreamError is an error event within a stream ("data: {"error":
// …}"), which servers send when they fail after the answer started.
func (c *Client) midStreamError(oe *openai.APIError) error {
	e := &APIError{Status: http.StatusInternalServerError, Type: oe.Type, Code: codeString(oe.Code), Message: squash(oe.Message)}
	if e.contextLength() {
		e.Status = http.StatusBadRequest
		return e
	}
	return &endpointError{
		what:   "model endpoint " + c.site + " broke off its streamed answer with an error",
		detail: e.Message,
		hint:   "it is retried; if it persists, check the server's logs",
		cause:  e,
	}
}
