package azure

import (
	"strconv"
	"strings"

	"github.com/reviewdev/review/internal/lazy"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
)

// Host is Azure DevOps Services (and Server), as cmd's table of --post
// names holds it: Azure Pipelines' environment, the flag that names the
// organization outside it, and a pull request's poster. No comment on a
// pull request starts a pipeline, so it reads none (NoComment).
var Host = seam.Host{
	Name: "azure",
	CI:   ci,
	Flags: []seam.Flag{
		{Name: "azure-url", Usage: "Azure DevOps `URL` (default $SYSTEM_COLLECTIONURI)"},
	},
	About: seam.About{
		Review: "a thread on each changed line with a finding and one summary thread; needs SYSTEM_ACCESSTOKEN or AZURE_DEVOPS_TOKEN",
		Answer: "a pull-request thread; needs SYSTEM_ACCESSTOKEN or AZURE_DEVOPS_TOKEN",
		Thread: "an Azure DevOps pull request thread's ID",
	},
	Open:       open,
	NoComment:  NoComment,
	Thread:     lazy.Regexp(`^[1-9][0-9]{0,8}$`),
	ThreadWhat: "an Azure DevOps pull request thread's ID: give the number after discussionId= in the thread's address",
}

// NoComment says why review comment cannot run on Azure DevOps, and what
// can be done instead.
const NoComment = "a comment on an Azure DevOps pull request cannot start an Azure Pipelines run; " +
	"a service hook (\"Pull request commented on\") can call a web hook that queues one " +
	"(docs/ci.md, Azure Pipelines), and each push reviews the pull request again"

// ci tells an Azure Pipelines job: TF_BUILD=True, and a pull request's
// target branch in SYSTEM_PULLREQUEST_TARGETBRANCH (refs/heads/main).
func ci(getenv func(string) string) (string, bool) {
	if !strings.EqualFold(getenv("TF_BUILD"), "true") {
		return "", false
	}
	ref := strings.TrimPrefix(getenv("SYSTEM_PULLREQUEST_TARGETBRANCH"), "refs/heads/")
	if ref == "" || strings.HasPrefix(ref, "refs/") || strings.ContainsAny(ref, " \t\n:~^?*[\\") || strings.HasPrefix(ref, "-") {
		return "", true
	}
	return "origin/" + ref, true
}

// fromEnv reads what posting needs: the organization (the flag, else
// SYSTEM_COLLECTIONURI), the token (the job's SYSTEM_ACCESSTOKEN, else a
// personal access token in AZURE_DEVOPS_TOKEN), the project, repository
// and pull request Azure Pipelines names, and the pull request's source
// commit.
func fromEnv(s seam.Setup) (Options, error) {
	getenv := s.Getenv
	o := Options{CollectionURL: s.Flags["azure-url"], Token: getenv("SYSTEM_ACCESSTOKEN"),
		Project: getenv("SYSTEM_TEAMPROJECT"), Repo: getenv("BUILD_REPOSITORY_ID"), HTTPClient: s.HTTPClient}
	if o.CollectionURL == "" {
		o.CollectionURL = getenv("SYSTEM_COLLECTIONURI")
	}
	if o.Token == "" {
		o.Token, o.Basic = getenv("AZURE_DEVOPS_TOKEN"), true
	}
	need := func(what, flag string) error { return &seam.NeedError{Host: "azure", What: what, Flag: flag} }
	bad := func(v, why, do string) error {
		return &seam.ValueError{Var: v, Value: text.Truncate(getenv(v), 80), Why: why, Do: do}
	}
	provider := getenv("BUILD_REPOSITORY_PROVIDER")
	pr := getenv("SYSTEM_PULLREQUEST_PULLREQUESTID")
	switch {
	case provider != "" && provider != "TfsGit":
		return o, bad("BUILD_REPOSITORY_PROVIDER", "an Azure Repos Git repository (TfsGit)", "post to the host the repository is on instead (GitHub's for a GitHub repository)")
	case strings.TrimSpace(o.Token) == "":
		return o, need("SYSTEM_ACCESSTOKEN (map $(System.AccessToken) into the step's env) or AZURE_DEVOPS_TOKEN (a personal access token with the Code read and write and Code status scopes)", "")
	case o.CollectionURL == "":
		return o, need("the organization's address: SYSTEM_COLLECTIONURI, as Azure Pipelines sets it (https://dev.azure.com/{organization}/)", "azure-url")
	case o.Project == "":
		return o, need("SYSTEM_TEAMPROJECT, the project, as Azure Pipelines sets it", "")
	case o.Repo == "":
		return o, need("BUILD_REPOSITORY_ID, the repository, as Azure Pipelines sets it", "")
	case pr == "":
		return o, need("SYSTEM_PULLREQUEST_PULLREQUESTID, which Azure Pipelines sets in a pull request's build (a build validation policy on the target branch)", "")
	}
	n, err := strconv.Atoi(pr)
	if err != nil || n <= 0 || strconv.Itoa(n) != pr {
		return o, bad("SYSTEM_PULLREQUEST_PULLREQUESTID", "a pull request's ID", "run in a pull request's build")
	}
	o.PR = n
	if head := getenv("SYSTEM_PULLREQUEST_SOURCECOMMITID"); head != "" {
		if !seam.FullSHA(head) {
			return o, bad("SYSTEM_PULLREQUEST_SOURCECOMMITID", "a commit SHA", "run in a pull request's build")
		}
		o.HeadSHA = strings.ToLower(head)
	}
	return o, nil
}

// open makes the poster of the pull request the environment names. The
// head is the pull request's source commit, as Azure Pipelines names it:
// the commit it checks out is a merge of it into the target branch.
func open(s seam.Setup) (seam.Target, error) {
	o, err := fromEnv(s)
	if err != nil {
		return seam.Target{}, err
	}
	if _, err := newClient(o, o.HeadSHA); err != nil {
		return seam.Target{}, err
	}
	return seam.Target{Poster: &Poster{Options: o, Anchor: s.Anchor}, Noun: "pull request", Head: o.HeadSHA}, nil
}
