package github

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/reviewdev/review/internal/lazy"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/learn"
)

// Host is GitHub, as cmd's table of --post names holds it: GitHub
// Actions' environment and events, a pull request's poster, and the
// comments that start review comment.
var Host = seam.Host{
	Name:             "github",
	CI:               ci,
	WorkflowCommands: true,
	About: seam.About{
		Review: "one pull-request review with inline comments; needs GITHUB_TOKEN",
		Answer: "a pull-request comment; needs GITHUB_TOKEN",
		Thread: "a GitHub review comment's ID (the thread's first comment)",
	},
	Open:       open,
	Comment:    readComment,
	Thread:     lazy.Regexp(`^[1-9][0-9]{0,18}$`),
	ThreadWhat: "a GitHub review comment's ID: give the number of the thread's first comment",
}

// ci tells a GitHub Actions job: GITHUB_ACTIONS=true, and a pull
// request's base branch in GITHUB_BASE_REF.
func ci(getenv func(string) string) (string, bool) {
	if getenv("GITHUB_ACTIONS") != "true" {
		return "", false
	}
	if ref := getenv("GITHUB_BASE_REF"); ref != "" {
		return "origin/" + ref, true
	}
	return "", true
}

// fromEnv reads what posting needs from the environment GitHub Actions
// provides: the API, the token, the repository and the event.
func fromEnv(getenv func(string) string) (PostOptions, PREvent, error) {
	o := PostOptions{APIURL: getenv("GITHUB_API_URL"), Token: getenv("GITHUB_TOKEN"), Repo: getenv("GITHUB_REPOSITORY")}
	event := getenv("GITHUB_EVENT_PATH")
	need := func(what string) error { return &seam.NeedError{Host: "github", What: what} }
	switch {
	case o.Token == "":
		return o, PREvent{}, need("GITHUB_TOKEN: pass it in the step's env (permissions: pull-requests: write)")
	case o.Repo == "":
		return o, PREvent{}, need("GITHUB_REPOSITORY (owner/name), as GitHub Actions sets it")
	case event == "":
		return o, PREvent{}, need("GITHUB_EVENT_PATH, the pull_request event GitHub Actions provides")
	}
	ev, err := ReadPREvent(event)
	if err != nil {
		return o, PREvent{}, err
	}
	if o.APIURL == "" {
		o.APIURL = DefaultAPIURL
	}
	return o, ev, nil
}

// open makes the poster of the pull request the event names.
func open(s seam.Setup) (seam.Target, error) {
	o, ev, err := fromEnv(s.Getenv)
	if err != nil {
		return seam.Target{}, err
	}
	o.PR, o.HeadSHA, o.HTTPClient = ev.Number, ev.HeadSHA, s.HTTPClient
	return seam.Target{Poster: &Poster{Options: o, Anchor: s.Anchor}, Noun: "pull request", Head: ev.HeadSHA}, nil
}

// readComment reads the comment event of GitHub Actions (issue_comment
// or pull_request_review_comment at $GITHUB_EVENT_PATH); a comment not
// created (edited, deleted) asks nothing of GitHub.
func readComment(_ context.Context, s seam.Setup) (*seam.Comment, error) {
	ev, err := ReadCommentEvent(s.Getenv("GITHUB_EVENT_PATH"))
	if err != nil {
		return nil, err
	}
	if ev.Action != "" && ev.Action != "created" {
		return &seam.Comment{Body: ev.Body, Action: ev.Action}, nil
	}
	o, _, err := fromEnv(s.Getenv)
	if err != nil {
		return nil, err
	}
	o.PR = ev.PR
	conv, err := OpenConversation(o)
	if err != nil {
		return nil, err
	}
	assoc := strings.ToLower(ev.Association)
	if assoc == "" {
		assoc = "none"
	}
	c := &seam.Comment{Body: ev.Body, Action: ev.Action,
		Target: fmt.Sprintf("pull request #%d", ev.PR), Noun: "pull request",
		Trusted: seam.Trusted(ev.Association), Author: ev.Author,
		Who:  fmt.Sprintf("%s's association with the repository is %s", text.OneLine(ev.Author, 60), assoc),
		Head: ev.HeadSHA, Base: ev.BaseRef, FetchRef: fmt.Sprintf("refs/pull/%d/head", ev.PR),
		Conversation: &talk{p: &Poster{Options: o}, v: conv},
	}
	if ev.Thread > 0 {
		c.Thread = strconv.FormatInt(ev.Thread, 10)
	}
	return c, nil
}

// talk is the conversation of a pull request, for review comment.
type talk struct {
	p *Poster
	v *Conversation
}

func (t *talk) Reply(ctx context.Context, to, body string) (string, error) {
	return t.p.Reply(ctx, to, body)
}

func (t *talk) Refused(ctx context.Context) (bool, error) { return t.v.Refused(ctx) }

func (t *talk) Change(ctx context.Context) (string, string, error) {
	pr, err := t.v.PullRequest(ctx)
	return pr.HeadSHA, pr.BaseRef, err
}

func (t *talk) Start(ctx context.Context, id string) (seam.ThreadStart, error) {
	n, _ := strconv.ParseInt(id, 10, 64)
	return t.v.Thread(ctx, n)
}

func (t *talk) ResolveThread(ctx context.Context, id string) error {
	n, _ := strconv.ParseInt(id, 10, 64)
	return t.p.ResolveThread(ctx, n)
}

func (t *talk) ProposeLearning(ctx context.Context, base string, l learn.Learning) (string, int, error) {
	return t.v.ProposeLearning(ctx, base, l)
}
