package github

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	gh "github.com/google/go-github/v84/github"
)

// secondaryLimit is how GitHub answers a secondary rate limit.
func secondaryLimit(status int, retryAfter string) failure {
	return failure{
		status: status,
		header: http.Header{"Retry-After": {retryAfter}},
		body: map[string]any{
			"message":           "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
			"documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
		},
	}
}

func serverError(status int) failure {
	return failure{status: status, body: map[string]any{"message": http.StatusText(status)}}
}

// count is how many requests the fake got that start with prefix.
func (g *fakeGitHub) count(prefix string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, r := range g.requests {
		if strings.HasPrefix(r, prefix) {
			n++
		}
	}
	return n
}

// TestPostGitHubRetries checks that what may pass is tried again, and that
// a review is posted once however its POST failed.
func TestPostGitHubRetries(t *testing.T) {
	d := postTestDiff(t)
	tests := []struct {
		name     string
		kind     string // of the request that fails
		fails    []failure
		requests int // of that kind, in all
		posts    int // POSTs, in all
	}{
		{"a server error on a listing", "GET reviews", []failure{serverError(502)}, 2, 1},
		{"three server errors", "GET comments", []failure{serverError(500), serverError(503), serverError(504)}, 4, 1},
		{"a dropped connection", "GET comments", []failure{{status: 0}}, 2, 1},
		{"a secondary rate limit", "GET reviews", []failure{secondaryLimit(http.StatusForbidden, "0")}, 2, 1},
		{"too many requests", "POST reviews", []failure{secondaryLimit(http.StatusTooManyRequests, "0")}, 2, 2},
		{"a server error before posting", "POST reviews", []failure{serverError(503)}, 2, 2},
		{"a server error after posting", "POST reviews", []failure{{status: 502, body: map[string]any{"message": "Server Error"}, after: true}}, 1, 1},
		{"a dropped connection after posting", "POST reviews", []failure{{status: 0, after: true}}, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newFakeGitHub(t)
			g.fail(tt.kind, tt.fails...)
			rep, err := Post(context.Background(), postResult(), d, g.options())
			if err != nil {
				t.Fatal(err)
			}
			if n := g.count(strings.Replace(tt.kind, " ", " /api/v3/repos/o/r/pulls/7/", 1)); n != tt.requests {
				t.Errorf("%d requests %s, want %d", n, tt.kind, tt.requests)
			}
			if n := g.count("POST "); n != tt.posts {
				t.Errorf("%d POSTs, want %d", n, tt.posts)
			}
			g.mu.Lock()
			reviews := g.reviews
			g.mu.Unlock()
			if len(reviews) != 1 {
				t.Fatalf("%d reviews posted, want 1", len(reviews))
			}
			if rep.ReviewID != reviews[0]["id"] || rep.URL == "" || rep.Skipped {
				t.Errorf("report %+v, want the review posted, %v", rep, reviews[0]["id"])
			}
		})
	}
}

// TestPostGitHubGivesUp checks what is not tried again, or not forever,
// and what the error then says.
func TestPostGitHubGivesUp(t *testing.T) {
	d := postTestDiff(t)
	tests := []struct {
		name     string
		kind     string
		fails    []failure
		requests int
		want     string
	}{
		{"server errors", "GET comments", []failure{serverError(502), serverError(502), serverError(502), serverError(502)}, 4,
			"listing the review comments of o/r#7 (4 attempts): GitHub answered 502 Bad Gateway: GitHub had a problem; run again later"},
		{"a wait too long", "GET reviews", []failure{secondaryLimit(http.StatusForbidden, "3600")}, 1,
			"listing the reviews of o/r#7: GitHub answered 403 You have exceeded a secondary rate limit. Please wait a few minutes before you try again.: the token's rate limit is used up; run again later"},
		{"a refusal", "POST reviews", []failure{{status: http.StatusForbidden, body: map[string]any{"message": "Resource not accessible by integration"}}}, 1,
			"posting the review to o/r#7: GitHub answered 403 Resource not accessible by integration: the token may not write reviews"},
		{"the hourly allowance", "GET reviews", []failure{{status: http.StatusForbidden,
			header: http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"1700000000"}}, body: map[string]any{"message": "API rate limit exceeded"}}}, 1,
			"GitHub answered 403 API rate limit exceeded: the token's rate limit is used up; run again after 2023-11-14T22:13:20Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newFakeGitHub(t)
			g.fail(tt.kind, tt.fails...)
			_, err := Post(context.Background(), postResult(), d, g.options())
			var gerr *Error
			if !errors.As(err, &gerr) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want an *Error with %q", err, tt.want)
			}
			if gerr.Attempts != tt.requests {
				t.Errorf("Attempts = %d, want %d", gerr.Attempts, tt.requests)
			}
			if n := g.count(strings.Replace(tt.kind, " ", " /api/v3/repos/o/r/pulls/7/", 1)); n != tt.requests {
				t.Errorf("%d requests %s, want %d", n, tt.kind, tt.requests)
			}
		})
	}

	// Nobody answers: the network's failure, after every attempt.
	g := newFakeGitHub(t)
	o := g.options()
	g.srv.Close()
	_, err := Post(context.Background(), postResult(), d, o)
	if err == nil || !strings.Contains(err.Error(), "listing the reviews of o/r#7 (4 attempts): cannot reach GitHub at 127.0.0.1:") ||
		!strings.HasSuffix(err.Error(), "check GITHUB_API_URL and the network") || strings.Contains(err.Error(), "\n") {
		t.Errorf("no server: %v", err)
	}
}

