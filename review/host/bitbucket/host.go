package bitbucket

import (
	"strconv"
	"strings"

	"github.com/reviewdev/review/internal/lazy"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
)

// DefaultAPIURL is Bitbucket Cloud's API, which --bitbucket-url replaces.
const DefaultAPIURL = "https://api.bitbucket.org/2.0"

// Host is Bitbucket Cloud, as cmd's table of --post names holds it:
// Bitbucket Pipelines' environment, a pull request's poster, and why
// review comment cannot run there.
var Host = seam.Host{
	Name: "bitbucket",
	CI:   ci,
	Flags: []seam.Flag{
		{Name: "bitbucket-url", Usage: "Bitbucket Cloud API `URL` (default api.bitbucket.org)"},
	},
	About: seam.About{
		Review: "comments on the changed lines, a Code Insights report and one summary comment; needs BITBUCKET_TOKEN",
		Answer: "a pull-request comment; needs BITBUCKET_TOKEN",
		Thread: "a Bitbucket comment's ID",
	},
	Open: open,
	NoComment: "Bitbucket Pipelines starts on a push or a pull request, never on a comment; " +
		"run review from a pull-requests pipeline, or start a custom pipeline from a webhook on pull request comments (see docs/ci.md)",
	Thread:     lazy.Regexp(`^[1-9][0-9]{0,18}$`),
	ThreadWhat: "a Bitbucket comment's ID: give the number of the comment to reply to",
}

// ci tells a Bitbucket Pipelines job: BITBUCKET_BUILD_NUMBER and
// BITBUCKET_COMMIT set, and a pull request's destination branch in
// BITBUCKET_PR_DESTINATION_BRANCH.
func ci(getenv func(string) string) (string, bool) {
	if getenv("BITBUCKET_BUILD_NUMBER") == "" || getenv("BITBUCKET_COMMIT") == "" {
		return "", false
	}
	if ref := getenv("BITBUCKET_PR_DESTINATION_BRANCH"); seam.Branch(ref) {
		return "origin/" + ref, true
	}
	return "", true
}

// open makes the poster of the pull request Bitbucket Pipelines names:
// the API (--bitbucket-url, else Bitbucket Cloud's), the token
// (BITBUCKET_TOKEN), the workspace, the repository, the pull request and
// its head commit.
func open(s seam.Setup) (seam.Target, error) {
	getenv := s.Getenv
	o := Options{
		APIURL: s.Flags["bitbucket-url"], Token: getenv("BITBUCKET_TOKEN"),
		Workspace: getenv("BITBUCKET_WORKSPACE"), Repo: getenv("BITBUCKET_REPO_SLUG"),
		HeadSHA: strings.ToLower(getenv("BITBUCKET_COMMIT")), HTTPClient: s.HTTPClient,
	}
	if o.APIURL == "" {
		o.APIURL = DefaultAPIURL
	}
	pr := getenv("BITBUCKET_PR_ID")
	need := func(what string) error { return &seam.NeedError{Host: "bitbucket", What: what} }
	switch {
	case o.Token == "":
		return seam.Target{}, need("BITBUCKET_TOKEN: a repository or workspace access token with the pullrequest:write and repository:write scopes, as a secured repository variable")
	case o.Workspace == "" || o.Repo == "":
		return seam.Target{}, need("BITBUCKET_WORKSPACE and BITBUCKET_REPO_SLUG, as Bitbucket Pipelines sets them")
	case pr == "":
		return seam.Target{}, need("BITBUCKET_PR_ID: run in a pull-requests pipeline, which sets it")
	case o.HeadSHA == "":
		return seam.Target{}, need("BITBUCKET_COMMIT, the pull request's head commit, as Bitbucket Pipelines sets it")
	}
	n, err := strconv.Atoi(pr)
	if err != nil || n <= 0 || strconv.Itoa(n) != pr {
		return seam.Target{}, &seam.ValueError{Var: "BITBUCKET_PR_ID", Value: text.OneLine(pr, 40), Why: "a pull request's ID", Do: "run in a pull-requests pipeline, which sets it"}
	}
	o.PR = n
	if !seam.FullSHA(o.HeadSHA) {
		return seam.Target{}, &seam.ValueError{Var: "BITBUCKET_COMMIT", Value: text.Truncate(o.HeadSHA, 80), Why: "a commit SHA (40 or 64 hexadecimal digits)", Do: "run in a pull-requests pipeline, which sets it"}
	}
	return seam.Target{Poster: &Poster{Options: o, Anchor: s.Anchor}, Noun: "pull request", Head: o.HeadSHA}, nil
}
