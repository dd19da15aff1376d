package github

import (
	"context"
	"errors"
	"net/http"
	"time"

	gh "github.com/google/go-github/v84/github"

	"github.com/reviewdev/review/internal/backoff"
	"github.com/reviewdev/review/review/host/seam"
)

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
	again, serr := c.retry.Again(ctx, n, wait, hinted, ok)
	switch {
	case serr != nil:
		return stopped(ctx, op)
	case !again:
		return c.fail(op, n, err)
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
		if refused.Response.StatusCode == http.StatusForbidden {
			// A secondary rate limit whose answer does not link GitHub's
			// documentation still says when to come back.
			return wait, hinted, hinted
		}
		if seam.TransientStatus(refused.Response.StatusCode) {
			return wait, hinted, true
		}
		return 0, false, false
	case errors.Is(err, errTooLarge):
		return 0, false, false
	}
	return 0, false, seam.Network(err)
}

// retryAfter reads GitHub's Retry-After header, whole seconds.
func retryAfter(h http.Header) (time.Duration, bool) {
	return backoff.RetryAfter(h, time.Now(), backoff.Seconds)
}
