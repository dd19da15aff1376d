package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	gh "github.com/google/go-github/v84/github"
	"github.com/reviewdev/review/internal/text"
)

// fail words the final failure of op after n attempts as one line a person
// can act on: an *Error when GitHub answered, otherwise what kept the
// answer from arriving or being read.
func (c *client) fail(op string, n int, err error) error {
	if e := c.refusal(op, err); e != nil {
		e.Attempts = n
		return e
	}
	var (
		urlErr    *url.Error
		netErr    net.Error
		syntaxErr *json.SyntaxError
		typeErr   *json.UnmarshalTypeError
	)
	switch {
	case errors.Is(err, errTooLarge):
		return fmt.Errorf("%s: %w", op, err)
	case errors.As(err, &syntaxErr), errors.As(err, &typeErr):
		return fmt.Errorf("%s: GitHub's answer is not the JSON expected (%v); check GITHUB_API_URL points at the REST API", op, err)
	case errors.As(err, &urlErr):
		// The URL is in the message already, as the host.
		return fmt.Errorf("%s: cannot reach GitHub at %s: %w: check GITHUB_API_URL and the network", withAttempts(op, n), c.host, urlErr.Err)
	case errors.As(err, &netErr), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: reading GitHub's answer: %w", withAttempts(op, n), err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// TimeoutError is GitHub's API not done with one step of a review (reading
// what earlier reviews posted, posting) within PostOptions.Timeout, all
// its requests and retries included.
type TimeoutError struct {
	Host  string
	Limit time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("GitHub at %s did not answer within %s", e.Host, e.Limit)
}

// bound limits ctx to o's timeout for all the requests of one step.
func (c *client) bound(ctx context.Context, o PostOptions) (context.Context, context.CancelFunc) {
	limit := o.Timeout
	if limit <= 0 {
		limit = DefaultTimeout
	}
	return context.WithTimeoutCause(ctx, limit, &TimeoutError{Host: c.host, Limit: limit})
}

// stopped is the error of op when the caller's context ended it.
func stopped(ctx context.Context, op string) error {
	return fmt.Errorf("%s: stopped: %w", op, context.Cause(ctx))
}

// withAttempts adds to op how many attempts it took, when more than one.
func withAttempts(op string, n int) string {
	if n > 1 {
		return fmt.Sprintf("%s (%d attempts)", op, n)
	}
	return op
}

// refusal is err as an *Error when it is an answer GitHub gave, or nil.
func (c *client) refusal(op string, err error) *Error {
	var (
		resp  *http.Response
		msg   string
		reset time.Time // when the hourly allowance comes back, if known

		primary   *gh.RateLimitError
		secondary *gh.AbuseRateLimitError
		refused   *gh.ErrorResponse
	)
	switch {
	case errors.As(err, &primary):
		resp, msg, reset = primary.Response, primary.Message, primary.Rate.Reset.Time
	case errors.As(err, &secondary):
		resp, msg = secondary.Response, secondary.Message
	case errors.As(err, &refused):
		resp, msg = refused.Response, message(refused)
	}
	if resp == nil {
		return nil
	}
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	e := &Error{Op: op, Status: resp.StatusCode, Message: text.Truncate(text.OneLine(msg, 0), 300)}
	e.Hint = c.hint(resp, e.Message, reset)
	e.Denied = resp.StatusCode == http.StatusForbidden && !rateLimited(resp, e.Message)
	return e
}

// rateLimited says a refusal is GitHub's rate limit rather than a lack of
// permission: 429, or 403 with the allowance used up or saying so.
func rateLimited(resp *http.Response, msg string) bool {
	return resp.StatusCode == http.StatusTooManyRequests ||
		(resp.StatusCode == http.StatusForbidden && (resp.Header.Get("X-RateLimit-Remaining") == "0" || strings.Contains(strings.ToLower(msg), "rate limit")))
}

// message is GitHub's message with its error details, as its error body
// has them: {"message": "Validation Failed", "errors": [...]}. Without a
// message it is empty.
func message(e *gh.ErrorResponse) string {
	if e.Message == "" {
		return ""
	}
	var details []string
	for _, d := range e.Errors {
		// A detail is an object or, for some errors, a bare string, which
		// go-github reads into Message.
		switch {
		case d.Message != "":
			details = append(details, strings.TrimSpace(d.Field+" "+d.Message))
		case d.Code != "":
			details = append(details, strings.TrimSpace(d.Field+" "+d.Code))
		}
	}
	if len(details) == 0 {
		return e.Message
	}
	return e.Message + " (" + strings.Join(details, "; ") + ")"
}

// hint says what to do about a refused request.
func (c *client) hint(resp *http.Response, msg string, reset time.Time) string {
	status := resp.StatusCode
	limited := rateLimited(resp, msg)
	switch {
	case limited:
		if s, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			reset = time.Unix(s, 0)
		}
		if reset.IsZero() {
			return "the token's rate limit is used up; run again later"
		}
		return "the token's rate limit is used up; run again after " + reset.UTC().Format(time.RFC3339)
	case status == http.StatusUnauthorized:
		return "the token is wrong or expired; pass a valid one in GITHUB_TOKEN"
	case status == http.StatusForbidden:
		return "the token may not write reviews; give the workflow `permissions: pull-requests: write` (pull requests from forks get a read-only token)"
	case status == http.StatusNotFound:
		return fmt.Sprintf("check that %s exists and the token can read it (GITHUB_REPOSITORY, the pull request number, and GITHUB_API_URL on GitHub Enterprise)", c.prName)
	case status == http.StatusUnprocessableEntity:
		return fmt.Sprintf("the review must be of the pull request's head commit (%s was given) with comments on lines of its diff; pass github.event.pull_request.head.sha", c.head)
	case status >= 500:
		return "GitHub had a problem; run again later"
	}
	return "see GitHub's REST API documentation for pull request reviews"
}
