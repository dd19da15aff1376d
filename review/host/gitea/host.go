package gitea

import (
	"context"
	"fmt"
	"strings"

	"github.com/reviewdev/review/internal/lazy"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
)

// Host is Gitea and Forgejo, as cmd's table of --post names holds it:
// their Actions' environment and events (GitHub's shapes and variable
// names), a pull request's poster, and the comments that start review
// comment.
var Host = seam.Host{
	Name: "gitea",
	CI:   ci,
	// Gitea and Forgejo Actions set GITHUB_ACTIONS=true as well.
	Mimics:           "github",
	WorkflowCommands: true,
	Flags: []seam.Flag{
		{Name: "gitea-url", Usage: "Gitea or Forgejo API `URL` (default $GITHUB_API_URL)"},
	},
	About: seam.About{
		Review: "one pull-request review with comments on the changed lines and one summary comment; needs GITEA_TOKEN or the Actions token",
		Answer: "a pull-request comment; needs GITEA_TOKEN or the Actions token",
		Thread: "a Gitea review comment's ID (the conversation's first comment)",
	},
	Open:       open,
	Comment:    readComment,
	Thread:     lazy.Regexp(`^[1-9][0-9]{0,18}$`),
	ThreadWhat: "a Gitea review comment's ID: give the number of the conversation's first comment",
}

// events are the event files Gitea and Forgejo Actions write: GitHub's.
var events = seam.Events{Host: "Gitea", CI: "Gitea or Forgejo Actions"}

// ci tells a Gitea or Forgejo Actions job: GITEA_ACTIONS=true or
// FORGEJO_ACTIONS=true, and a pull request's base branch in
// GITHUB_BASE_REF.
func ci(getenv func(string) string) (string, bool) {
	if getenv("GITEA_ACTIONS") != "true" && getenv("FORGEJO_ACTIONS") != "true" {
		return "", false
	}
	if ref := getenv("GITHUB_BASE_REF"); ref != "" {
		return "origin/" + ref, true
	}
	return "", true
}

// fromEnv reads what posting needs: the API (the flag, else
// GITHUB_API_URL), the token (GITEA_TOKEN, else the Actions token in
// GITHUB_TOKEN), the repository, and the event file's path.
func fromEnv(s seam.Setup) (Options, string, error) {
	getenv := s.Getenv
	o := Options{APIURL: s.Flags["gitea-url"], Token: getenv("GITEA_TOKEN"), Repo: getenv("GITHUB_REPOSITORY"), HTTPClient: s.HTTPClient}
	if o.APIURL == "" {
		o.APIURL = getenv("GITHUB_API_URL")
	}
	if o.Token == "" {
		o.Token = getenv("GITHUB_TOKEN")
	}
	event := getenv("GITHUB_EVENT_PATH")
	need := func(what, flag string) error { return &seam.NeedError{Host: "gitea", What: what, Flag: flag} }
	switch {
	case o.Token == "":
		return o, "", need("GITEA_TOKEN (an access token with the repository and issue scopes) or the Actions token in GITHUB_TOKEN", "")
	case o.APIURL == "":
		return o, "", need("the instance's API: GITHUB_API_URL, as Gitea and Forgejo Actions set it (…/api/v1)", "gitea-url")
	case o.Repo == "":
		return o, "", need("GITHUB_REPOSITORY (owner/name), as Gitea and Forgejo Actions set it", "")
	case event == "":
		return o, "", need("GITHUB_EVENT_PATH, the pull_request event Gitea and Forgejo Actions provide", "")
	}
	return o, event, nil
}

// open makes the poster of the pull request the event names.
func open(s seam.Setup) (seam.Target, error) {
	o, event, err := fromEnv(s)
	if err != nil {
		return seam.Target{}, err
	}
	ev, err := events.ReadPR(event)
	if err != nil {
		return seam.Target{}, err
	}
	o.PR, o.HeadSHA = ev.Number, strings.ToLower(ev.HeadSHA)
	return seam.Target{Poster: &Poster{Options: o, Anchor: s.Anchor}, Noun: "pull request", Head: o.HeadSHA}, nil
}

