package seam

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/reviewdev/review/internal/text"
)

// Events reads the event files a CI that follows GitHub Actions' shapes
// writes at $GITHUB_EVENT_PATH: GitHub Actions, and Gitea and Forgejo
// Actions, which write the same events. Host and CI name them in
// messages: "GitHub", "GitHub Actions".
type Events struct {
	Host, CI string
}

// PREvent is what review needs from a pull request's event.
type PREvent struct {
	Number  int
	HeadSHA string // empty for events that do not carry it
}

// ReadPR reads the pull request number and head commit from the
// event payload GitHub Actions writes to $GITHUB_EVENT_PATH. It knows the
// pull_request and pull_request_target events (pull_request.number and
// head.sha) and comments on a pull request (issue.number of an issue that
// is a pull request, without a head).
func (e Events) ReadPR(path string) (PREvent, error) {
	if path == "" {
		return PREvent{}, fmt.Errorf("no %s event file: GITHUB_EVENT_PATH is not set; run on a pull_request event in %s, which sets it", e.Host, e.CI)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return PREvent{}, fmt.Errorf("cannot read the %s event file: %w: set GITHUB_EVENT_PATH to the event file %s writes", e.Host, err, e.CI)
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
		return PREvent{}, fmt.Errorf("the %s event file %s is not valid JSON (%v): set GITHUB_EVENT_PATH to the event file %s writes", e.Host, path, err, e.CI)
	}
	switch {
	case ev.PullRequest != nil && ev.PullRequest.Number > 0:
		return PREvent{Number: ev.PullRequest.Number, HeadSHA: ev.PullRequest.Head.SHA}, nil
	case ev.PullRequest != nil && ev.Number > 0:
		return PREvent{Number: ev.Number, HeadSHA: ev.PullRequest.Head.SHA}, nil
	case ev.Issue != nil && ev.Issue.Number > 0 && len(ev.Issue.PullRequest) > 0 && string(ev.Issue.PullRequest) != "null":
		return PREvent{Number: ev.Issue.Number}, nil
	}
	return PREvent{}, fmt.Errorf("the %s event in %s is not about a pull request (it has no pull_request.number): run on pull_request or pull_request_target events", e.Host, path)
}

// CommentEvent is a comment on a pull request, as the issue_comment and
// pull_request_review_comment events carry it.
type CommentEvent struct {
	// Name is the event: "issue_comment" (the pull request's
	// conversation) or "pull_request_review_comment" (a comment on a
	// line, in a thread).
	Name   string
	Action string
	PR     int
	// CommentID is the comment; Thread, for a review comment, the first
	// comment of its thread, which replies go under (0 otherwise).
	CommentID int64
	Thread    int64
	Body      string
	Author    string
	// Association is GitHub's author_association (Gitea's events carry none) of the comment's author:
	// OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE...
	Association string
	// HeadSHA and BaseRef are the pull request's, when the event carries
	// them (review comments); an issue_comment event does not.
	HeadSHA, BaseRef string
}

// ReadComment reads the comment event the CI writes to
// $GITHUB_EVENT_PATH.
func (e Events) ReadComment(path string) (CommentEvent, error) {
	if path == "" {
		return CommentEvent{}, fmt.Errorf("no %s event file: GITHUB_EVENT_PATH is not set; run on issue_comment and pull_request_review_comment events in %s", e.Host, e.CI)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return CommentEvent{}, fmt.Errorf("cannot read the %s event file: %w", e.Host, err)
	}
	var ev struct {
		Action  string `json:"action"`
		Comment *struct {
			ID          int64  `json:"id"`
			InReplyTo   int64  `json:"in_reply_to_id"`
			Body        string `json:"body"`
			Association string `json:"author_association"`
			User        struct {
				Login string `json:"login"`
			} `json:"user"`
		} `json:"comment"`
		Issue *struct {
			Number      int             `json:"number"`
			PullRequest json.RawMessage `json:"pull_request"`
		} `json:"issue"`
		PullRequest *struct {
			Number int `json:"number"`
			Head   struct {
				SHA string `json:"sha"`
			} `json:"head"`
			Base struct {
				Ref string `json:"ref"`
			} `json:"base"`
		} `json:"pull_request"`
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		return CommentEvent{}, fmt.Errorf("the %s event file %s is not valid JSON (%v)", e.Host, path, err)
	}
	if ev.Comment == nil || ev.Comment.ID <= 0 {
		return CommentEvent{}, fmt.Errorf("the %s event in %s is not a comment (it has no comment.id): run on issue_comment and pull_request_review_comment events", e.Host, path)
	}
	c := CommentEvent{Action: ev.Action, CommentID: ev.Comment.ID, Body: ev.Comment.Body,
		Author: ev.Comment.User.Login, Association: ev.Comment.Association}
	switch {
	case ev.PullRequest != nil && ev.PullRequest.Number > 0:
		c.Name, c.PR = "pull_request_review_comment", ev.PullRequest.Number
		c.HeadSHA, c.BaseRef = ev.PullRequest.Head.SHA, ev.PullRequest.Base.Ref
		c.Thread = ev.Comment.ID
		if ev.Comment.InReplyTo > 0 {
			c.Thread = ev.Comment.InReplyTo
		}
	case ev.Issue != nil && ev.Issue.Number > 0 && len(ev.Issue.PullRequest) > 0 && string(ev.Issue.PullRequest) != "null":
		c.Name, c.PR = "issue_comment", ev.Issue.Number
	case ev.Issue != nil:
		return CommentEvent{}, fmt.Errorf("the comment in %s is on an issue, not a pull request: there is nothing to review", path)
	default:
		return CommentEvent{}, fmt.Errorf("the %s event in %s is not about a pull request", e.Host, path)
	}
	if c.HeadSHA != "" && !SHA().MatchString(c.HeadSHA) {
		return CommentEvent{}, fmt.Errorf("the %s event in %s names head %q, which is not a commit SHA", e.Host, path, text.OneLine(c.HeadSHA, 80))
	}
	return c, nil
}
