package seam

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/reviewdev/review/internal/backoff"
	"github.com/reviewdev/review/internal/lazy"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/llm"
)

// What every host's REST client holds to.
const (
	// MaxAnswer bounds an answer held in memory; a page of 100 comments
	// is far smaller.
	MaxAnswer = 16 << 20
	// RequestTimeout bounds each request when the caller gives no client,
	// or one without a timeout.
	RequestTimeout = 30 * time.Second
	// MaxPages stops a listing that never ends.
	MaxPages = 100
	// userAgent names review to the host, which some hosts require.
	userAgent = "review"
)

// REST speaks a host's JSON REST API with net/http: the token in the one
// header the host expects, and only to the API's host (a redirect to
// another host drops it); every answer read up to MaxAnswer; a request the
// host fails with a status that may pass (TransientStatus), or that the
// network drops, made again (Retry), a request that is not idempotent only
// after asking whether it landed. Its errors are one line: what failed,
// what the host said, what to do (*APIError).
type REST struct {
	// Host names the host in messages: "GitLab", "Gitea".
	Host string
	// API is the API's root, without a final slash.
	API *url.URL
	// Auth is the header that carries the token and its value
	// ("PRIVATE-TOKEN", "token …", "Bearer …"); Headers are the others
	// the host asks for.
	Auth, Token string
	Headers     http.Header
	// Var names the variable that gives the API's address, and Root how
	// its path ends ("…/api/v4"), for advice.
	Var, Root string
	// Hint says what to do about a refusal with this status.
	Hint func(status int) string
	// Retry bounds the attempts of each request.
	Retry Retry

	hc *http.Client
}

// NewREST checks the API's address (an http(s) URL without a query) and
// readies the client: hc's copy, with RequestTimeout when it has none and
// its redirects kept from carrying the token elsewhere.
func NewREST(r REST, api string, hc *http.Client) (*REST, error) {
	u, err := url.Parse(strings.TrimRight(api, "/"))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("API URL %q is not an http(s) URL", llm.DisplayURL(api))
	}
	c := http.Client{Timeout: RequestTimeout}
	if hc != nil {
		c = *hc
	}
	if c.Timeout <= 0 {
		c.Timeout = RequestTimeout
	}
	c.CheckRedirect = KeepTokenHome(u.Host, r.Auth, c.CheckRedirect)
	r.API, r.hc = u, &c
	return &r, nil
}

