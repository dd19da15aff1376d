package github

import (
	"context"
	"fmt"
	"strings"

	gh "github.com/google/go-github/v84/github"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/result"
)

// CommentEvent is a comment on a pull request, as the issue_comment and
// pull_request_review_comment events of GitHub Actions carry it.
type CommentEvent = seam.CommentEvent

// ReadCommentEvent reads the comment event GitHub Actions writes to
// $GITHUB_EVENT_PATH (seam.Events.ReadComment).
func ReadCommentEvent(path string) (CommentEvent, error) { return events.ReadComment(path) }

// Conversation speaks with one pull request: replies to its comments and
// threads, and the commit statuses of its head. Replies need no head
// commit; a status names its own.
type Conversation struct {
	c *client
}

// noHead stands for the head commit a client is made with, which replies
// and statuses do not use.
const noHead = "0000000000000000000000000000000000000000"

// OpenConversation checks o as Post does and readies the requests.
func OpenConversation(o PostOptions) (*Conversation, error) {
	c, err := newClient(o, &result.Result{Revisions: result.Revisions{HeadSHA: noHead}})
	if err != nil {
		return nil, err
	}
	return &Conversation{c: c}, nil
}

// PullRequest is what review needs of a pull request to review it.
type PullRequest struct {
	HeadSHA string
	BaseRef string
	// Fork says the head is in another repository.
	Fork bool
}

// PullRequest reads the pull request's head commit and base branch.
func (v *Conversation) PullRequest(ctx context.Context) (PullRequest, error) {
	c := v.c
	pr, _, err := call(ctx, c, "reading "+c.prName, func() (*gh.PullRequest, *gh.Response, error) {
		return c.api.PullRequests.Get(ctx, c.owner, c.name, c.pr)
	})
	if err != nil {
		return PullRequest{}, err
	}
	p := PullRequest{HeadSHA: strings.ToLower(pr.GetHead().GetSHA()), BaseRef: pr.GetBase().GetRef(),
		Fork: pr.GetHead().GetRepo().GetFullName() != pr.GetBase().GetRepo().GetFullName()}
	if !seam.SHA().MatchString(p.HeadSHA) || len(p.HeadSHA) < 40 {
		return PullRequest{}, fmt.Errorf("reading %s: GitHub named head %q, which is not a commit SHA", c.prName, text.OneLine(p.HeadSHA, 80))
	}
	if p.BaseRef == "" || len(p.BaseRef) > 255 || strings.ContainsAny(p.BaseRef, " \t\n:~^?*[\\") {
		return PullRequest{}, fmt.Errorf("reading %s: GitHub named base %q, which is not a branch", c.prName, text.OneLine(p.BaseRef, 80))
	}
	return p, nil
}

// Reply posts body in the pull request: under the review comment thread
// when thread is not 0, else in its conversation. It returns the reply's
// address.
func (v *Conversation) Reply(ctx context.Context, thread int64, body string) (string, error) {
	c := v.c
	body = capBody(body)
	if thread > 0 {
		cm, _, err := call(ctx, c, "replying in a thread of "+c.prName, func() (*gh.PullRequestComment, *gh.Response, error) {
			return c.api.PullRequests.CreateCommentInReplyTo(ctx, c.owner, c.name, c.pr, body, thread)
		})
		return cm.GetHTMLURL(), err
	}
	cm, _, err := call(ctx, c, "commenting on "+c.prName, func() (*gh.IssueComment, *gh.Response, error) {
		return c.api.Issues.CreateComment(ctx, c.owner, c.name, c.pr, &gh.IssueComment{Body: gh.Ptr(body)})
	})
	return cm.GetHTMLURL(), err
}

// ThreadStart is the first comment of a review comment thread: its body,
// file and line, and whether review posted it.
type ThreadStart = seam.ThreadStart

// Thread reads the first comment of a review comment thread.
func (v *Conversation) Thread(ctx context.Context, id int64) (ThreadStart, error) {
	c := v.c
	cm, _, err := call(ctx, c, "reading a review comment of "+c.prName, func() (*gh.PullRequestComment, *gh.Response, error) {
		return c.api.PullRequests.GetComment(ctx, c.owner, c.name, id)
	})
	if err != nil {
		return ThreadStart{}, err
	}
	t := ThreadStart{Body: cm.GetBody(), Path: cm.GetPath(), Line: cm.GetLine()}
	if c.login == "" {
		c.login = c.whoAmI(ctx)
	}
	if fp, _, ok := seam.ReadCommentMarker(t.Body); ok && c.trusted(cm.User) {
		t.Ours, t.Fingerprint = true, fp
	}
	return t, nil
}

// Refused reports whether review already told this pull request who may
// run its commands: it says so once per pull request.
func (v *Conversation) Refused(ctx context.Context) (bool, error) {
	c := v.c
	comments, err := collect(ctx, c, "listing the comments of "+c.prName, func(o gh.ListOptions) ([]*gh.IssueComment, *gh.Response, error) {
		return c.api.Issues.ListComments(ctx, c.owner, c.name, c.pr, &gh.IssueListCommentsOptions{ListOptions: o})
	})
	if err != nil {
		return false, err
	}
	if c.login == "" {
		c.login = c.whoAmI(ctx)
	}
	for _, cm := range comments {
		if strings.HasPrefix(cm.GetBody(), seam.RefusedMarker) && c.trusted(cm.User) {
			return true, nil
		}
	}
	return false, nil
}

// StatusContext is the context of the commit status review sets: a branch
// protection rule or a script reads the review's state from it.
const StatusContext = "review"

// SetStatus sets the review's commit status on sha: success or failure,
// with a description whose first word is the review's state.
func (v *Conversation) SetStatus(ctx context.Context, sha string, s result.Status) error {
	c := v.c
	if !seam.SHA().MatchString(sha) || len(sha) < 40 {
		return fmt.Errorf("setting the commit status: %q is not a commit SHA", text.OneLine(sha, 80))
	}
	state := "success"
	if s.Failing {
		state = "failure"
	}
	st := gh.RepoStatus{State: gh.Ptr(state), Context: gh.Ptr(StatusContext), Description: gh.Ptr(text.Truncate(s.Description, 140))}
	if s.URL != "" {
		st.TargetURL = gh.Ptr(s.URL)
	}
	_, _, err := call(ctx, c, "setting the commit status of "+text.ShortSHA(sha), func() (*gh.RepoStatus, *gh.Response, error) {
		return c.api.Repositories.CreateStatus(ctx, c.owner, c.name, sha, st)
	})
	return err
}
