package bitbucket

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
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
	// pageLen is the page review asks for: Bitbucket's largest.
	pageLen = 100
	// maxBody bounds a body review posts. Bitbucket documents no limit
	// of a comment's raw text; a summary past this is cut.
	maxBody = 250_000
)

// Options says where the poster posts.
type Options struct {
	// APIURL is the API's root: https://api.bitbucket.org/2.0.
	APIURL string
	// Token authenticates the requests (Authorization: Bearer …): a
	// repository or workspace access token.
	Token string
	// Workspace and Repo name the repository: $BITBUCKET_WORKSPACE and
	// $BITBUCKET_REPO_SLUG.
	Workspace, Repo string
	// PR is the pull request's ID, $BITBUCKET_PR_ID.
	PR int
	// HeadSHA is the commit the review is of, $BITBUCKET_COMMIT; empty
	// means the result's.
	HeadSHA string
	// HTTPClient sends the requests; nil means a client with a timeout
	// for each request. Its CheckRedirect is wrapped to keep the token
	// from other hosts.
	HTTPClient *http.Client
	// MaxAttempts bounds the attempts of one request; 1 disables retries,
	// 0 means seam.DefaultMaxAttempts. BaseDelay and MaxDelay shape the
	// wait between attempts when Bitbucket does not say how long to wait.
	MaxAttempts         int
	BaseDelay, MaxDelay time.Duration
}

// slug is a workspace's or repository's slug as Bitbucket allows them:
// letters, digits, "-", "_" and "." (not "." or ".." alone), or a UUID in
// braces.
var slug = lazy.Regexp(`^(?:[A-Za-z0-9_.-]{1,100}|\{[0-9a-fA-F-]{36}\})$`)

// client speaks to one pull request through Bitbucket's REST API.
type client struct {
	*seam.REST
	repoPath string // /repositories/workspace/slug
	prPath   string // /repositories/workspace/slug/pullrequests/N
	prName   string // workspace/slug#N, for messages
	head     string
	// key signs the markers review writes (sign).
	key []byte
}

func newClient(o Options, head string) (*client, error) {
	switch {
	case strings.TrimSpace(o.Token) == "":
		return nil, errors.New("cannot post to Bitbucket: no token; set BITBUCKET_TOKEN to a repository or workspace access token")
	case !okSlug(o.Workspace) || !okSlug(o.Repo):
		return nil, fmt.Errorf("cannot post to Bitbucket: repository %q is not workspace/slug; set BITBUCKET_WORKSPACE and BITBUCKET_REPO_SLUG, as Bitbucket Pipelines does", text.OneLine(o.Workspace+"/"+o.Repo, 80))
	case o.PR <= 0:
		return nil, fmt.Errorf("cannot post to Bitbucket: pull request %d is not valid; run in a pull-requests pipeline", o.PR)
	case head != "" && !seam.FullSHA(head):
		return nil, fmt.Errorf("cannot post to Bitbucket: head %q is not a commit SHA (40 or 64 hexadecimal digits)", text.Truncate(head, 80))
	}
	c := &client{
		repoPath: "/repositories/" + url.PathEscape(o.Workspace) + "/" + url.PathEscape(o.Repo),
		prName:   fmt.Sprintf("%s/%s#%d", o.Workspace, o.Repo, o.PR),
		head:     strings.ToLower(head),
		key:      signKey(o.Token),
	}
	c.prPath = c.repoPath + "/pullrequests/" + strconv.Itoa(o.PR)
	r, err := seam.NewREST(seam.REST{
		Host: "Bitbucket", Auth: "Authorization", Token: "Bearer " + o.Token, Var: "--bitbucket-url", Root: "…/2.0",
		Hint: c.hint, Retry: seam.NewRetry(o.MaxAttempts, o.BaseDelay, o.MaxDelay),
	}, o.APIURL, o.HTTPClient)
	if err != nil {
		return nil, fmt.Errorf("cannot post to Bitbucket: %v; give the API's root, %s", err, DefaultAPIURL)
	}
	c.REST = r
	return c, nil
}

func okSlug(s string) bool { return slug().MatchString(s) && s != "." && s != ".." }

// hint says what to do about a refused request.
func (c *client) hint(status int) string {
	switch {
	case status == http.StatusUnauthorized:
		return "the token is wrong or expired; pass a valid access token in BITBUCKET_TOKEN"
	case status == http.StatusForbidden:
		return "the token may not write to the pull request; give it the pullrequest:write and repository:write scopes"
	case status == http.StatusNotFound:
		return fmt.Sprintf("check that pull request %s exists and the token can read it (BITBUCKET_WORKSPACE, BITBUCKET_REPO_SLUG, BITBUCKET_PR_ID)", c.prName)
	case status == http.StatusTooManyRequests:
		return "Bitbucket's rate limit is used up; run again later"
	case status >= 500:
		return "Bitbucket had a problem; run again later"
	}
	return "see Bitbucket's API reference (developer.atlassian.com/cloud/bitbucket/rest) for pull request comments, reports and commit statuses"
}

// get reads one answer into out.
func (c *client) get(ctx context.Context, op, path string, out any) error {
	_, err := c.Call(ctx, seam.Request{Op: op, Method: http.MethodGet, Path: path, Out: out})
	return err
}

// page is one page of a listing (swagger paginated_*): its values, and
// the address of the next page, of which only the page number is taken.
type page[T any] struct {
	Values []T    `json:"values"`
	Next   string `json:"next"`
}