// readComment reads the issue_comment event of Gitea or Forgejo Actions,
// and asks the API whether its author may write to the repository: the
// events carry no author association. A comment not created, or without
// a command, asks nothing of the API.
func readComment(ctx context.Context, s seam.Setup) (*seam.Comment, error) {
	ev, err := events.ReadComment(s.Getenv("GITHUB_EVENT_PATH"))
	if err != nil {
		return nil, err
	}
	if ev.Action != "" && ev.Action != "created" {
		return &seam.Comment{Body: ev.Body, Action: ev.Action}, nil
	}
	if _, ok := seam.ParseCommand(ev.Body); !ok {
		return &seam.Comment{Body: ev.Body}, nil
	}
	o, _, err := fromEnv(s)
	if err != nil {
		return nil, err
	}
	o.PR = ev.PR
	c, err := newClient(o, "")
	if err != nil {
		return nil, err
	}
	perm, err := c.permission(ctx, ev.Author)
	if err != nil {
		return nil, err
	}
	return &seam.Comment{Body: ev.Body, Action: ev.Action,
		Target: fmt.Sprintf("pull request #%d", ev.PR), Noun: "pull request",
		Trusted: writes(perm), Author: ev.Author,
		Who:  fmt.Sprintf("%s's permission on the repository is %s, below write", text.OneLine(ev.Author, 60), text.OneLine(perm, 20)),
		Head: strings.ToLower(ev.HeadSHA), Base: ev.BaseRef, FetchRef: fmt.Sprintf("refs/pull/%d/head", ev.PR),
		Conversation: &talk{p: &Poster{Options: o}, c: c},
	}, nil
}

// talk is the conversation of a pull request, for review comment.
type talk struct {
	p *Poster
	c *client
}

func (t *talk) Reply(ctx context.Context, to, body string) (string, error) {
	return t.p.Reply(ctx, to, body)
}

// Refused reports whether review told the pull request already who may
// run commands.
func (t *talk) Refused(ctx context.Context) (bool, error) {
	st, err := t.c.state(ctx, false)
	if err != nil {
		return false, err
	}
	for _, cm := range st.comments {
		if strings.HasPrefix(cm.Body, seam.RefusedMarker) && st.mine(cm.User) {
			return true, nil
		}
	}
	return false, nil
}

// Change reads the pull request's head commit and base branch, checked:
// they reach git.
func (t *talk) Change(ctx context.Context) (string, string, error) {
	var pr pullRequest
	if err := t.c.get(ctx, "reading pull request "+t.c.prName, t.c.prPath, &pr); err != nil {
		return "", "", err
	}
	head, base := strings.ToLower(pr.Head.SHA), pr.Base.Ref
	if !seam.FullSHA(head) {
		return "", "", fmt.Errorf("reading %s: Gitea named head %q, which is not a commit SHA", t.c.prName, text.Truncate(pr.Head.SHA, 80))
	}
	if base == "" || len(base) > 255 || strings.ContainsAny(base, " \t\n:~^?*[\\") || strings.HasPrefix(base, "-") {
		return "", "", fmt.Errorf("reading %s: Gitea named base %q, which is not a branch", t.c.prName, text.OneLine(base, 80))
	}
	return head, base, nil
}

// Start reads the first comment of the conversation id: a finding review
// posted, when its marker is there and the token posted it.
func (t *talk) Start(ctx context.Context, id string) (seam.ThreadStart, error) {
	n, err := parseID(id)
	if err != nil {
		return seam.ThreadStart{}, err
	}
	rc, err := t.c.findLine(ctx, n)
	if err != nil {
		return seam.ThreadStart{}, err
	}
	ts := seam.ThreadStart{Body: rc.Body, Path: rc.Path, Line: rc.Position}
	var me user
	if err := t.c.get(ctx, "asking who the token belongs to", "/user", &me); err != nil {
		return seam.ThreadStart{}, err
	}
	if fp, _, ok := seam.ReadCommentMarker(rc.Body); ok && rc.User != nil && rc.User.ID == me.ID && rc.User.Login == me.Login {
		ts.Ours, ts.Fingerprint = true, fp
	}
	return ts, nil
}

func (t *talk) ResolveThread(ctx context.Context, id string) error {
	return t.p.ResolveThread(ctx, id)
}

// parseID reads a review comment's ID.
func parseID(id string) (int64, error) {
	var n int64
	if _, err := fmt.Sscan(id, &n); err != nil || n <= 0 || fmt.Sprint(n) != id {
		return 0, fmt.Errorf("%q is not the ID of a comment on a line", text.OneLine(id, 80))
	}
	return n, nil
}