// KeepTokenHome is a CheckRedirect that drops the token's header from a
// redirected request to any host but the API's: net/http keeps headers it
// does not know to be secret, such as PRIVATE-TOKEN, on a redirect
// elsewhere (Authorization it drops itself).
func KeepTokenHome(host, header string, next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if !strings.EqualFold(req.URL.Host, host) {
			req.Header.Del(header)
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

// Request is one call of a host's API.
type Request struct {
	Op     string // what is being done, for messages
	Method string
	Path   string // under the API's root
	Query  url.Values
	Body   any // sent as JSON when not nil
	Out    any // the answer is decoded into it when not nil
	// Landed, for a request that is not idempotent, says whether an
	// attempt that failed did what it asked after all (a host may act
	// and then fail to answer): it is asked before sending again.
	Landed func(ctx context.Context) (bool, error)
}

// ErrTooLarge is an answer over MaxAnswer.
var ErrTooLarge = fmt.Errorf("answer is larger than %d MiB", MaxAnswer>>20)

// Answer is a host's answer to one attempt that was not a success.
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

func (a *Answer) Error() string { return fmt.Sprintf("answered %d", a.Status) }

// Call makes a request, again while it fails in a way that may pass, and
// returns the answer's header.
func (c *REST) Call(ctx context.Context, r Request) (http.Header, error) {
	var body []byte
	if r.Body != nil {
		var err error
		if body, err = json.Marshal(r.Body); err != nil {
			return nil, err
		}
	}
	for attempt := 1; ; attempt++ {
		h, err := c.send(ctx, r, body)
		if err == nil {
			return h, nil
		}
		if err := c.again(ctx, r.Op, attempt, err); err != nil {
			return nil, err
		}
		if r.Landed != nil && mayHaveActed(err) {
			done, err := r.Landed(ctx)
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
	var a *Answer
	return !errors.As(err, &a) || a.Status != http.StatusTooManyRequests
}

func (c *REST) send(ctx context.Context, r Request, body []byte) (http.Header, error) {
	u := c.API.String() + r.Path
	if len(r.Query) > 0 {
		u += "?" + r.Query.Encode()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u, rd)
	if err != nil {
		return nil, err
	}
	for k, vs := range c.Headers {
		req.Header[k] = vs
	}
	req.Header.Set(c.Auth, c.Token)
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
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswer+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxAnswer {
		return nil, ErrTooLarge
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &Answer{Status: resp.StatusCode, Header: resp.Header, Body: data}
	}
	if r.Out != nil {
		if err := json.Unmarshal(data, r.Out); err != nil {
			return nil, fmt.Errorf("%s: %s's answer is not the JSON expected (%v); check %s points at the REST API (%s)", r.Op, c.Host, err, c.Var, c.Root)
		}
	}
	return resp.Header, nil
}

// again waits and returns nil when failed attempt n of op is worth making
// again, and otherwise returns the error to report.
func (c *REST) again(ctx context.Context, op string, n int, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s: stopped: %w", op, context.Cause(ctx))
	}
	wait, hinted, ok := transient(err)
	again, serr := c.Retry.Again(ctx, n, wait, hinted, ok)
	switch {
	case serr != nil:
		return fmt.Errorf("%s: stopped: %w", op, context.Cause(ctx))
	case !again:
		return c.fail(op, n, err)
	}
	return nil
}

// transient reports whether a failed request may succeed when made again,
// and how long the host asked to wait first (hinted false: it did not say).
func transient(err error) (wait time.Duration, hinted, ok bool) {
	var a *Answer
	if errors.As(err, &a) {
		if TransientStatus(a.Status) {
			wait, hinted = RetryAfter(a.Header)
			return wait, hinted, true
		}
		return 0, false, false
	}
	if errors.Is(err, ErrTooLarge) {
		return 0, false, false
	}
	return 0, false, Network(err)
}

// RetryAfter reads Retry-After: whole seconds or an HTTP date.
func RetryAfter(h http.Header) (time.Duration, bool) {
	return backoff.RetryAfter(h, time.Now(), backoff.Seconds|backoff.Dates)
}

// APIError is a request a host refused. Its message is one line: what
// failed, what the host said, and what to do.
type APIError struct {
	Host     string // "GitLab"
	Op       string // what was being done
	Status   int    // the HTTP status of the last answer
	Message  string // the host's message
	Hint     string // what to do about it
	Attempts int    // requests made, retries included
	// Denied says the token may not do it (403).
	Denied bool
}

func (e *APIError) Error() string {
	op := e.Op
	if e.Attempts > 1 {
		op = fmt.Sprintf("%s (%d attempts)", op, e.Attempts)
	}
	return fmt.Sprintf("%s: %s answered %d %s: %s", op, e.Host, e.Status, e.Message, e.Hint)
}

// Is makes a refusal for want of permission ErrDenied.
func (e *APIError) Is(target error) bool { return target == ErrDenied && e.Denied }

// StatusOf is the status of the host's answer err carries, 0 for none.
func StatusOf(err error) int {
	var a *Answer
	if errors.As(err, &a) {
		return a.Status
	}
	var e *APIError
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// fail words the final failure of op after n attempts as one line.
func (c *REST) fail(op string, n int, err error) error {
	var a *Answer
	if errors.As(err, &a) {
		e := &APIError{Host: c.Host, Op: op, Status: a.Status, Message: Message(a.Status, a.Body), Attempts: n}
		if c.Hint != nil {
			e.Hint = c.Hint(a.Status)
		}
		e.Denied = a.Status == http.StatusForbidden
		return e
	}
	var urlErr *url.Error
	switch {
	case errors.Is(err, ErrTooLarge):
		return fmt.Errorf("%s: %s's %w", op, c.Host, err)
	case errors.As(err, &urlErr):
		return fmt.Errorf("%s: cannot reach %s at %s: %w: check %s and the network", op, c.Host, c.API.Host, urlErr.Err, c.Var)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// Message is a host's message from an error answer, in the shapes hosts
// give it: {"message": "..."} (GitLab, Gitea, Azure DevOps), {"message":
// {"field": ["..."]}}, {"error": "..."}, {"error": {"message": "..."}}
// (Bitbucket), or else the status's text; one line, at most 300
// characters.
func Message(status int, body []byte) string {
	var b struct {
		Message any             `json:"message"`
		Error   json.RawMessage `json:"error"`
		Desc    string          `json:"error_description"`
	}
	msg := ""
	if json.Unmarshal(body, &b) == nil {
		switch m := b.Message.(type) {
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
			var s string
			var nested struct {
				Message string `json:"message"`
			}
			switch {
			case json.Unmarshal(b.Error, &s) == nil:
			case json.Unmarshal(b.Error, &nested) == nil:
				s = nested.Message
			}
			msg = strings.TrimSpace(s + " " + b.Desc)
		}
	}
	// Messages often start with the status ("403 Forbidden"), which the
	// error says already.
	msg = strings.TrimSpace(strings.TrimPrefix(msg, strconv.Itoa(status)+" "))
	if msg == "" {
		msg = http.StatusText(status)
	}
	return text.Truncate(text.OneLine(msg, 0), 300)
}

var linkNextRE = lazy.Regexp(`<([^>]*)>\s*;\s*rel="?next"?`)

// NextPage is the number of the next page of a listing the answer's
// header names: X-Next-Page (GitLab), else the page of the Link header's
// next URL (RFC 8288, as GitLab and Gitea send it). Only the number is
// taken: the next page is asked of the API's host, whatever the header
// names.
func NextPage(h http.Header) string {
	if n, ok := PageNumber(strings.TrimSpace(h.Get("X-Next-Page"))); ok {
		return n
	}
	for _, l := range h.Values("Link") {
		for _, part := range strings.Split(l, ",") {
			m := linkNextRE().FindStringSubmatch(part)
			if m == nil {
				continue
			}
			if u, err := url.Parse(m[1]); err == nil {
				if p, ok := PageNumber(u.Query().Get("page")); ok {
					return p
				}
			}
		}
	}
	return ""
}

// PageNumber is s as a page number to ask for: digits only, of a page that
// can exist, written afresh, so that no more of an answer than a number
// reaches the next request ("0000…1" of any length is "1").
func PageNumber(s string) (string, bool) {
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

// List gets every page of a listing, asking for per items a page with
// the query parameter perName ("per_page", "limit"), and the next page by
// NextPage.
func List[T any](ctx context.Context, c *REST, op, path, perName string, per int) ([]T, error) {
	var all []T
	q := url.Values{perName: {strconv.Itoa(per)}}
	for page := 0; ; page++ {
		if page == MaxPages {
			return nil, fmt.Errorf("%s: more than %d pages; %s's pagination did not end", op, MaxPages, c.Host)
		}
		var items []T
		h, err := c.Call(ctx, Request{Op: op, Method: http.MethodGet, Path: path, Query: q, Out: &items})
		if err != nil {
			return nil, err
		}
		all = append(all, items...)
		next := NextPage(h)
		if next == "" {
			return all, nil
		}
		q = url.Values{perName: {strconv.Itoa(per)}, "page": {next}}
	}
}
