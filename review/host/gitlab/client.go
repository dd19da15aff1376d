package gitlab

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/reviewdev/review/review/host/seam"
)

const (
	// perPage is GitLab's largest page.
	perPage = 100
	// tokenHeader carries the token, as GitLab documents for personal,
	// project and group access tokens.
	tokenHeader = "PRIVATE-TOKEN"
)

// Error is a request GitLab refused. Its message is one line: what failed,
// what GitLab said, and what to do.
type Error = seam.APIError

// client speaks to one merge request through GitLab's REST API v4, with
// the REST client every host shares.
type client struct {
	*seam.REST
	mrPath string // /projects/:id/merge_requests/:iid, escaped
	mrName string // project!iid, for messages
	mr     int
	head   string
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
	if head != "" && !seam.SHA().MatchString(head) {
		return nil, fmt.Errorf("cannot post to GitLab: head %q is not a commit SHA", head)
	}
	c := &client{
		mr:     o.MR,
		mrPath: fmt.Sprintf("/projects/%s/merge_requests/%d", url.PathEscape(o.Project), o.MR),
		mrName: fmt.Sprintf("%s!%d", o.Project, o.MR),
		head:   strings.ToLower(head),
	}
	r, err := seam.NewREST(seam.REST{
		Host: "GitLab", Auth: tokenHeader, Token: o.Token, Var: "CI_API_V4_URL", Root: "…/api/v4",
		Hint: c.hint, Retry: seam.NewRetry(o.MaxAttempts, o.BaseDelay, o.MaxDelay),
	}, o.APIURL, o.HTTPClient)
	if err != nil {
		return nil, fmt.Errorf("cannot post to GitLab: %v; set CI_API_V4_URL, e.g. %s", err, DefaultAPIURL)
	}
	c.REST = r
	return c, nil
}

// list gets every page of a listing.
func list[T any](ctx context.Context, c *client, op, path string) ([]T, error) {
	return seam.List[T](ctx, c.REST, op, path, "per_page", perPage)
}

// checkVersion reports a diff version whose SHAs are not whole commit
// SHAs (seam.FullSHA): they would be copied into every discussion's
// position. The error names the field and its length, never its text.
func checkVersion(id int64, shas map[string]string) error {
	for _, k := range []string{"head_commit_sha", "base_commit_sha", "start_commit_sha"} {
		if v := shas[k]; !seam.FullSHA(v) {
			return fmt.Errorf("GitLab's diff version %d has a %s that is not a commit SHA (%d characters, want 40 or 64 hexadecimal digits)", id, k, len(v))
		}
	}
	return nil
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