// TestPostGitHubWaits checks that a wait GitHub asks for is kept, within
// the caller's context.
func TestPostGitHubWaits(t *testing.T) {
	d := postTestDiff(t)

	// Retry-After is waited out, even where the backoff would be shorter.
	g := newFakeGitHub(t)
	g.fail("GET reviews", secondaryLimit(http.StatusForbidden, "1"))
	start := time.Now()
	if _, err := Post(context.Background(), postResult(), d, g.options()); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("retried after %s, not the second GitHub asked for", waited)
	}

	// A wait past the caller's deadline is not begun: the error is
	// GitHub's, at once.
	g = newFakeGitHub(t)
	g.fail("GET reviews", secondaryLimit(http.StatusTooManyRequests, "50"))
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	start = time.Now()
	_, err := Post(ctx, postResult(), d, g.options())
	var gerr *Error
	if !errors.As(err, &gerr) || gerr.Status != http.StatusTooManyRequests || time.Since(start) > 20*time.Second {
		t.Errorf("after %s: %v, want GitHub's 429 at once", time.Since(start), err)
	}

	// Cancelling stops a wait.
	g = newFakeGitHub(t)
	g.fail("GET reviews", secondaryLimit(http.StatusForbidden, "30"))
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start = time.Now()
	_, err = Post(ctx, postResult(), d, g.options())
	if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "listing the reviews of o/r#7: stopped") || time.Since(start) > 20*time.Second {
		t.Errorf("after %s: %v, want stopped at once", time.Since(start), err)
	}
}

