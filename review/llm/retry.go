package llm

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"

	"github.com/reviewdev/review/internal/backoff"
	"github.com/reviewdev/review/internal/text"
)

// maxResponseBytes bounds a response body held in memory. A chat completion
// is kilobytes; anything this size is not one.
const maxResponseBytes = 32 << 20

// rateLimitPatience bounds the waits of one request on a server that
// rate-limits it (429 with Retry-After), when the caller's context has
// no deadline: with one (--deadline), the deadline alone bounds them.
const rateLimitPatience = 30 * time.Minute

// retryAfterLimit is the longest Retry-After honoured. A server asking for
// more gets the client's own backoff instead, as OpenAI's SDKs do, rather
// than a review stalled for an hour.
const retryAfterLimit = time.Minute

// redactMinKey is the shortest API key masked in response bodies: masking
// a one- or two-letter placeholder key would garble the reply.
const redactMinKey = 8

var (
	errAttemptTimeout = errors.New("attempt timed out")
	errTooLarge       = fmt.Errorf("response larger than %d MiB", maxResponseBytes>>20)
)

// attemptError is the failure of one attempt; the final one learns how
// many attempts were made, for its message.
type attemptError interface {
	error
	setAttempts(n int)
}

// exchange is what sending one request body produced.
type exchange struct {
	status int    // of the last response; 0 if none arrived
	body   []byte // of the last response
	// stream describes the last response if it was streamed; whole is set
	// when a streamed request got a whole JSON body instead.
	stream *StreamStats
	whole  bool
	// bad is why a successful streamed response is no answer.
	bad      error
	attempts int
}

// attemptResult is what one attempt received.
type attemptResult struct {
	status int
	header http.Header
	// body is the response body; for a stream, the reassembled completion,
	// or the raw bytes if it could not be reassembled or was cut.
	body   []byte
	stream *StreamStats
	whole  bool
	bad    error
}

// send posts body to the endpoint, retrying rate limits, server errors,
// timeouts and connection failures with capped exponential backoff and full
// jitter. Every attempt sends the same bytes. The caller's context stops it
// at once, also while waiting between attempts. A streamed answer is read
// no further than the cap for a request with max_tokens maxTokens (see
// AnswerLimit).
//
// A rate limit the server says the end of (429 with a Retry-After) is not
// a failure of the request: its attempts do not count towards
// MaxAttempts, and the request waits it out for as long as the caller's
// deadline allows (rateLimitPatience without one), however many attempts
// that takes. MaxAttempts 1 still makes one attempt only.
func (c *Client) send(ctx context.Context, body []byte, stream bool, maxTokens int) (exchange, error) {
	var (
		ex      exchange
		limited rateLimited
	)
	for {
		if err := c.lim.acquire(ctx); err != nil {
			return ex, fmt.Errorf("model request stopped: %w", err)
		}
		ex.attempts++
		got, err := c.attemptOnce(ctx, body, stream, maxTokens)
		// A server that pushes back holds every request of the run and lets
		// fewer go out at once: its slot is released with the wait, below.
		pushed := err == nil && (got.status == http.StatusTooManyRequests || got.status == http.StatusServiceUnavailable)
		if !pushed {
			c.lim.release(false, 0)
		}
		if ctx.Err() != nil {
			if pushed {
				c.lim.release(true, 0)
			}
			return ex, fmt.Errorf("model request stopped: %w", context.Cause(ctx))
		}
		v := c.judge(&ex, got, err)
		if v.failure == nil {
			return ex, nil
		}
		wait := v.hint
		if !v.hinted {
			wait = c.backoff(ex.attempts)
		}
		if pushed {
			c.lim.release(true, wait)
		}
		if stop, past := c.lastAttempt(ctx, ex.attempts, v, got.status, wait, &limited); stop {
			v.failure.setAttempts(ex.attempts)
			if past {
				return ex, &WaitPastDeadlineError{Wait: wait, Err: v.failure}
			}
			return ex, v.failure
		}
		if c.cfg.OnRetry != nil {
			c.cfg.OnRetry(ex.attempts, wait, labelled(ctx, v.failure))
		}
		if err := backoff.Sleep(ctx, wait); err != nil {
			return ex, fmt.Errorf("model request stopped: %w", context.Cause(ctx))
		}
	}
}

// attemptOnce makes one attempt, streamed or not.
func (c *Client) attemptOnce(ctx context.Context, body []byte, stream bool, maxTokens int) (attemptResult, error) {
	if stream {
		return c.attemptStream(ctx, body, maxTokens)
	}
	return c.attempt(ctx, body)
}

