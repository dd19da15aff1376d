package bitbucket

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
)

// The ledger on Bitbucket (see seam.Reconcile). A finding's thread is the
// comment review posted on its line and the replies to it. A person
// dismisses a finding by resolving its comment (swagger
// pullrequest_comment.resolution); Bitbucket's API has no reactions, so
// there is no 👎 to read. A fixed finding gets review's reply
// (seam.FixedMarker, signed) and its comment is resolved (POST
// .../comments/{id}/resolve): a resolved comment with that reply was
// resolved by review, and a reply without a resolution was reopened by a
// person since.

// threads reads the ledger's threads from review's comments on lines
// (listed already in st) and the replies to them.
func (c *client) threads(st *prState) []seam.Thread {
	fixed := map[int64]bool{}
	for _, cm := range st.comments {
		if cm.Parent != nil && !cm.Deleted && strings.HasPrefix(cm.Content.Raw, "<!-- review:fixed fp=") && c.verified(cm.Content.Raw) {
			fixed[cm.Parent.ID] = true
		}
	}
	var ts []seam.Thread
	for _, cm := range st.lines {
		fp, run, code, ok := seam.ReadThreadMarker(cm.Content.Raw)
		if !ok {
			continue
		}
		_, sev, _ := seam.ReadCommentMarker(cm.Content.Raw)
		t := seam.Thread{
			Fingerprint: fp, Run: run, Code: code, Severity: sev,
			Path: cm.Inline.Path, Line: cm.line(), URL: string(cm.Links.HTML.Href),
			ID: strconv.FormatInt(cm.ID, 10), ReplyTo: strconv.FormatInt(cm.ID, 10),
			Outdated: cm.Inline.To <= 0,
			Rule:     seam.ReadRule(cm.Content.Raw),
		}
		switch {
		case cm.Resolution != nil && fixed[cm.ID]:
			t.Resolved, t.ResolvedByUs = true, true
		case cm.Resolution != nil:
			// A name as a marker may carry it: the answer's text reaches
			// the log and the summary.
			t.Resolved, t.ResolvedBy = true, cm.Resolution.User.who()
		case fixed[cm.ID]:
			t.Reopened = true
		}
		ts = append(ts, t)
	}
	return ts
}

// Resolve resolves the comment of a fixed finding, after a reply saying
// why, which the next review reads as resolved by review.
func (p *Poster) Resolve(ctx context.Context, t seam.Thread) error {
	c, err := newClient(p.Options, "")
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(t.ID, 10, 64)
	if err != nil || id <= 0 {
		return fmt.Errorf("cannot resolve the comment of %s:%d: Bitbucket did not name it", text.OneLine(t.Path, 200), t.Line)
	}
	head := ""
	if seam.FullSHA(p.Options.HeadSHA) {
		head = p.Options.HeadSHA
	}
	n := rawComment(c.signed(seam.FixedMarker(t.Fingerprint) + "\n" + seam.FixedReply(head)))
	n.Parent = &struct {
		ID int64 `json:"id"`
	}{id}
	first, _, _ := strings.Cut(n.Content.Raw, "\n")
	if err := c.post(ctx, "replying to the comment of a fixed finding on "+c.prName, n, first, nil); err != nil {
		return err
	}
	return c.resolve(ctx, id)
}

// resolve resolves comment id; one resolved already (409) is done.
func (c *client) resolve(ctx context.Context, id int64) error {
	_, err := c.Call(ctx, seam.Request{Op: "resolving a comment of " + c.prName, Method: http.MethodPost,
		Path: c.prPath + "/comments/" + strconv.FormatInt(id, 10) + "/resolve"})
	if seam.StatusOf(err) == http.StatusConflict {
		return nil
	}
	return err
}

// ResolveThread resolves the comment id, as review.
func (p *Poster) ResolveThread(ctx context.Context, id string) error {
	c, err := newClient(p.Options, "")
	if err != nil {
		return err
	}
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 {
		return fmt.Errorf("%q is not the ID of a comment", text.OneLine(id, 80))
	}
	return c.resolve(ctx, n)
}
