package gitea

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
)

// The ledger on Gitea (see seam.Reconcile). A finding's thread is the
// comment review posted on its line, and the conversation Gitea shows
// there. Whether a person resolved it is the comment's resolver (swagger
// PullReviewComment.resolver); a 👎 is a reaction "-1" on the comment
// (GET /repos/{owner}/{repo}/issues/comments/{id}/reactions, which takes
// a review comment's ID as well); review's replies (seam.DismissMarker,
// seam.FixedMarker) are its own comments on the same line. Gitea's API
// cannot resolve a conversation: a fixed finding's reply is what the next
// review reads as resolved by review.

// threads reads the ledger's threads from the comments of the reviews the
// token posted (listed already in st).
func (c *client) threads(ctx context.Context, st *prState) ([]seam.Thread, error) {
	var ts []seam.Thread
	for _, rc := range st.lines {
		fp, run, code, ok := seam.ReadThreadMarker(rc.Body)
		if !ok {
			continue
		}
		_, sev, _ := seam.ReadCommentMarker(rc.Body)
		line := rc.Position
		if line <= 0 {
			line = rc.OriginalPosition
		}
		t := seam.Thread{
			Fingerprint: fp, Run: run, Code: code, Severity: sev,
			Path: rc.Path, Line: line, URL: string(rc.HTMLURL),
			ReplyTo:  strconv.FormatInt(rc.ID, 10),
			Outdated: rc.Position <= 0,
			Rule:     seam.ReadRule(rc.Body),
		}
		if rc.Resolver != nil {
			// A login as a marker may carry it: the answer's text reaches
			// the log and the summary.
			t.Resolved, t.ResolvedBy = true, seam.Login(rc.Resolver.login())
			t.ResolvedByUs = st.mine(rc.Resolver)
		}
		ts = append(ts, t)
	}
	replies(ts, st.lines)
	for i := range ts {
		t := &ts[i]
		if t.Dismissed != "" || t.Resolved {
			continue
		}
		id, _ := strconv.ParseInt(t.ReplyTo, 10, 64)
		who, err := c.thumbsDown(ctx, id)
		if err != nil {
			return nil, err
		}
		if who != "" {
			t.Dismissed = seam.ThumbsDownWhy(who)
		}
	}
	return ts, nil
}

// replies applies review's own replies to the threads ts: a /review
// dismiss, and a fixed finding's reply, which on Gitea stands for the
// resolution its API cannot make.
func replies(ts []seam.Thread, lines []reviewComment) {
	byFP := map[string]int{}
	for i, t := range ts {
		if _, dup := byFP[t.Fingerprint]; !dup {
			byFP[t.Fingerprint] = i
		}
	}
	for _, rc := range lines {
		if fp, who, ok := seam.ReadDismissMarker(rc.Body); ok {
			if i, ok := byFP[fp]; ok && ts[i].Dismissed == "" {
				ts[i].Dismissed = seam.DismissWhy(who)
			}
		}
		for fp, i := range byFP {
			if strings.HasPrefix(rc.Body, seam.FixedMarker(fp)) && !ts[i].Resolved {
				ts[i].Resolved, ts[i].ResolvedByUs = true, true
			}
		}
	}
}

// thumbsDown is the login of the first person with write access who
// reacted 👎 to the comment id, or "".
func (c *client) thumbsDown(ctx context.Context, id int64) (string, error) {
	var rs []reaction
	if err := c.get(ctx, "listing the reactions to a comment of "+c.prName, c.repoPath+"/issues/comments/"+strconv.FormatInt(id, 10)+"/reactions", &rs); err != nil {
		return "", err
	}
	for _, r := range rs {
		if r.Content == "-1" && r.User != nil && c.canWrite(ctx, r.User.Login) {
			return seam.Login(r.User.Login), nil
		}
	}
	return "", nil
}

// canWrite reports whether login may write to the repository: only such a
// person's 👎 dismisses a finding, as only they may run /review commands.
// A login Gitea will not say anything about may not.
func (c *client) canWrite(ctx context.Context, login string) bool {
	p, err := c.permission(ctx, login)
	return err == nil && writes(p)
}

// permission is login's permission on the repository (swagger
// RepoCollaboratorPermission): "none", "read", "write", "admin", "owner".
func (c *client) permission(ctx context.Context, login string) (string, error) {
	if login == "" || strings.ContainsAny(login, "/?#") {
		return "none", nil
	}
	var p struct {
		Permission string `json:"permission"`
	}
	err := c.get(ctx, "reading the permission of "+text.OneLine(login, 60)+" on "+c.prName,
		c.repoPath+"/collaborators/"+url.PathEscape(login)+"/permission", &p)
	if seam.StatusOf(err) == 404 || seam.StatusOf(err) == 403 {
		return "none", nil // not a collaborator
	}
	return p.Permission, err
}

// writes reports whether a permission may write to the repository.
func writes(perm string) bool {
	switch perm {
	case "write", "admin", "owner":
		return true
	}
	return false
}

// ErrCannotResolve is what Resolve and ResolveThread return: Gitea's API
// has no way to resolve a conversation.
var ErrCannotResolve = errors.New("Gitea's API cannot resolve a conversation (its web route needs a browser session); resolve it by hand")

// Resolve answers the thread of a fixed finding: a reply saying so, which
// the next review reads as resolved by review. The conversation itself
// stays open, which it says with ErrCannotResolve.
func (p *Poster) Resolve(ctx context.Context, t seam.Thread) error {
	c, err := newClient(p.Options, "")
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(t.ReplyTo, 10, 64)
	if err != nil || id <= 0 {
		return fmt.Errorf("cannot answer the thread of %s:%d: Gitea did not name it", text.OneLine(t.Path, 200), t.Line)
	}
	first, err := c.findLine(ctx, id)
	if err != nil {
		return err
	}
	at := ""
	if seam.FullSHA(p.Options.HeadSHA) {
		at = " at " + seam.Code(text.ShortSHA(p.Options.HeadSHA))
	}
	body := seam.FixedMarker(t.Fingerprint) + "\n" + "Fixed" + at + ": the lines this finding was on have changed and the review of the new commits did not find it again. " +
		"Gitea's API cannot resolve a conversation: resolve this one by hand."
	if _, err := c.replyOn(ctx, first, body); err != nil {
		return err
	}
	return fmt.Errorf("replied that it is fixed: %w", ErrCannotResolve)
}

// ResolveThread is what /review dismiss does after its reply elsewhere:
// on Gitea it cannot (ErrCannotResolve).
func (p *Poster) ResolveThread(context.Context, string) error { return ErrCannotResolve }
