package azure

import (
	"context"
	"encoding/base64"
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
	// APIVersion is the version of the REST API every request asks for:
	// 7.1, which Azure DevOps Services serves, and the Azure DevOps Server
	// releases whose REST reference is 7.1 (vsts-rest-api-specs'
	// azure-devops-server-7.1). Azure DevOps Server 2022 serves up to 7.0
	// and 2020 up to 6.0 (the REST API versioning page): they refuse it.
	APIVersion = "7.1"
	// maxBody bounds a body review posts. The REST description documents
	// no limit for a comment's content; a summary past this is cut.
	maxBody = 150_000
)

// Options says where the poster posts.
type Options struct {
	// CollectionURL is the organization's or collection's address, as
	// Azure Pipelines sets SYSTEM_COLLECTIONURI:
	// https://dev.azure.com/{organization}/, or a Server's
	// https://{server}/{collection}/.
	CollectionURL string
	// Project is the project's name or ID (SYSTEM_TEAMPROJECT), Repo the
	// repository's ID (BUILD_REPOSITORY_ID) or name.
	Project, Repo string
	// PR is the pull request's ID (SYSTEM_PULLREQUEST_PULLREQUESTID).
	PR int
	// Token authenticates the requests: the job's access token
	// (SYSTEM_ACCESSTOKEN), sent as "Authorization: Bearer …", or, when
	// Basic, a personal access token (AZURE_DEVOPS_TOKEN), sent as Basic
	// with an empty user name, as Azure DevOps asks of one.
	Token string
	Basic bool
	// HeadSHA is the pull request's source commit the review is of
	// (SYSTEM_PULLREQUEST_SOURCECOMMITID); empty means the result's.
	HeadSHA string
	// HTTPClient sends the requests; nil means a client with a timeout
	// for each request. Its CheckRedirect is wrapped to keep the token
	// from other hosts.
	HTTPClient *http.Client
	// MaxAttempts bounds the attempts of one request; 1 disables retries,
	// 0 means seam.DefaultMaxAttempts. BaseDelay and MaxDelay shape the
	// wait between attempts when Azure DevOps does not say how long.
	MaxAttempts         int
	BaseDelay, MaxDelay time.Duration
}

var (
	// nameRE is a project's or repository's name or ID as a path
	// segment may carry it: no control characters and none of the
	// characters Azure DevOps refuses in a name.
	nameRE = lazy.Regexp(`^[^\x00-\x1f\x7f/\\?#%*:|"<>]{1,256}$`)
	// guidRE is an identity's ID.
	guidRE = lazy.Regexp(`^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$`)
)

// client speaks to one pull request through the REST API.
type client struct {
	*seam.REST
	prPath string // /{project}/_apis/git/repositories/{repo}/pullRequests/N
	prName string // project/repo!N, for messages
	pr     int
	head   string
	opts   Options
}

