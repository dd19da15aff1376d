package gitlab

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/reviewdev/review/internal/backoff"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host"
	"github.com/reviewdev/review/review/llm"
)

const (
	// maxResponse bounds an answer held in memory; a page of 100 notes is
	// far smaller.
	maxResponse = 16 << 20
	// maxListPages stops a listing that never ends.
	maxListPages = 100
	// perPage is GitLab's largest page.
	perPage = 100
	// requestTimeout bounds each request when the caller gives no client.
	requestTimeout = 30 * time.Second
	// retryAfterLimit is the longest wait GitLab may ask for that is
	// waited out; a longer one ends the request with its error.
	retryAfterLimit = time.Minute
	// tokenHeader carries the token, as GitLab documents for personal,
	// project and group access tokens.
	tokenHeader = "PRIVATE-TOKEN"
	userAgent   = "review"
)

// Defaults for Options' zero retry fields.
const (
	DefaultMaxAttempts = 4
	DefaultBaseDelay   = time.Second
	DefaultMaxDelay    = 30 * time.Second
)

var errTooLarge = fmt.Errorf("GitLab's answer is larger than %d MiB", maxResponse>>20)

// Error is a request GitLab refused. Its message is one line: what failed,
// what GitLab said, and what to do.
type Error struct {
	Op       string // what was being done
	Status   int    // the HTTP status of the last answer
	Message  string // GitLab's message
	Hint     string // what to do about it
	Attempts int    // requests made, retries included
	// Denied says the token may not do it (403).
	Denied bool
}

func (e *Error) Error() string {
	op := e.Op
	if e.Attempts > 1 {
		op = fmt.Sprintf("%s (%d attempts)", op, e.Attempts)
	}
	return fmt.Sprintf("%s: GitLab answered %d %s: %s", op, e.Status, e.Message, e.Hint)
}

// Is makes a refusal for want of permission host.ErrDenied.
func (e *Error) Is(target error) bool { return target == host.ErrDenied && e.Denied }

// client speaks to one merge request through GitLab's REST API v4.
type client struct {
	hc     *http.Client
	api    *url.URL // the API root, without a final slash
	token  string
	mrPath string // /projects/:id/merge_requests/:iid, escaped
	mrName string // project!iid, for messages
	mr     int
	head   string
	retry  backoff.Policy
}

func newClient(o Options, head string) (*client, error) {
	if strings.TrimSpace(o.Token) == "" {
		return nil, errors.New("cannot post to GitLab: no token; set GITLAB_TOKEN (or REVIEW_GITLAB_TOKEN) to a token with the api scope, as a masked CI/CD variable")
	}
	if strings.TrimSpace(o.Project) == "" {
		return nil, errors.New("cannot post to GitLab: no project; set CI_PROJECT_ID (a number, or the path group/project)")
	}
	if o.MR <= 0 {
		return nil, fmt.Errorf("cannot post to GitLab: merge request IID %d is not valid; run in a merge-request pipeline, which sets CI_MERGE_REQUEST_IID", o.MR)
	}
	if head != "" && !host.SHA.MatchString(head) {
		return nil, fmt.Errorf("cannot post to GitLab: head %q is not a commit SHA", head)
	}
	api, err := url.Parse(strings.TrimRight(o.APIURL, "/"))
	if err != nil || (api.Scheme != "https" && api.Scheme != "http") || api.Host == "" || api.RawQuery != "" || api.Fragment != "" {
		return nil, fmt.Errorf("cannot post to GitLab: API URL %q is not an http(s) URL; set CI_API_V4_URL, e.g. %s", llm.DisplayURL(o.APIURL), DefaultAPIURL)
	}
	hc := http.Client{Timeout: requestTimeout}
	if o.HTTPClient != nil {
		hc = *o.HTTPClient
	}
	if hc.Timeout <= 0 {
		hc.Timeout = requestTimeout
	}
	hc.CheckRedirect = keepTokenHome(api.Host, hc.CheckRedirect)
	p := backoff.Policy{Attempts: o.MaxAttempts, Base: o.BaseDelay, Max: o.MaxDelay}.
		Or(backoff.Policy{Attempts: DefaultMaxAttempts, Base: DefaultBaseDelay, Max: DefaultMaxDelay})
	return &client{
		hc: &hc, api: api, token: o.Token, retry: p, mr: o.MR,
		mrPath: fmt.Sprintf("/projects/%s/merge_requests/%d", url.PathEscape(o.Project), o.MR),
		mrName: fmt.Sprintf("%s!%d", o.Project, o.MR),
		head:   strings.ToLower(head),
	}, nil
}