// verdict is what one attempt's result means for the request.
type verdict struct {
	// failure is why the attempt failed; nil if it succeeded.
	failure attemptError
	// retry is set when another attempt may succeed.
	retry bool
	// hint is the wait the server asked for (Retry-After), when hinted:
	// one over retryAfterLimit is not honoured.
	hint   time.Duration
	hinted bool
}

// judge records in ex what an attempt received and says whether it
// succeeded, or why not and whether to try again.
func (c *Client) judge(ex *exchange, got attemptResult, err error) (v verdict) {
	ex.stream, ex.whole, ex.bad = got.stream, got.whole, got.bad
	var (
		ae *APIError
		ee *endpointError
	)
	switch {
	case err != nil && errors.As(err, &ee):
		// An error event within a stream, worth another attempt.
		ex.status, ex.body = 0, got.body
		v.failure, v.retry = ee, true
	case err != nil && errors.As(err, &ae):
		// An error event within a stream that refuses the request.
		ex.status, ex.body = 0, got.body
		v.failure, v.retry = ae, ae.retryable()
	case err != nil:
		// A stream cut short keeps what arrived, for the record.
		ex.status, ex.body = 0, got.body
		v.failure, v.retry = c.transportError(err), transient(err)
	default:
		ex.status, ex.body = got.status, got.body
		if got.status >= 200 && got.status < 300 {
			return verdict{}
		}
		apiErr, _ := decodeAPIError(got.status, got.body)
		v.failure, v.retry = apiErr, apiErr.retryable()
		v.hint, v.hinted = retryAfter(got.header, time.Now())
		v.hinted = v.hinted && v.hint <= retryAfterLimit
	}
	return v
}

// rateLimited counts the attempts of a request that a rate limit with a
// Retry-After refused, which do not count towards MaxAttempts, and the
// waits they asked for, which rateLimitPatience bounds.
type rateLimited struct {
	attempts int
	wait     time.Duration
}

// WaitPastDeadlineError is a request given up because the wait for its
// next attempt (a server's Retry-After, or the backoff) would pass the
// caller's deadline: Err is the failure it had. The command says the
// deadline stopped the run, as it will have by the time the wait ends;
// errors.As finds the failure through it.
type WaitPastDeadlineError struct {
	Wait time.Duration
	Err  error
}

func (e *WaitPastDeadlineError) Error() string {
	return fmt.Sprintf("%v; waiting %s more for another attempt would pass the deadline", e.Err, e.Wait.Round(time.Second/10))
}

func (e *WaitPastDeadlineError) Unwrap() error { return e.Err }

// lastAttempt reports whether a request gives up after the failure v of
// its attempts-th attempt (status the response's, 0 if none) rather than
// wait that long for another; limited counts its rate-limited attempts.
// past is set when it gives up only because the wait would pass the
// caller's deadline.
func (c *Client) lastAttempt(ctx context.Context, attempts int, v verdict, status int, wait time.Duration, limited *rateLimited) (stop, past bool) {
	if v.retry && v.hinted && status == http.StatusTooManyRequests && c.cfg.MaxAttempts > 1 {
		limited.attempts++
		limited.wait += wait
		if _, ok := ctx.Deadline(); !ok && limited.wait > rateLimitPatience {
			return true, false
		}
	}
	if !v.retry || attempts-limited.attempts >= c.cfg.MaxAttempts {
		return true, false
	}
	// The caller's deadline would pass while waiting: report the real
	// failure now, and that the deadline ended it, rather than a bare
	// "deadline exceeded" later.
	past = backoff.Outlasts(ctx, wait)
	return past, past
}

// attempt makes one HTTP request and reads the whole response. The
// response must start within the timeout and its body then arrive within
// the timeout again: a silent server fails in one timeout, not in however
// long its connection stays open.
func (c *Client) attempt(ctx context.Context, body []byte) (got attemptResult, err error) {
	got.status, got.header, got.body, err = c.attemptWhole(ctx, body)
	return got, err
}

