package gitlab

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
)

// Host is GitLab, as cmd's table of --post names holds it: GitLab CI's
// environment, a merge request's poster, and the note events a pipeline
// trigger passes to review comment.
var Host = seam.Host{
	Name: "gitlab",
	CI:   ci,
	Flags: []seam.Flag{
		{Name: "gitlab-url", Usage: "GitLab API `URL` (default $CI_API_V4_URL, gitlab.com)"},
		{Name: "gitlab-project", Usage: "project `ID` or group/path (default $CI_PROJECT_ID)"},
		{Name: "gitlab-mr", Usage: "merge request `IID` (default $CI_MERGE_REQUEST_IID)"},
	},
	About: seam.About{
		Review: "merge-request discussions and one summary note; needs GITLAB_TOKEN",
		Answer: "a merge-request note; needs GITLAB_TOKEN",
		Thread: "a GitLab discussion's ID",
	},
	Open:       open,
	Comment:    readComment,
	Thread:     discussionID,
	ThreadWhat: "a GitLab discussion ID: give its 40 hexadecimal digits",
}

// ci tells a GitLab CI job: GITLAB_CI=true, and a merge-request
// pipeline's target branch in CI_MERGE_REQUEST_TARGET_BRANCH_NAME.
func ci(getenv func(string) string) (string, bool) {
	if getenv("GITLAB_CI") != "true" {
		return "", false
	}
	if ref := getenv("CI_MERGE_REQUEST_TARGET_BRANCH_NAME"); ref != "" {
		return "origin/" + ref, true
	}
	return "", true
}

// open makes the poster of the merge request the flags name, else GitLab
// CI's variables: the API, the project, the merge request and a token.
func open(s seam.Setup) (seam.Target, error) {
	getenv := s.Getenv
	pick := func(flag, env string) string {
		if v := s.Flags[flag]; v != "" {
			return v
		}
		return getenv(env)
	}
	o := Options{
		APIURL:  pick("gitlab-url", "CI_API_V4_URL"),
		Project: pick("gitlab-project", "CI_PROJECT_ID"),
		Token:   getenv("GITLAB_TOKEN"),
		// In a merged-results pipeline the commit checked out is a merge
		// commit GitLab made; the merge request's head is this one.
		HeadSHA: getenv("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA"),
		// Counted for the run's egress record; the client keeps its
		// timeout.
		HTTPClient: s.HTTPClient,
	}
	if o.Token == "" {
		o.Token = getenv("REVIEW_GITLAB_TOKEN")
	}
	if o.APIURL == "" {
		o.APIURL = DefaultAPIURL
	}
	mr := pick("gitlab-mr", "CI_MERGE_REQUEST_IID")
	switch {
	case o.Token == "":
		return seam.Target{}, &seam.NeedError{Host: "gitlab", What: "GITLAB_TOKEN (or REVIEW_GITLAB_TOKEN): a token with the api scope, as a masked CI/CD variable (CI_JOB_TOKEN cannot post)"}
	case o.Project == "":
		return seam.Target{}, &seam.NeedError{Host: "gitlab", What: "the project: CI_PROJECT_ID, as GitLab CI sets it", Flag: "gitlab-project", FlagNote: " (an ID or group/project)"}
	case mr == "":
		return seam.Target{}, &seam.NeedError{Host: "gitlab", What: `the merge request: CI_MERGE_REQUEST_IID, as merge-request pipelines set it (rules: - if: $CI_PIPELINE_SOURCE == "merge_request_event")`, Flag: "gitlab-mr"}
	}
	n, err := strconv.Atoi(mr)
	switch {
	case (err != nil || n <= 0) && s.Flags["gitlab-mr"] != "":
		return seam.Target{}, &seam.ValueError{Flag: "gitlab-mr", Value: mr, Why: "a merge request IID: give its number, as in !12"}
	case err != nil || n <= 0:
		return seam.Target{}, &seam.ValueError{Var: "CI_MERGE_REQUEST_IID", Flag: "gitlab-mr", Value: mr, Why: "a merge request IID", Do: "run in a merge-request pipeline"}
	}
	o.MR = n
	return seam.Target{Poster: &Poster{Options: o, Anchor: s.Anchor}, Noun: "merge request", Head: o.HeadSHA}, nil
}

// readComment reads the note event a pipeline trigger passes in
// TRIGGER_PAYLOAD, and asks GitLab whether its author has Developer
// access or above.
func readComment(ctx context.Context, s seam.Setup) (*seam.Comment, error) {
	ev, err := ReadNoteEvent(s.Getenv("TRIGGER_PAYLOAD"))
	if err != nil {
		return nil, err
	}
	if _, ok := seam.ParseCommand(ev.Body); !ok {
		return &seam.Comment{Body: ev.Body}, nil // nothing to ask GitLab about
	}
	flags := map[string]string{"gitlab-project": ev.Project, "gitlab-mr": strconv.Itoa(ev.MR)}
	t, err := open(seam.Setup{Getenv: s.Getenv, InCI: s.InCI, Flags: flags})
	if err != nil {
		return nil, err
	}
	p := t.Poster.(*Poster)
	level, err := p.AccessLevel(ctx, ev.AuthorID)
	if err != nil {
		return nil, err
	}
	return &seam.Comment{Body: ev.Body,
		Target: fmt.Sprintf("merge request !%d", ev.MR), Noun: "merge request",
		Trusted: level >= Developer, Author: ev.Author,
		Who:    fmt.Sprintf("%s's access level to the project is %d, below Developer (30)", text.OneLine(ev.Author, 60), level),
		Thread: ev.Discussion, Head: ev.HeadSHA, Base: ev.BaseRef, FetchRef: fmt.Sprintf("refs/merge-requests/%d/head", ev.MR),
		Flags: flags, Conversation: talk{p},
	}, nil
}

// talk is the conversation of a merge request, for review comment.
type talk struct{ *Poster }

func (t talk) Change(context.Context) (string, string, error) {
	return "", "", errors.New("the note event names no head or target branch")
}

func (t talk) Start(ctx context.Context, id string) (seam.ThreadStart, error) {
	return t.Discussion(ctx, id)
}

func (t talk) ResolveThread(ctx context.Context, id string) error {
	return t.ResolveDiscussion(ctx, id)
}