func newClient(o Options, head string) (*client, error) {
	switch {
	case strings.TrimSpace(o.Token) == "":
		return nil, errors.New("cannot post to Azure DevOps: no token; map SYSTEM_ACCESSTOKEN: $(System.AccessToken) into the step's environment, or set AZURE_DEVOPS_TOKEN to a personal access token")
	case !nameRE().MatchString(o.Project) || strings.TrimSpace(o.Project) != o.Project:
		return nil, fmt.Errorf("cannot post to Azure DevOps: project %q is not a project's name or ID; set SYSTEM_TEAMPROJECT, as Azure Pipelines does", text.OneLine(o.Project, 80))
	case !nameRE().MatchString(o.Repo) || strings.TrimSpace(o.Repo) != o.Repo:
		return nil, fmt.Errorf("cannot post to Azure DevOps: repository %q is not a repository's ID or name; set BUILD_REPOSITORY_ID, as Azure Pipelines does", text.OneLine(o.Repo, 80))
	case o.PR <= 0:
		return nil, fmt.Errorf("cannot post to Azure DevOps: pull request %d is not valid; run in a pull request's build", o.PR)
	case head != "" && !seam.FullSHA(head):
		return nil, fmt.Errorf("cannot post to Azure DevOps: head %q is not a commit SHA (40 or 64 hexadecimal digits)", text.Truncate(head, 80))
	}
	c := &client{
		pr:     o.PR,
		prPath: "/" + url.PathEscape(o.Project) + "/_apis/git/repositories/" + url.PathEscape(o.Repo) + "/pullRequests/" + strconv.Itoa(o.PR),
		prName: fmt.Sprintf("%s/%s!%d", o.Project, o.Repo, o.PR),
		head:   strings.ToLower(head),
		opts:   o,
	}
	auth := "Bearer " + o.Token
	if o.Basic {
		auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(":"+o.Token))
	}
	r, err := seam.NewREST(seam.REST{
		Host: "Azure DevOps", Auth: "Authorization", Token: auth, Var: "SYSTEM_COLLECTIONURI", Root: "https://dev.azure.com/{organization}",
		Hint: c.hint, Retry: seam.NewRetry(o.MaxAttempts, o.BaseDelay, o.MaxDelay),
	}, o.CollectionURL, o.HTTPClient)
	if err != nil {
		return nil, fmt.Errorf("cannot post to Azure DevOps: %v; set SYSTEM_COLLECTIONURI to the organization's address, e.g. https://dev.azure.com/fabrikam/", err)
	}
	c.REST = r
	return c, nil
}

// hint says what to do about a refused request.
func (c *client) hint(status int) string {
	switch {
	case status == http.StatusUnauthorized:
		return "the token is wrong or expired; map SYSTEM_ACCESSTOKEN: $(System.AccessToken) into the step's environment, or pass a valid personal access token in AZURE_DEVOPS_TOKEN"
	case status == http.StatusForbidden:
		return "the token may not comment on the pull request or set its status; give the project's build service \"Contribute to pull requests\" on the repository (a personal access token needs the Code (read and write) and Code (status) scopes)"
	case status == http.StatusNotFound:
		return fmt.Sprintf("check that pull request %s exists and the token can read it (SYSTEM_COLLECTIONURI, SYSTEM_TEAMPROJECT, BUILD_REPOSITORY_ID, SYSTEM_PULLREQUEST_PULLREQUESTID)", c.prName)
	case status == http.StatusBadRequest:
		return "the server refused the request or its API version, " + APIVersion + ", which Azure DevOps Services serves (Azure DevOps Server 2022 serves up to 7.0, 2020 up to 6.0)"
	case status == http.StatusTooManyRequests:
		return "Azure DevOps is throttling the token; run again later"
	case status >= 500:
		return "Azure DevOps had a problem; run again later"
	}
	return "see the REST API's reference for pull request threads and statuses (api-version " + APIVersion + ")"
}

// call makes a request of the REST API at its version.
func (c *client) call(ctx context.Context, r seam.Request) error {
	r.Query = url.Values{"api-version": {APIVersion}}
	_, err := c.Call(ctx, r)
	return err
}

// get reads one answer into out.
func (c *client) get(ctx context.Context, op, path string, out any) error {
	return c.call(ctx, seam.Request{Op: op, Method: http.MethodGet, Path: path, Out: out})
}