// list gets every page of a listing, pagelen at a time, asking the API's
// host for the page the answer's next link names.
func list[T any](ctx context.Context, c *client, op, path string) ([]T, error) {
	var all []T
	q := url.Values{"pagelen": {strconv.Itoa(pageLen)}}
	for n := 0; ; n++ {
		if n == seam.MaxPages {
			return nil, fmt.Errorf("%s: more than %d pages; Bitbucket's pagination did not end", op, seam.MaxPages)
		}
		var p page[T]
		if _, err := c.Call(ctx, seam.Request{Op: op, Method: http.MethodGet, Path: path, Query: q, Out: &p}); err != nil {
			return nil, err
		}
		all = append(all, p.Values...)
		if p.Next == "" {
			return all, nil
		}
		u, err := url.Parse(p.Next)
		if err != nil {
			return nil, fmt.Errorf("%s: Bitbucket's next page %q is not a URL", op, text.Truncate(p.Next, 80))
		}
		next, ok := seam.PageNumber(u.Query().Get("page"))
		if !ok {
			return nil, fmt.Errorf("%s: Bitbucket's next page %q names no page number", op, text.Truncate(p.Next, 80))
		}
		q = url.Values{"pagelen": {strconv.Itoa(pageLen)}, "page": {next}}
	}
}

// The API's shapes (swagger definitions pullrequest, pullrequest_comment,
// comment_resolution, account), the fields review reads.
type (
	account struct {
		UUID        string `json:"uuid"`
		DisplayName string `json:"display_name"`
		Nickname    string `json:"nickname"`
	}
	link struct {
		Href seam.WebURL `json:"href"`
	}
	pullRequest struct {
		ID    int `json:"id"`
		Links struct {
			HTML link `json:"html"`
		} `json:"links"`
		Source struct {
			Commit struct {
				Hash string `json:"hash"`
			} `json:"commit"`
		} `json:"source"`
	}
	comment struct {
		ID      int64   `json:"id"`
		Content content `json:"content"`
		Inline  *struct {
			Path string `json:"path"`
			To   int    `json:"to"`
			From int    `json:"from"`
		} `json:"inline"`
		Parent *struct {
			ID int64 `json:"id"`
		} `json:"parent"`
		Deleted    bool     `json:"deleted"`
		User       *account `json:"user"`
		Resolution *struct {
			User *account `json:"user"`
		} `json:"resolution"`
		Links struct {
			HTML link `json:"html"`
		} `json:"links"`
	}
)

// who is a person's name as a marker may carry it, "someone" for none.
func (a *account) who() string {
	if a == nil {
		return seam.Login("")
	}
	if a.Nickname != "" {
		return seam.Login(a.Nickname)
	}
	return seam.Login(a.DisplayName)
}

// signKey is the key of the markers' signatures: a hash of the token,
// so the token itself is never an HMAC's key material in memory twice.
func signKey(token string) []byte {
	k := sha256.Sum256([]byte("review bitbucket markers\x00" + token))
	return k[:]
}

// sign is the signature a marker carries: the first 16 hexadecimal
// digits of an HMAC-SHA256 of what it says, keyed with the token. A
// repository access token may not ask who it is (GET /user needs the
// account scope), so the signature, which only a holder of the token can
// make, is what tells review's markers from a person's.
func (c *client) sign(what string) string {
	m := hmac.New(sha256.New, c.key)
	m.Write([]byte(what))
	return "sig=" + hex.EncodeToString(m.Sum(nil))[:16]
}

// sigRE finds the signature at the end of a marker's first line.
var sigRE = lazy.Regexp(` sig=([0-9a-f]{16}) -->`)

// signed adds the signature to the marker on the first line of body,
// which ends " -->".
func (c *client) signed(body string) string {
	first, rest, _ := strings.Cut(body, "\n")
	m, ok := strings.CutSuffix(first, " -->")
	if !ok {
		return body
	}
	first = m + " " + c.sign(m) + " -->"
	if rest == "" && !strings.Contains(body, "\n") {
		return first
	}
	return first + "\n" + rest
}

// verified reports whether the marker on body's first line carries the
// signature review makes with this token.
func (c *client) verified(body string) bool {
	first, _, _ := strings.Cut(body, "\n")
	loc := sigRE().FindStringSubmatchIndex(first)
	if loc == nil || loc[1] != len(first) {
		return false
	}
	want := c.sign(first[:loc[0]])
	return hmac.Equal([]byte("sig="+first[loc[2]:loc[3]]), []byte(want))
}

// content is a comment's text (swagger comment.content.raw), with
// review's markers as review reads and writes them (<!-- review:… -->).
// Bitbucket escapes raw HTML, so an HTML comment would show as text: on
// the wire each line that is a marker is a link reference definition no
// text refers to, which Markdown shows as nothing and Bitbucket keeps as
// written ([//]: # "review:…").
type content struct {
	Raw string
}

func (c content) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Raw string `json:"raw"`
	}{wireMarkers(c.Raw)})
}

func (c *content) UnmarshalJSON(b []byte) error {
	var w struct {
		Raw string `json:"raw"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	c.Raw = readMarkers(w.Raw)
	return nil
}

// The two forms of a marker's line: review's, and Bitbucket's.
var (
	htmlMarker = lazy.Regexp(`(?m)^<!-- (review:[^"\n]*?) -->$`)
	wireMarker = lazy.Regexp(`(?m)^\[//\]: # "(review:[^"\n]*)"$`)
)

// wireMarkers writes each marker line of s as a link reference
// definition.
func wireMarkers(s string) string {
	if !strings.Contains(s, "<!-- review:") {
		return s
	}
	return htmlMarker().ReplaceAllString(s, `[//]: # "$1"`)
}

// readMarkers reads each marker line of s written by wireMarkers back as
// review's marker.
func readMarkers(s string) string {
	if !strings.Contains(s, `[//]: # "review:`) {
		return s
	}
	return wireMarker().ReplaceAllString(s, `<!-- $1 -->`)
}
