package cmd

import (
	"fmt"

	"github.com/reviewdev/review/review/host/github"
)

// githubTarget is where --post github posts, read from the environment
// GitHub Actions provides.
type githubTarget struct {
	api, token, repo string
	event            github.PREvent
}

// githubTargetFrom checks the environment --post github needs. It runs
// before the review, so a missing token fails fast instead of after a paid
// model run.
func githubTargetFrom(getenv func(string) string) (*githubTarget, error) {
	t := &githubTarget{api: getenv("GITHUB_API_URL"), token: getenv("GITHUB_TOKEN"), repo: getenv("GITHUB_REPOSITORY")}
	event := getenv("GITHUB_EVENT_PATH")
	switch {
	case t.token == "":
		return nil, fmt.Errorf("--post github needs GITHUB_TOKEN: pass it in the step's env (permissions: pull-requests: write)")
	case t.repo == "":
		return nil, fmt.Errorf("--post github needs GITHUB_REPOSITORY (owner/name), as GitHub Actions sets it")
	case event == "":
		return nil, fmt.Errorf("--post github needs GITHUB_EVENT_PATH, the pull_request event GitHub Actions provides")
	}
	ev, err := github.ReadPREvent(event)
	if err != nil {
		return nil, err
	}
	t.event = ev
	if t.api == "" {
		t.api = github.DefaultAPIURL
	}
	return t, nil
}
