package github

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"time"

	gh "github.com/google/go-github/v84/github"

	"github.com/reviewdev/review/internal/backoff"
)

// Defaults for PostOptions' zero retry fields, the model client's too.
const (
	DefaultMaxAttempts = 4
	DefaultBaseDelay   = time.Second
	DefaultMaxDelay    = 30 * time.Second
)

// retryAfterLimit is the longest wait GitHub may ask for that is waited
// out. A longer one ends the request with its error, which says when to
// run again, rather than stalling the job.
const retryAfterLimit = time.Minute

// retryPolicy bounds the attempts of one request and the waits between.
type retryPolicy struct {
	attempts  int
	base, max time.Duration
}

func newRetryPolicy(o PostOptions) retryPolicy {
	p := retryPolicy{attempts: o.MaxAttempts, base: o.BaseDelay, max: o.MaxDelay}
	if p.attempts <= 0 {
		p.attempts = DefaultMaxAttempts
	}
	if p.base <= 0 {
		p.base = DefaultBaseDelay
	}
	if p.max <= 0 {
		p.max = DefaultMaxDelay
	}
	return p
}

// backoff is the wait after failed attempt n when GitHub did not say how
// long to wait: a random time up to base·2^(n-1), at most max.
func (p retryPolicy) backoff(n int) time.Duration {
	return backoff.Policy{Attempts: p.attempts, Base: p.base, Max: p.max}.Delay(n)
}

// call makes one request through go-github, again while it fails in a way
// that may pass. Its error is the one to report (see again).
func call[T any](ctx context.Context, c *client, op string, send func() (T, *gh.Response, error)) (T, *gh.Response, error) {
	for attempt := 1; ; attempt++ {
		v, resp, err := send()
		if err == nil {
			return v, resp, nil
		}
		if err := c.again(ctx, op, attempt, err); err != nil {
			return v, resp, err
		}
	}
}

// again decides what follows failed attempt n of op: it waits and returns
// nil when the request is worth making again, and otherwise returns the
// error to report. The caller's context stops the wait at once.
func (c *client) again(ctx context.Context, op string, n int, err error) error {
	if ctx.Err() != nil {
		return stopped(ctx, op)
	}
	wait, hinted, ok := transient(err)
	switch {
	case hinted && wait > retryAfterLimit:
		ok = false
	case !hinted:
		wait = c.retry.backoff(n)
	}
	if backoff.Outlasts(ctx, wait) {
		// The caller's deadline would pass while waiting: report the real
		// failure now rather than a bare "deadline exceeded".
		ok = false
	}
	if !ok || n >= c.retry.attempts {
		return c.fail(op, n, err)
	}
	if backoff.Sleep(ctx, wait) != nil {
		return stopped(ctx, op)
	}
	return nil
}

// transient reports whether a failed request may succeed when made again,
// and how long GitHub asked to wait first (hinted false: it did not say).
// Server errors, secondary rate limits and the network's failures may
// pass; a refusal, a used-up hourly allowance, a host that does not exist
// or a wrong certificate will not.
func transient(err error) (wait time.Duration, hinted, ok bool) {
	var (
		primary   *gh.RateLimitError
		secondary *gh.AbuseRateLimitError
		refused   *gh.ErrorResponse
	)
	switch {
	case errors.As(err, &primary):
		// The allowance comes back at its reset, up to an hour away.
		return 0, false, false
	case errors.As(err, &secondary):
		if secondary.RetryAfter != nil {
			return max(*secondary.RetryAfter, 0), true, true
		}
		return 0, false, true
	case errors.As(err, &refused):
		if refused.Response == nil {
			return 0, false, false
		}
		wait, hinted := retryAfter(refused.Response.Header)
		switch refused.Response.StatusCode {
		case http.StatusForbidden:
			// A secondary rate limit whose answer does not link GitHub's
			// documentation still says when to come back.
			return wait, hinted, hinted
		case http.StatusRequestTimeout, http.StatusTooManyRequests,
			http.StatusInternalServerError, http.StatusBadGateway,
			http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return wait, hinted, true
		}
		return 0, false, false
	case errors.Is(err, errTooLarge):
		return 0, false, false
	}
	var (
		netErr  net.Error
		dnsErr  *net.DNSError
		certErr *tls.CertificateVerificationError
		recErr  tls.RecordHeaderError
	)
	if !errors.As(err, &netErr) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return 0, false, false // not the network: an answer that cannot be read
	}
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound || errors.As(err, &certErr) || errors.As(err, &recErr) {
		return 0, false, false
	}
	return 0, false, true
}

// retryAfter reads GitHub's Retry-After header, whole seconds.
func retryAfter(h http.Header) (time.Duration, bool) {
	return backoff.RetryAfter(h, time.Now(), backoff.Seconds)
}