// keepTokenHome is a CheckRedirect that drops the token from a redirected
// request to any host but the API's: net/http keeps headers it does not
// know to be secret, such as PRIVATE-TOKEN, on a redirect elsewhere.
func keepTokenHome(host string, next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if !strings.EqualFold(req.URL.Host, host) {
			req.Header.Del(tokenHeader)
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

// request is one call of the API.
type request struct {
	op     string // what is being done, for messages
	method string
	path   string // under the API root
	query  url.Values
	body   any // sent as JSON when not nil
	out    any // the answer is decoded into it when not nil
	// landed, for a request that is not idempotent, says whether an
	// attempt that failed did what it asked after all (GitLab may act and
	// then fail to answer): it is asked before sending again.
	landed func(ctx context.Context) (bool, error)
}

// call makes a request, again while it fails in a way that may pass, and
// returns the answer's header.
func (c *client) call(ctx context.Context, r request) (http.Header, error) {
	var body []byte
	if r.body != nil {
		var err error
		if body, err = json.Marshal(r.body); err != nil {
			return nil, err
		}
	}
	for attempt := 1; ; attempt++ {
		h, err := c.send(ctx, r, body)
		if err == nil {
			return h, nil
		}
		if err := c.again(ctx, r.op, attempt, err); err != nil {
			return nil, err
		}
		if r.landed != nil && mayHaveActed(err) {
			done, err := r.landed(ctx)
			if err != nil {
				return nil, err
			}
			if done {
				return http.Header{}, nil
			}
		}
	}
}

// mayHaveActed reports whether a failed attempt may have done what it
// asked: a rate limit (429) says it did not; a server error or a lost
// connection leaves it unknown.
func mayHaveActed(err error) bool {
	var a *answer
	return !errors.As(err, &a) || a.status != http.StatusTooManyRequests
}

// answer is GitLab's answer to one attempt that was not a success.
type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a *answer) Error() string { return fmt.Sprintf("GitLab answered %d", a.status) }

func (c *client) send(ctx context.Context, r request, body []byte) (http.Header, error) {
	u := c.api.String() + r.path
	if len(r.query) > 0 {
		u += "?" + r.query.Encode()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set(tokenHeader, c.token)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxResponse {
		return nil, errTooLarge
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &answer{status: resp.StatusCode, header: resp.Header, body: data}
	}
	if r.out != nil {
		if err := json.Unmarshal(data, r.out); err != nil {
			return nil, fmt.Errorf("%s: GitLab's answer is not the JSON expected (%v); check CI_API_V4_URL points at the REST API (…/api/v4)", r.op, err)
		}
	}
	return resp.Header, nil
}

// list gets every page of a listing.
func list[T any](ctx context.Context, c *client, op, path string) ([]T, error) {
	var all []T
	q := url.Values{"per_page": {strconv.Itoa(perPage)}}
	for page := 0; ; page++ {
		if page == maxListPages {
			return nil, fmt.Errorf("%s: more than %d pages; GitLab's pagination did not end", op, maxListPages)
		}
		var items []T
		h, err := c.call(ctx, request{op: op, method: http.MethodGet, path: path, query: q, out: &items})
		if err != nil {
			return nil, err
		}
		all = append(all, items...)
		next := nextPage(h)
		if next == "" {
			return all, nil
		}
		q = url.Values{"per_page": {strconv.Itoa(perPage)}, "page": {next}}
	}
}

var linkNextRE = regexp.MustCompile(`<([^>]*)>\s*;\s*rel="?next"?`)

// nextPage is the number of the next page GitLab names: its X-Next-Page
// header, or the page of the Link header's next URL. Only the number is
// taken: the next page is asked of the API's host, whatever the header
// names.
func nextPage(h http.Header) string {
	if n, ok := pageNumber(strings.TrimSpace(h.Get("X-Next-Page"))); ok {
		return n
	}
	for _, l := range h.Values("Link") {
		for _, part := range strings.Split(l, ",") {
			m := linkNextRE.FindStringSubmatch(part)
			if m == nil {
				continue
			}
			if u, err := url.Parse(m[1]); err == nil {
				if p, ok := pageNumber(u.Query().Get("page")); ok {
					return p
				}
			}
		}
	}
	return ""
}

// pageNumber is s as a page number to ask for: digits only, of a page
// that can exist, written afresh, so that no more of an answer than a
// number reaches the next request ("0000…1" of any length is "1").
func pageNumber(s string) (string, bool) {
	if s == "" || len(s) > 20 {
		return "", false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxPageNumber {
		return "", false
	}
	return strconv.Itoa(n), true
}

// maxPageNumber bounds a page number taken from an answer.
const maxPageNumber = 1 << 20

// checkVersion reports a diff version whose SHAs are not whole commit
// SHAs (host.FullSHA): they would be copied into every discussion's
// position. The error names the field and its length, never its text.
func checkVersion(id int64, shas map[string]string) error {
	for _, k := range []string{"head_commit_sha", "base_commit_sha", "start_commit_sha"} {
		if v := shas[k]; !host.FullSHA(v) {
			return fmt.Errorf("GitLab's diff version %d has a %s that is not a commit SHA (%d characters, want 40 or 64 hexadecimal digits)", id, k, len(v))
		}
	}
	return nil
}

// again waits and returns nil when failed attempt n of op is worth making
// again, and otherwise returns the error to report.
func (c *client) again(ctx context.Context, op string, n int, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s: stopped: %w", op, context.Cause(ctx))
	}
	wait, hinted, ok := transient(err)
	switch {
	case hinted && wait > retryAfterLimit:
		ok = false
	case !hinted:
		wait = c.retry.Delay(n)
	}
	if backoff.Outlasts(ctx, wait) {
		ok = false
	}
	if !ok || n >= c.retry.Attempts {
		return c.fail(op, n, err)
	}
	if backoff.Sleep(ctx, wait) != nil {
		return fmt.Errorf("%s: stopped: %w", op, context.Cause(ctx))
	}
	return nil
}

// transient reports whether a failed request may succeed when made again,
// and how long GitLab asked to wait first (hinted false: it did not say).
func transient(err error) (wait time.Duration, hinted, ok bool) {
	var a *answer
	if errors.As(err, &a) {
		switch a.status {
		case http.StatusRequestTimeout, http.StatusTooManyRequests,
			http.StatusInternalServerError, http.StatusBadGateway,
			http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			wait, hinted = retryAfter(a.header)
			return wait, hinted, true
		}
		return 0, false, false
	}
	if errors.Is(err, errTooLarge) {
		return 0, false, false
	}
	var (
		netErr  net.Error
		dnsErr  *net.DNSError
		certErr *tls.CertificateVerificationError
	)
	if !errors.As(err, &netErr) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return 0, false, false
	}
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound || errors.As(err, &certErr) {
		return 0, false, false
	}
	return 0, false, true
}

// retryAfter reads Retry-After: whole seconds or an HTTP date.
func retryAfter(h http.Header) (time.Duration, bool) {
	return backoff.RetryAfter(h, time.Now(), backoff.Seconds|backoff.Dates)
}

// fail words the final failure of op after n attempts as one line.
func (c *client) fail(op string, n int, err error) error {
	var a *answer
	if errors.As(err, &a) {
		e := &Error{Op: op, Status: a.status, Message: message(a), Attempts: n}
		e.Hint = c.hint(a.status)
		e.Denied = a.status == http.StatusForbidden
		return e
	}
	var urlErr *url.Error
	switch {
	case errors.Is(err, errTooLarge):
		return fmt.Errorf("%s: %w", op, err)
	case errors.As(err, &urlErr):
		return fmt.Errorf("%s: cannot reach GitLab at %s: %w: check CI_API_V4_URL and the network", op, c.api.Host, urlErr.Err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// message is GitLab's message from an error body: {"message": "..."},
// {"message": {"field": ["..."]}}, {"error": "..."}, or the status text.
func message(a *answer) string {
	var body struct {
		Message any    `json:"message"`
		Error   string `json:"error"`
		Desc    string `json:"error_description"`
	}
	msg := ""
	if json.Unmarshal(a.body, &body) == nil {
		switch m := body.Message.(type) {
		case string:
			msg = m
		case map[string]any:
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var parts []string
			for _, k := range keys {
				parts = append(parts, fmt.Sprintf("%s %v", k, m[k]))
			}
			msg = strings.Join(parts, "; ")
		case []any:
			msg = fmt.Sprint(m...)
		}
		if msg == "" {
			msg = strings.TrimSpace(body.Error + " " + body.Desc)
		}
	}
	// GitLab's messages often start with the status ("403 Forbidden"),
	// which the error says already.
	msg = strings.TrimSpace(strings.TrimPrefix(msg, strconv.Itoa(a.status)+" "))
	if msg == "" {
		msg = http.StatusText(a.status)
	}
	return text.Truncate(text.OneLine(msg, 0), 300)
}

// hint says what to do about a refused request.
func (c *client) hint(status int) string {
	switch {
	case status == http.StatusUnauthorized:
		return "the token is wrong or expired; pass a valid one in GITLAB_TOKEN (or REVIEW_GITLAB_TOKEN)"
	case status == http.StatusForbidden:
		return "the token may not comment on the merge request; give it the api scope and at least the Reporter role (CI_JOB_TOKEN cannot post)"
	case status == http.StatusNotFound:
		return fmt.Sprintf("check that merge request %s exists and the token can read it (CI_PROJECT_ID, CI_MERGE_REQUEST_IID, and CI_API_V4_URL ending in /api/v4)", c.mrName)
	case status == http.StatusTooManyRequests:
		return "GitLab's rate limit is used up; run again later"
	case status >= 500:
		return "GitLab had a problem; run again later"
	}
	return "see GitLab's REST API documentation for merge request discussions and notes"
}
