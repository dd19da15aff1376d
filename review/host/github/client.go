package github

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	gh "github.com/google/go-github/v84/github"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
)

const (
	// maxResponse bounds a response held in memory; a page of 100 reviews
	// is far smaller.
	maxResponse = 16 << 20
	// maxListPages stops a listing that never ends: 100 pages of 100 is
	// more reviews than any pull request has.
	maxListPages = 100
	// RequestTimeout bounds each request to GitHub, its answer read
	// whole; a caller's client with a timeout of its own keeps it.
	RequestTimeout = 30 * time.Second
	// DefaultTimeout bounds all the requests of one Post or ReadEarlier,
	// retries and the waits between them included (PostOptions.Timeout):
	// an API that never answers stops a review's GitHub step within it,
	// rather than after every attempt of every request timed out.
	DefaultTimeout = 90 * time.Second
	// mediaType is the media type GitHub documents for its REST API.
	// go-github still asks for retired preview types on some endpoints.
	mediaType = "application/vnd.github+json"
	// userAgent names review to GitHub, which refuses requests without
	// one.
	userAgent = "review"
)

var errTooLarge = fmt.Errorf("GitHub's answer is larger than %d MiB", maxResponse>>20)

// client speaks to one pull request's reviews through go-github.
type client struct {
	api         *gh.Client
	host        string // the API's host, for messages
	owner, name string // as they go into a URL path
	pr          int
	prName      string // owner/name#n, for messages
	head        string
	login       string // whose markers count besides bots'
	retry       seam.Retry
	read        *pullRead
}

// pullRead is what a run reads of a pull request around its review: who
// the token belongs to, the reviews and the review comments. A Poster keeps
// it, so that reading the earlier reviews (before the model runs) and
// posting (after) ask GitHub once each. A run reviews one pull request at a
// time (the recipes' concurrency group); a post that failed and is made
// again still looks for its review afresh.
type pullRead struct {
	login                          string
	haveLogin, haveReviews, haveCm bool
	reviews                        []*gh.PullRequestReview
	comments                       []*gh.PullRequestComment
}

func newClient(o PostOptions, r *result.Result) (*client, error) {
	if strings.TrimSpace(o.Token) == "" {
		return nil, errors.New("cannot post to GitHub: no token; set GITHUB_TOKEN (in a workflow: env: GITHUB_TOKEN: ${{ github.token }})")
	}
	owner, name, ok := strings.Cut(o.Repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return nil, fmt.Errorf("cannot post to GitHub: repository %q is not owner/name; set GITHUB_REPOSITORY", o.Repo)
	}
	if o.PR <= 0 {
		return nil, fmt.Errorf("cannot post to GitHub: pull request number %d is not valid; run on a pull_request event, whose event file names it", o.PR)
	}
	head := o.HeadSHA
	if head == "" {
		head = r.HeadSHA
	}
	if !seam.FullSHA(head) {
		// The event's head is GitHub's answer: it becomes every
		// comment's commit_id, so it must be a whole commit SHA.
		return nil, fmt.Errorf("cannot post to GitHub: head %q is not a commit SHA (40 or 64 hexadecimal digits); pass the pull request's head commit (github.event.pull_request.head.sha)", text.Truncate(head, 80))
	}
	raw := o.APIURL
	if raw == "" {
		raw = DefaultAPIURL
	}
	api, err := url.Parse(strings.TrimRight(raw, "/"))
	if err != nil || (api.Scheme != "https" && api.Scheme != "http") || api.Host == "" {
		return nil, fmt.Errorf("cannot post to GitHub: API URL %q is not an http(s) URL; set GITHUB_API_URL, e.g. %s", llm.DisplayURL(raw), DefaultAPIURL)
	}
	// The API URL is the root as configured, on GitHub Enterprise Server
	// too (.../api/v3); go-github resolves paths against it, so it must
	// end in a slash.
	api.Path += "/"

	hc := http.Client{}
	if o.HTTPClient != nil {
		hc = *o.HTTPClient
	}
	if hc.Timeout <= 0 {
		hc.Timeout = RequestTimeout
	}
	// go-github adds the token in its own transport, around this one, to
	// every request it sends, a redirected one too: this one takes it off
	// any request to another host, as net/http does with the
	// Authorization headers it sets itself.
	hc.Transport = transport{base: hc.Transport, host: api.Host}
	hc.CheckRedirect = limitRedirects(hc.CheckRedirect)
	c := gh.NewClient(&hc).WithAuthToken(o.Token)
	c.BaseURL = api
	c.UserAgent = userAgent
	return &client{
		api:    c,
		host:   api.Host,
		owner:  url.PathEscape(owner),
		name:   url.PathEscape(name),
		pr:     o.PR,
		prName: fmt.Sprintf("%s/%s#%d", owner, name, o.PR),
		head:   strings.ToLower(head),
		retry:  seam.NewRetry(o.MaxAttempts, o.BaseDelay, o.MaxDelay),
		read:   &pullRead{},
	}, nil
}