func TestTransient(t *testing.T) {
	answer := func(status int, header http.Header) *http.Response {
		if header == nil {
			header = http.Header{}
		}
		return &http.Response{StatusCode: status, Header: header, Request: &http.Request{Method: "GET", URL: &url.URL{Path: "/x"}}}
	}
	thirty := 30 * time.Second
	var syntax json.SyntaxError
	tests := []struct {
		name   string
		err    error
		wait   time.Duration
		hinted bool
		ok     bool
	}{
		{"server error", &gh.ErrorResponse{Response: answer(502, nil)}, 0, false, true},
		{"unavailable, with a wait", &gh.ErrorResponse{Response: answer(503, http.Header{"Retry-After": {"7"}})}, 7 * time.Second, true, true},
		{"too many requests", &gh.ErrorResponse{Response: answer(429, nil)}, 0, false, true},
		{"forbidden", &gh.ErrorResponse{Response: answer(403, nil)}, 0, false, false},
		{"forbidden, with a wait", &gh.ErrorResponse{Response: answer(403, http.Header{"Retry-After": {"5"}})}, 5 * time.Second, true, true},
		{"not found", &gh.ErrorResponse{Response: answer(404, nil)}, 0, false, false},
		{"unprocessable", &gh.ErrorResponse{Response: answer(422, nil)}, 0, false, false},
		{"not implemented", &gh.ErrorResponse{Response: answer(501, nil)}, 0, false, false},
		{"secondary limit", &gh.AbuseRateLimitError{Response: answer(403, nil), RetryAfter: &thirty}, thirty, true, true},
		{"secondary limit, no wait said", &gh.AbuseRateLimitError{Response: answer(403, nil)}, 0, false, true},
		{"primary limit", &gh.RateLimitError{Response: answer(403, nil)}, 0, false, false},
		{"refused connection", &url.Error{Op: "Get", URL: "http://x", Err: &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}}, 0, false, true},
		{"reset connection", fmt.Errorf("reading: %w", &net.OpError{Op: "read", Err: syscall.ECONNRESET}), 0, false, true},
		{"cut-off answer", io.ErrUnexpectedEOF, 0, false, true},
		{"unknown host", &url.Error{Op: "Get", URL: "http://x", Err: &net.DNSError{Err: "no such host", Name: "x", IsNotFound: true}}, 0, false, false},
		{"bad certificate", &url.Error{Op: "Get", URL: "https://x", Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}}, 0, false, false},
		{"http to https", &url.Error{Op: "Get", URL: "http://x", Err: tls.RecordHeaderError{Msg: "not TLS"}}, 0, false, false},
		{"too large", fmt.Errorf("decoding: %w", errTooLarge), 0, false, false},
		{"not JSON", &syntax, 0, false, false},
	}
	for _, tt := range tests {
		wait, hinted, ok := transient(tt.err)
		if wait != tt.wait || hinted != tt.hinted || ok != tt.ok {
			t.Errorf("%s: transient = %s, %v, %v; want %s, %v, %v", tt.name, wait, hinted, ok, tt.wait, tt.hinted, tt.ok)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	for in, want := range map[string]time.Duration{"0": 0, "7": 7 * time.Second, " 60 ": time.Minute, "99999999999999": (1 << 20) * time.Second} {
		if got, ok := retryAfter(http.Header{"Retry-After": {in}}); !ok || got != want {
			t.Errorf("retryAfter(%q) = %s, %v; want %s", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "-1", "soon", "1.5", "Wed, 21 Oct 2015 07:28:00 GMT"} {
		if _, ok := retryAfter(http.Header{"Retry-After": {in}}); ok {
			t.Errorf("retryAfter(%q) is a wait", in)
		}
	}
}

// TestLargeAnswer checks that an answer too large to hold is refused, not
// read whole.
func TestLargeAnswer(t *testing.T) {
	body := &countingReader{n: maxResponse + 1<<20}
	rt := transport{base: roundTripper(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(body), Request: r}, nil
	})}
	req, _ := http.NewRequest("GET", "http://example.invalid/x", nil)
	req.Header.Set("Accept", "application/vnd.github.v3+json")
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if req.Header.Get("Accept") != "application/vnd.github.v3+json" {
		t.Error("the transport changed its caller's request")
	}
	if _, err := io.Copy(io.Discard, resp.Body); !errors.Is(err, errTooLarge) {
		t.Errorf("reading %d bytes: %v", body.read, err)
	}
	if body.read > maxResponse+64<<10 {
		t.Errorf("read %d bytes of a %d MiB limit", body.read, maxResponse>>20)
	}
}

// countingReader yields n bytes of '[' and counts what was read.
type countingReader struct{ n, read int }

func (r *countingReader) Read(p []byte) (int, error) {
	if r.read >= r.n {
		return 0, io.EOF
	}
	k := min(len(p), r.n-r.read)
	for i := range k {
		p[i] = '['
	}
	r.read += k
	return k, nil
}

// TestDenied: a 403 that is not a rate limit says the token may not write,
// which lets the command fall back to annotations; a rate limit does not.
func TestDenied(t *testing.T) {
	for _, tc := range []struct {
		status    int
		remaining string
		msg       string
		denied    bool
	}{
		{http.StatusForbidden, "", "Resource not accessible by integration", true},
		{http.StatusForbidden, "0", "API rate limit exceeded", false},
		{http.StatusForbidden, "", "You have exceeded a secondary rate limit", false},
		{http.StatusTooManyRequests, "", "Too many", false},
		{http.StatusUnauthorized, "", "Bad credentials", false},
	} {
		resp := &http.Response{StatusCode: tc.status, Header: http.Header{}}
		if tc.remaining != "" {
			resp.Header.Set("X-RateLimit-Remaining", tc.remaining)
		}
		e := (&client{}).refusal("posting", &gh.ErrorResponse{Response: resp, Message: tc.msg})
		if e == nil || e.Denied != tc.denied {
			t.Errorf("%d %q: %+v, want denied %v", tc.status, tc.msg, e, tc.denied)
		}
	}
}