func (c *Client) attemptWhole(ctx context.Context, body []byte) (status int, header http.Header, resp []byte, err error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(c.cfg.Timeout, func() { cancel(errAttemptTimeout) })
	defer timer.Stop()
	defer func() {
		if err != nil && ctx.Err() == nil && errors.Is(context.Cause(actx), errAttemptTimeout) {
			err = fmt.Errorf("%w: %w", errAttemptTimeout, err)
		}
	}()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header = c.header.Clone()
	res, err := c.http.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer res.Body.Close()
	if !timer.Stop() {
		return 0, nil, nil, context.Cause(actx)
	}
	timer.Reset(c.cfg.Timeout)
	b, err := io.ReadAll(io.LimitReader(res.Body, maxResponseBytes+1))
	if err != nil {
		return 0, nil, nil, err
	}
	if len(b) > maxResponseBytes {
		return 0, nil, nil, errTooLarge
	}
	return res.StatusCode, res.Header, c.redactBody(b), nil
}

// redactBody masks the API key should a server echo it, so it can never
// reach a run record or an error.
func (c *Client) redactBody(b []byte) []byte {
	key := []byte(c.cfg.APIKey)
	if len(key) < redactMinKey || !bytes.Contains(b, key) {
		return b
	}
	return bytes.ReplaceAll(b, key, []byte("[redacted]"))
}

// backoff is the wait after the given failed attempt: full jitter over an
// exponentially growing ceiling, BaseDelay·2^(attempt-1) capped at MaxDelay.
func (c *Client) backoff(attempt int) time.Duration {
	return backoff.Policy{Attempts: c.cfg.MaxAttempts, Base: c.cfg.BaseDelay, Max: c.cfg.MaxDelay}.Delay(attempt)
}

// retryAfter reads how long the server asked us to wait: OpenAI's
// retry-after-ms, else Retry-After in seconds (fractions too) or as an
// HTTP date. Zero means retry now.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	return backoff.RetryAfter(h, now, backoff.Seconds|backoff.Fractions|backoff.Dates|backoff.Millis)
}

// transient reports whether a transport failure may pass on its own.
// Timeouts, refused or reset connections and cut-off responses may; a bad
// certificate, a host that does not exist or an oversized answer will not.
func transient(err error) bool {
	var (
		dnsErr  *net.DNSError
		certErr *tls.CertificateVerificationError
		recErr  tls.RecordHeaderError
	)
	switch {
	case errors.Is(err, errTooLarge),
		errors.As(err, &certErr),
		errors.As(err, &recErr),
		errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return false
	}
	return true
}

// endpointError is a failure to get any answer from the endpoint that
// no setting of the caller's can change. Its message is written for
// people; Unwrap keeps the cause for errors.Is.
type endpointError struct {
	what     string // what failed, naming the endpoint
	detail   string // the cause, shortened
	hint     string // what to do, naming no setting
	attempts int
	cause    error
}

func (e *endpointError) Error() string {
	s := failed(e.what, e.attempts, e.detail)
	if e.hint != "" {
		s += ": " + e.hint
	}
	return s
}

func (e *endpointError) Unwrap() error { return e.cause }

func (e *endpointError) setAttempts(n int) { e.attempts = n }

// failed says what failed, after how many attempts, and the cause.
func failed(what string, attempts int, detail string) string {
	if attempts > 1 {
		what += fmt.Sprintf(" (%d attempts)", attempts)
	}
	if detail != "" {
		what += ": " + detail
	}
	return what
}

// Phases of a request a TimeoutError names.
const (
	// PhaseAnswer is a whole answer, or the start of one (its headers),
	// not in within ClientConfig.Timeout.
	PhaseAnswer = "answer"
	// PhaseFirstByte is a streamed request that sent nothing within
	// ClientConfig.FirstByteTimeout.
	PhaseFirstByte = "first byte"
	// PhaseStall is a streamed answer that paused for longer than
	// ClientConfig.FirstByteTimeout.
	PhaseStall = "stall"
	// PhaseStream is a streamed answer not finished within
	// ClientConfig.Timeout.
	PhaseStream = "stream"
)

// TimeoutError is a model endpoint that did not answer in time, in the
// last of its attempts.
type TimeoutError struct {
	Site     string        // the endpoint, as DisplayURL shows it
	Phase    string        // one of the Phase constants
	Limit    time.Duration // the limit that ran out
	Received int64         // bytes of a streamed answer received before
	Attempts int
	cause    error
}

func (e *TimeoutError) Error() string {
	var what string
	switch e.Phase {
	case PhaseFirstByte:
		what = fmt.Sprintf("model endpoint %s sent nothing within %s of a streamed request", e.Site, e.Limit)
	case PhaseStall:
		what = fmt.Sprintf("model endpoint %s stalled: nothing for %s in the middle of a streamed answer, after %s", e.Site, e.Limit, byteCount(e.Received))
	case PhaseStream:
		what = fmt.Sprintf("model endpoint %s did not finish its streamed answer within %s (%s received)", e.Site, e.Limit, byteCount(e.Received))
	default:
		what = fmt.Sprintf("model endpoint %s did not answer within %s", e.Site, e.Limit)
	}
	return failed(what, e.Attempts, "")
}