// whoAmI asks who the token belongs to. Tokens of apps and of Actions may
// not ask and are bots anyway, so a refusal is not an error.
func (c *client) whoAmI(ctx context.Context) string {
	if c.read.haveLogin {
		return c.read.login
	}
	u, _, err := call(ctx, c, "asking who the token belongs to", func() (*gh.User, *gh.Response, error) {
		return c.api.Users.Get(ctx, "")
	})
	c.read.haveLogin = true // a refusal too: it would be refused again
	if err != nil {
		return ""
	}
	c.read.login = u.GetLogin()
	return c.read.login
}

// reviews lists the pull request's reviews, once unless fresh.
func (c *client) reviews(ctx context.Context, fresh bool) ([]*gh.PullRequestReview, error) {
	if c.read.haveReviews && !fresh {
		return c.read.reviews, nil
	}
	reviews, err := collect(ctx, c, "listing the reviews of "+c.prName, func(o gh.ListOptions) ([]*gh.PullRequestReview, *gh.Response, error) {
		return c.api.PullRequests.ListReviews(ctx, c.owner, c.name, c.pr, &o)
	})
	if err == nil {
		c.read.reviews, c.read.haveReviews = reviews, true
	}
	return reviews, err
}

// comments lists the pull request's review comments, once.
func (c *client) comments(ctx context.Context) ([]*gh.PullRequestComment, error) {
	if c.read.haveCm {
		return c.read.comments, nil
	}
	comments, err := collect(ctx, c, "listing the review comments of "+c.prName, func(o gh.ListOptions) ([]*gh.PullRequestComment, *gh.Response, error) {
		return c.api.PullRequests.ListComments(ctx, c.owner, c.name, c.pr, &gh.PullRequestListCommentsOptions{ListOptions: o})
	})
	if err == nil {
		c.read.comments, c.read.haveCm = comments, true
	}
	return comments, err
}

// trusted reports whether a marker by u counts: by a bot (the Actions
// token, an app) or by the account the token posts as.
func (c *client) trusted(u *gh.User) bool {
	return u != nil && (u.GetType() == "Bot" || (c.login != "" && strings.EqualFold(u.GetLogin(), c.login)))
}

// findReview returns the review of the head commit an earlier run posted,
// or nil if there is none; fresh asks GitHub again.
func (c *client) findReview(ctx context.Context, fresh bool) (*gh.PullRequestReview, error) {
	reviews, err := c.reviews(ctx, fresh)
	if err != nil {
		return nil, err
	}
	for _, rv := range reviews {
		if _, head, _, ok := seam.ReadReviewMarker(rv.GetBody()); ok && c.trusted(rv.User) && strings.EqualFold(head, c.head) {
			return rv, nil
		}
	}
	return nil, nil
}

// earlierComments maps the fingerprints of findings earlier runs commented
// on the pull request to the URL of the first such comment.
func (c *client) earlierComments(ctx context.Context) (map[string]string, error) {
	comments, err := c.comments(ctx)
	if err != nil {
		return nil, err
	}
	earlier := map[string]string{}
	for _, cm := range comments {
		if fp, _, ok := seam.ReadCommentMarker(cm.GetBody()); ok && c.trusted(cm.User) {
			if _, ok := earlier[fp]; !ok {
				earlier[fp] = cm.GetHTMLURL()
			}
		}
	}
	return earlier, nil
}