// The API's shapes (the REST description's definitions IdentityRef,
// GitPullRequest, GitPullRequestCommentThread, Comment,
// CommentThreadContext, CommentPosition), the fields review reads, and
// the location service's ConnectionData.
type (
	identity struct {
		ID          string `json:"id"`
		DisplayName string `json:"displayName"`
		UniqueName  string `json:"uniqueName"`
	}
	connectionData struct {
		AuthenticatedUser identity `json:"authenticatedUser"`
	}
	pullRequest struct {
		PullRequestID         int    `json:"pullRequestId"`
		Status                string `json:"status"`
		TargetRefName         string `json:"targetRefName"`
		LastMergeSourceCommit *struct {
			CommitID string `json:"commitId"`
		} `json:"lastMergeSourceCommit"`
		Repository *struct {
			WebURL seam.WebURL `json:"webUrl"`
		} `json:"repository"`
	}
	comment struct {
		ID              int       `json:"id"`
		ParentCommentID int       `json:"parentCommentId"`
		Author          *identity `json:"author"`
		Content         string    `json:"content"`
		CommentType     string    `json:"commentType"`
		IsDeleted       bool      `json:"isDeleted"`
	}
	position struct {
		Line   int `json:"line"`
		Offset int `json:"offset"`
	}
	threadContext struct {
		FilePath       string    `json:"filePath"`
		RightFileStart *position `json:"rightFileStart,omitempty"`
		RightFileEnd   *position `json:"rightFileEnd,omitempty"`
		LeftFileStart  *position `json:"leftFileStart,omitempty"`
		LeftFileEnd    *position `json:"leftFileEnd,omitempty"`
	}
	thread struct {
		ID            int64          `json:"id"`
		Comments      []comment      `json:"comments"`
		Status        string         `json:"status"`
		ThreadContext *threadContext `json:"threadContext"`
		IsDeleted     bool           `json:"isDeleted"`
	}
	// collection is how the API answers a list: {"count": n, "value":
	// [...]}.
	collection[T any] struct {
		Count int `json:"count"`
		Value []T `json:"value"`
	}
)

// first is the thread's first comment, nil for none.
func (t *thread) first() *comment {
	for i := range t.Comments {
		if t.Comments[i].ParentCommentID == 0 && !t.Comments[i].IsDeleted {
			return &t.Comments[i]
		}
	}
	return nil
}

// path is the file the thread is on, as the repository names it (Azure
// DevOps starts it with "/"); "" for a thread on the pull request.
func (t *thread) path() string {
	if t.ThreadContext == nil {
		return ""
	}
	return strings.TrimPrefix(t.ThreadContext.FilePath, "/")
}

// line is the line of the new file the thread is on, else of the old
// one; 0 for none.
func (t *thread) line() int {
	switch tc := t.ThreadContext; {
	case tc == nil:
		return 0
	case tc.RightFileStart != nil && tc.RightFileStart.Line > 0:
		return tc.RightFileStart.Line
	case tc.LeftFileStart != nil && tc.LeftFileStart.Line > 0:
		return tc.LeftFileStart.Line
	}
	return 0
}

// me is who the token is (the location service's connectionData, which
// every Azure DevOps client asks first), by identity ID.
func (c *client) me(ctx context.Context) (string, error) {
	var cd connectionData
	if err := c.get(ctx, "asking who the token belongs to", "/_apis/connectionData", &cd); err != nil {
		return "", err
	}
	if !guidRE().MatchString(cd.AuthenticatedUser.ID) {
		return "", fmt.Errorf("asking who the token belongs to: Azure DevOps named identity %q, which is not an identity's ID; check SYSTEM_COLLECTIONURI points at the organization", text.OneLine(cd.AuthenticatedUser.ID, 80))
	}
	return strings.ToLower(cd.AuthenticatedUser.ID), nil
}

// threads lists the pull request's threads, checked: an ID that is not
// one, or a thread without comments, is left out.
func (c *client) threads(ctx context.Context) ([]thread, error) {
	var ts collection[thread]
	if err := c.get(ctx, "listing the threads of "+c.prName, c.prPath+"/threads", &ts); err != nil {
		return nil, err
	}
	return keep(ts.Value), nil
}

// keep leaves out of an answer's threads those whose ID is not one, that
// are deleted, or that have no first comment.
func keep(ts []thread) []thread {
	out := ts[:0]
	for _, t := range ts {
		if t.ID > 0 && !t.IsDeleted && t.first() != nil {
			out = append(out, t)
		}
	}
	return out
}

// by reports whether the comment was written by the identity id.
func (cm *comment) by(id string) bool {
	return cm != nil && cm.Author != nil && id != "" && strings.EqualFold(cm.Author.ID, id)
}