func (e *TimeoutError) Unwrap() error { return e.cause }

func (e *TimeoutError) setAttempts(n int) { e.Attempts = n }

// ConnectError is a model endpoint that could not be reached: its host
// does not resolve, or nothing listens there.
type ConnectError struct {
	Site string
	// Setting names what chose the endpoint, as ClientConfig.BaseURLFrom;
	// empty for the default endpoint.
	Setting string
	// NoHost is set when the host name does not resolve; otherwise the
	// connection was refused.
	NoHost   bool
	Detail   string // the cause, shortened
	Attempts int
	cause    error
}

func (e *ConnectError) Error() string {
	what := "cannot connect to model endpoint " + e.Site
	if e.NoHost {
		what = "cannot resolve the host of model endpoint " + e.Site
	}
	return failed(what, e.Attempts, e.Detail)
}

func (e *ConnectError) Unwrap() error { return e.cause }

func (e *ConnectError) setAttempts(n int) { e.Attempts = n }

// TruncatedError is a streamed answer whose connection closed before the
// answer ended, with no finish_reason.
type TruncatedError struct {
	Site     string
	Received int64 // bytes received
	Attempts int
	cause    error
}

func (e *TruncatedError) Error() string {
	return failed(fmt.Sprintf("model endpoint %s closed the stream before the answer ended (%s received, no finish_reason)", e.Site, byteCount(e.Received)), e.Attempts, "")
}

func (e *TruncatedError) Unwrap() error { return e.cause }

func (e *TruncatedError) setAttempts(n int) { e.Attempts = n }

func (e *APIError) setAttempts(n int) { e.Attempts = n }

// transportError describes a failed attempt. Messages name the endpoint by
// its display form, never the full URL with credentials or the headers.
func (c *Client) transportError(err error) attemptError {
	var (
		netErr  net.Error
		dnsErr  *net.DNSError
		certErr *tls.CertificateVerificationError
		recErr  tls.RecordHeaderError
	)
	var cut *cutError
	timeout := func(phase string, limit time.Duration, received int64) *TimeoutError {
		return &TimeoutError{Site: c.site, Phase: phase, Limit: limit, Received: received, cause: err}
	}
	switch {
	case errors.As(err, &cut) && errors.Is(cut.why, errFirstByte):
		return timeout(PhaseFirstByte, cut.limit, cut.bytes)
	case errors.As(err, &cut) && errors.Is(cut.why, errStalled):
		return timeout(PhaseStall, cut.limit, cut.bytes)
	case errors.As(err, &cut) && errors.Is(cut.why, errAttemptTimeout):
		return timeout(PhaseStream, cut.limit, cut.bytes)
	case errors.As(err, &cut) && errors.Is(cut.why, errTruncated):
		return &TruncatedError{Site: c.site, Received: cut.bytes, cause: err}
	case errors.Is(err, errAttemptTimeout), errors.As(err, &netErr) && netErr.Timeout():
		return timeout(PhaseAnswer, c.cfg.Timeout, 0)
	case errors.Is(err, syscall.ECONNREFUSED):
		return &ConnectError{Site: c.site, Setting: c.cfg.BaseURLFrom, Detail: "connection refused", cause: err}
	case errors.As(err, &dnsErr):
		return &ConnectError{Site: c.site, Setting: c.cfg.BaseURLFrom, NoHost: true, Detail: dnsErr.Err, cause: err}
	}
	e := &endpointError{cause: err, detail: causeText(err)}
	switch {
	case errors.As(err, &certErr), errors.As(err, &recErr):
		e.what = "TLS with model endpoint " + c.site + " failed"
		e.hint = "check the URL's scheme (http or https) and the server's certificate"
	case errors.Is(err, errTooLarge):
		e.what = "model endpoint " + c.site + " sent a response over the limit"
	default:
		e.what = "request to model endpoint " + c.site + " failed"
	}
	return e
}

// byteCount says how many bytes: "1 byte", "2345 bytes".
func byteCount(n int64) string {
	return text.Plural(int(n), "byte")
}

// causeText is the innermost useful message of a transport error: the
// *url.Error wrapper repeats the URL, which the message already names.
func causeText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return squash(err.Error())
}
