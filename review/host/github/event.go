package github

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// PREvent is what review needs from a pull request's event.
type PREvent struct {
	Number  int
	HeadSHA string // empty for events that do not carry it
}

// ReadPREvent reads the pull request number and head commit from the
// event payload GitHub Actions writes to $GITHUB_EVENT_PATH. It knows the
// pull_request and pull_request_target events (pull_request.number and
// head.sha) and comments on a pull request (issue.number of an issue that
// is a pull request, without a head).
func ReadPREvent(path string) (PREvent, error) {
	if path == "" {
		return PREvent{}, errors.New("no GitHub event file: GITHUB_EVENT_PATH is not set; run on a pull_request event in GitHub Actions, which sets it")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return PREvent{}, fmt.Errorf("cannot read the GitHub event file: %w: set GITHUB_EVENT_PATH to the event file GitHub Actions writes", err)
	}
	var ev struct {
		Number      int `json:"number"`
		PullRequest *struct {
			Number int `json:"number"`
			Head   struct {
				SHA string `json:"sha"`
			} `json:"head"`
		} `json:"pull_request"`
		Issue *struct {
			Number      int             `json:"number"`
			PullRequest json.RawMessage `json:"pull_request"`
		} `json:"issue"`
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		return PREvent{}, fmt.Errorf("the GitHub event file %s is not valid JSON (%v): set GITHUB_EVENT_PATH to the event file GitHub Actions writes", path, err)
	}
	switch {
	case ev.PullRequest != nil && ev.PullRequest.Number > 0:
		return PREvent{Number: ev.PullRequest.Number, HeadSHA: ev.PullRequest.Head.SHA}, nil
	case ev.PullRequest != nil && ev.Number > 0:
		return PREvent{Number: ev.Number, HeadSHA: ev.PullRequest.Head.SHA}, nil
	case ev.Issue != nil && ev.Issue.Number > 0 && len(ev.Issue.PullRequest) > 0 && string(ev.Issue.PullRequest) != "null":
		return PREvent{Number: ev.Issue.Number}, nil
	}
	return PREvent{}, fmt.Errorf("the GitHub event in %s is not about a pull request (it has no pull_request.number): run on pull_request or pull_request_target events", path)
}

// PRFromEvent returns the pull request number from the event payload at
// path ($GITHUB_EVENT_PATH); see ReadPREvent.
func PRFromEvent(path string) (int, error) {
	ev, err := ReadPREvent(path)
	return ev.Number, err
}
