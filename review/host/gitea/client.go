package gitea

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/reviewdev/review/internal/lazy"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
)

const (
	// perPage is the page review asks for: Gitea's default
	// MAX_RESPONSE_ITEMS, which caps a page whatever is asked.
	perPage = 50
	// maxBody bounds a body review posts. Gitea documents no limit of
	// its own (a comment is a database text); a summary past this is cut.
	maxBody = 250_000
)

// Options says where the poster posts.
type Options struct {
	// APIURL is the API's root, the instance's /api/v1, as Gitea and
	// Forgejo Actions set GITHUB_API_URL.
	APIURL string
	// Token authenticates the requests (Authorization: token …): an
	// access token with the repository and issue scopes, or the Actions
	// token.
	Token string
	// Repo is owner/name, $GITHUB_REPOSITORY.
	Repo string
	// PR is the pull request's index, the number in #12.
	PR int
	// HeadSHA is the commit the review is of; empty means the result's.
	HeadSHA string
	// HTTPClient sends the requests; nil means a client with a timeout
	// for each request. Its CheckRedirect is wrapped to keep the token
	// from other hosts.
	HTTPClient *http.Client
	// MaxAttempts bounds the attempts of one request; 1 disables retries,
	// 0 means seam.DefaultMaxAttempts. BaseDelay and MaxDelay shape the
	// wait between attempts when Gitea does not say how long to wait.
	MaxAttempts         int
	BaseDelay, MaxDelay time.Duration
}

// repoName is owner/name as Gitea allows them: letters, digits, "-", "_"
// and "." (not "." or ".." alone).
var repoName = lazy.Regexp(`^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$`)

// client speaks to one pull request through Gitea's REST API.
type client struct {
	*seam.REST
	repoPath string // /repos/owner/name
	prPath   string // /repos/owner/name/pulls/N
	prName   string // owner/name#N, for messages
	pr       int
	head     string
}

func newClient(o Options, head string) (*client, error) {
	owner, name, _ := strings.Cut(o.Repo, "/")
	switch {
	case strings.TrimSpace(o.Token) == "":
		return nil, errors.New("cannot post to Gitea: no token; set GITEA_TOKEN to an access token with the repository and issue scopes, or pass the Actions token in GITHUB_TOKEN")
	case !repoName().MatchString(o.Repo) || owner == "." || owner == ".." || name == "." || name == "..":
		return nil, fmt.Errorf("cannot post to Gitea: repository %q is not owner/name; set GITHUB_REPOSITORY, as Gitea and Forgejo Actions do", text.OneLine(o.Repo, 80))
	case o.PR <= 0:
		return nil, fmt.Errorf("cannot post to Gitea: pull request %d is not valid; run on a pull_request event", o.PR)
	case head != "" && !seam.FullSHA(head):
		return nil, fmt.Errorf("cannot post to Gitea: head %q is not a commit SHA (40 or 64 hexadecimal digits)", text.Truncate(head, 80))
	}
	c := &client{
		pr:       o.PR,
		repoPath: "/repos/" + url.PathEscape(owner) + "/" + url.PathEscape(name),
		prName:   fmt.Sprintf("%s#%d", o.Repo, o.PR),
		head:     strings.ToLower(head),
	}
	c.prPath = c.repoPath + "/pulls/" + strconv.Itoa(o.PR)
	r, err := seam.NewREST(seam.REST{
		Host: "Gitea", Auth: "Authorization", Token: "token " + o.Token, Var: "GITHUB_API_URL", Root: "…/api/v1",
		Hint: c.hint, Retry: seam.NewRetry(o.MaxAttempts, o.BaseDelay, o.MaxDelay),
	}, o.APIURL, o.HTTPClient)
	if err != nil {
		return nil, fmt.Errorf("cannot post to Gitea: %v; set GITHUB_API_URL to the instance's /api/v1, e.g. https://codeberg.org/api/v1", err)
	}
	c.REST = r
	return c, nil
}

// hint says what to do about a refused request.
func (c *client) hint(status int) string {
	switch {
	case status == http.StatusUnauthorized:
		return "the token is wrong or expired; pass a valid one in GITEA_TOKEN (or the Actions token in GITHUB_TOKEN)"
	case status == http.StatusForbidden:
		return "the token may not write to the pull request; give it the repository and issue scopes with write access (the Actions token of a pull request from a fork can only read)"
	case status == http.StatusNotFound:
		return fmt.Sprintf("check that pull request %s exists and the token can read it (GITHUB_REPOSITORY, the event's pull request, and GITHUB_API_URL ending in /api/v1)", c.prName)
	case status == http.StatusTooManyRequests:
		return "Gitea's rate limit is used up; run again later"
	case status >= 500:
		return "Gitea had a problem; run again later"
	}
	return "see the instance's API documentation (/api/swagger) for pull request reviews and issue comments"
}

// list gets every page of a listing.
func list[T any](ctx context.Context, c *client, op, path string) ([]T, error) {
	return seam.List[T](ctx, c.REST, op, path, "limit", perPage)
}

// get reads one answer into out.
func (c *client) get(ctx context.Context, op, path string, out any) error {
	_, err := c.Call(ctx, seam.Request{Op: op, Method: http.MethodGet, Path: path, Out: out})
	return err
}

// The API's shapes (swagger definitions User, PullRequest, PullReview,
// PullReviewComment, Comment, Reaction, RepoCollaboratorPermission), the
// fields review reads.
type (
	user struct {
		ID    int64  `json:"id"`
		Login string `json:"login"`
	}
	pullRequest struct {
		Number  int         `json:"number"`
		HTMLURL seam.WebURL `json:"html_url"`
		Head    struct {
			SHA string `json:"sha"`
			Ref string `json:"ref"`
		} `json:"head"`
		Base struct {
			Ref string `json:"ref"`
		} `json:"base"`
	}
	review struct {
		ID       int64       `json:"id"`
		Body     string      `json:"body"`
		CommitID string      `json:"commit_id"`
		State    string      `json:"state"`
		User     *user       `json:"user"`
		HTMLURL  seam.WebURL `json:"html_url"`
	}
	reviewComment struct {
		ID       int64  `json:"id"`
		Body     string `json:"body"`
		Path     string `json:"path"`
		Position int    `json:"position"`
		// OriginalPosition is the old side's line, for a comment there.
		OriginalPosition int         `json:"original_position"`
		User             *user       `json:"user"`
		Resolver         *user       `json:"resolver"`
		HTMLURL          seam.WebURL `json:"html_url"`
		ReviewID         int64       `json:"pull_request_review_id"`
	}
	comment struct {
		ID      int64       `json:"id"`
		Body    string      `json:"body"`
		User    *user       `json:"user"`
		HTMLURL seam.WebURL `json:"html_url"`
	}
	reaction struct {
		Content string `json:"content"`
		User    *user  `json:"user"`
	}
)

// login is u's login, "" for none.
func (u *user) login() string {
	if u == nil {
		return ""
	}
	return u.Login
}