// createReview posts a review and returns GitHub's record of it. A failed
// attempt does not prove that no review was made (GitHub may act and then
// fail to answer), so before posting again it looks for the review by its
// marker: a retry never posts a second one.
func (c *client) createReview(ctx context.Context, req *gh.PullRequestReviewRequest) (*gh.PullRequestReview, error) {
	op := "posting the review to " + c.prName
	for attempt := 1; ; attempt++ {
		rv, _, err := c.api.PullRequests.CreateReview(ctx, c.owner, c.name, c.pr, req)
		if err == nil {
			return rv, nil
		}
		if err := c.again(ctx, op, attempt, err); err != nil {
			return nil, err
		}
		if rv, err := c.findReview(ctx, true); err != nil || rv != nil {
			return rv, err
		}
	}
}

// collect gets every page of a listing, 100 items a page. go-github reads
// the next page's number from the Link header and asks the API URL for it,
// so the token goes nowhere else whatever the header names.
func collect[T any](ctx context.Context, c *client, op string, list func(gh.ListOptions) ([]T, *gh.Response, error)) ([]T, error) {
	var all []T
	opts := gh.ListOptions{PerPage: 100}
	for page := 0; ; page++ {
		if page == maxListPages {
			return nil, fmt.Errorf("%s: more than %d pages; GitHub's pagination did not end", op, maxListPages)
		}
		items, resp, err := call(ctx, c, op, func() ([]T, *gh.Response, error) { return list(opts) })
		if err != nil {
			return nil, err
		}
		all = append(all, items...)
		if resp.NextPage == 0 {
			return all, nil
		}
		opts.Page = resp.NextPage
	}
}

// transport asks for GitHub's documented media type, sends the token to
// the API's host only, and bounds what an answer may hold in memory.
type transport struct {
	base http.RoundTripper // nil: http.DefaultTransport
	host string            // the API's host, the one the token is for
}

func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	req = req.Clone(req.Context()) // a RoundTripper must not change its request
	req.Header.Set("Accept", mediaType)
	if !strings.EqualFold(req.URL.Host, t.host) {
		req.Header.Del("Authorization")
	}
	resp, err := base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &cappedBody{ReadCloser: resp.Body, left: maxResponse}
	return resp, nil
}

// limitRedirects is a CheckRedirect that follows at most 10 redirects, as
// net/http's default does, or defers to the caller's own.
func limitRedirects(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	if next != nil {
		return next
	}
	return func(_ *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

// cappedBody fails with errTooLarge once more than its limit was read.
type cappedBody struct {
	io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n, errTooLarge
	}
	return n, err
}

// earlier lists what trusted earlier runs posted on the pull request: the
// heads their reviews were of, oldest first, and the findings they
// commented on lines still in its diff.
func (c *client) earlier(ctx context.Context) (Earlier, error) {
	var e Earlier
	reviews, err := c.reviews(ctx, false)
	if err != nil {
		return e, err
	}
	for _, rv := range reviews {
		if _, head, _, ok := seam.ReadReviewMarker(rv.GetBody()); ok && c.trusted(rv.User) && seam.SHA().MatchString(head) {
			e.Heads = append(e.Heads, head)
		}
	}
	comments, err := c.comments(ctx)
	if err != nil {
		return e, err
	}
	if e.Threads, err = c.threads(ctx, comments); err != nil {
		return e, err
	}
	seen := map[string]bool{}
	for _, cm := range comments {
		fp, sev, ok := seam.ReadCommentMarker(cm.GetBody())
		// A comment GitHub shows as outdated has neither a line nor a
		// position: the code it was on has changed since.
		if !ok || !c.trusted(cm.User) || cm.InReplyTo != nil || (cm.Line == nil && cm.Position == nil) || seen[fp] {
			continue
		}
		if sev == "" {
			continue
		}
		seen[fp] = true
		e.Open = append(e.Open, OpenFinding{
			Fingerprint: fp, Severity: sev,
			Path: cm.GetPath(), Line: cm.GetLine(), URL: cm.GetHTMLURL(),
		})
	}
	return e, nil
}
