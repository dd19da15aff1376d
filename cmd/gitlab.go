package cmd

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/gitlab"
	"github.com/reviewdev/review/review/result"
)

// gitlabFlags name the merge request --post gitlab posts to, for use
// outside GitLab CI, where CI_API_V4_URL, CI_PROJECT_ID and
// CI_MERGE_REQUEST_IID name it.
type gitlabFlags struct {
	GitLabURL     string
	GitLabProject string
	GitLabMR      string
}

// gitlabTargetFrom checks what --post gitlab needs: the API, the project,
// the merge request and a token, from the flags or GitLab CI's variables.
func gitlabTargetFrom(opts *ReviewOptions) (*postTarget, error) {
	getenv := opts.Getenv
	pick := func(flag, env string) string {
		if flag != "" {
			return flag
		}
		return getenv(env)
	}
	o := gitlab.Options{
		APIURL:  pick(opts.GitLabURL, "CI_API_V4_URL"),
		Project: pick(opts.GitLabProject, "CI_PROJECT_ID"),
		Token:   getenv("GITLAB_TOKEN"),
		// In a merged-results pipeline the commit checked out is a merge
		// commit GitLab made; the merge request's head is this one.
		HeadSHA: getenv("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA"),
		// Counted for the run's egress record; the client keeps its
		// timeout.
		HTTPClient: opts.egress.Client(nil),
	}
	if o.Token == "" {
		o.Token = getenv("REVIEW_GITLAB_TOKEN")
	}
	if o.APIURL == "" {
		o.APIURL = gitlab.DefaultAPIURL
	}
	mr := pick(opts.GitLabMR, "CI_MERGE_REQUEST_IID")
	switch {
	case o.Token == "":
		return nil, fmt.Errorf("--post gitlab needs GITLAB_TOKEN (or REVIEW_GITLAB_TOKEN): a token with the api scope, as a masked CI/CD variable (CI_JOB_TOKEN cannot post)")
	case o.Project == "":
		return nil, fmt.Errorf("--post gitlab needs the project: CI_PROJECT_ID, as GitLab CI sets it, or --gitlab-project (an ID or group/project)")
	case mr == "":
		return nil, fmt.Errorf("--post gitlab needs the merge request: CI_MERGE_REQUEST_IID, as merge-request pipelines set it (rules: - if: $CI_PIPELINE_SOURCE == \"merge_request_event\"), or --gitlab-mr")
	}
	n, err := strconv.Atoi(mr)
	switch {
	case (err != nil || n <= 0) && opts.GitLabMR != "":
		return nil, usageErrorf("--gitlab-mr %q is not a merge request IID: give its number, as in !12", mr)
	case err != nil || n <= 0:
		return nil, fmt.Errorf("CI_MERGE_REQUEST_IID %q is not a merge request IID: run in a merge-request pipeline, or give --gitlab-mr", mr)
	}
	o.MR = n
	return &postTarget{
		poster: &gitlab.Poster{Options: o},
		noun:   "merge request",
		head:   o.HeadSHA,
		inCI:   opts.ci.Host == "gitlab",
		denied: gitlabDenied,
	}, nil
}

// gitlabDenied gives the findings of a review GitLab would not take to the
// job's log, one line each, and says where the Code Quality report, which
// the merge request's widget shows, was written. It never fails the job:
// --fail-on still decides.
func gitlabDenied(opts *ReviewOptions, outs []output, res *result.Result, err error) error {
	w := opts.IO.ErrOut
	where := "in the job log"
	for _, o := range outs {
		if o.format.Name == "codequality" && o.path != "" && o.path != "-" {
			where = "in the Code Quality report (" + o.path + ") and the job log"
		}
	}
	fmt.Fprintf(w, "review: not posted: %s; the findings are %s instead\n", text.OneLine(err.Error(), 0), where)
	for _, f := range res.Findings {
		fmt.Fprintf(w, "review: %s: [%s] %s (%s)\n", f.Location(), f.Severity, text.OneLine(f.Title, 0), f.RuleID())
	}
	_, err = io.WriteString(w, "review: "+strings.TrimSpace(result.CountFindings(res.Findings))+"\n")
	return err
}

func (g *gitlabFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&g.GitLabURL, "gitlab-url", "", "GitLab's REST API for --post gitlab, e.g. https://gitlab.example.com/api/v4 (default $CI_API_V4_URL, else https://gitlab.com/api/v4)")
	fl.StringVar(&g.GitLabProject, "gitlab-project", "", "the project --post gitlab posts to: its ID or group/project path (default $CI_PROJECT_ID)")
	fl.StringVar(&g.GitLabMR, "gitlab-mr", "", "the merge request --post gitlab posts to: its IID, the number in !12 (default $CI_MERGE_REQUEST_IID)")
}
