package gitlab

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
)

// The ledger on GitLab (see seam.Reconcile). A finding's thread is the
// discussion review started on its line: GitLab says whether it is
// resolved and by whom; a 👎 is the award emoji "thumbsdown" on its first
// note; a /review dismiss is review's own reply in it, which carries
// seam.DismissMarker; a discussion review resolved as fixed has its reply
// with seam.FixedMarker.

// discussion is a merge request's discussion, with its notes.
type discussion struct {
	ID    string `json:"id"`
	Notes []note `json:"notes"`
}

// awardEmoji is an award emoji on a note.
type awardEmoji struct {
	Name string `json:"name"`
	User user   `json:"user"`
}

// threads reads the ledger's threads: each discussion review started on a
// line, with its state, its replies' markers and its 👎s.
func (c *client) threads(ctx context.Context, st *mrState) ([]seam.Thread, error) {
	any := false
	for _, n := range st.notes {
		if _, _, _, ok := seam.ReadThreadMarker(n.Body); ok && n.Type == "DiffNote" && st.mine(n) {
			any = true
			break
		}
	}
	if !any {
		return nil, nil // no finding posted on a line yet
	}
	ds, err := list[discussion](ctx, c, "listing the discussions of "+c.mrName, c.mrPath+"/discussions")
	if err != nil {
		return nil, err
	}
	var ts []seam.Thread
	for _, d := range ds {
		t, ok := st.thread(d)
		if !ok {
			continue
		}
		if t.Dismissed == "" && !t.Resolved {
			who, err := c.thumbsDown(ctx, d.Notes[0].ID, st.me.ID)
			if err != nil {
				return nil, err
			}
			if who != "" {
				t.Dismissed = seam.ThumbsDownWhy(who)
			}
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// thread is the ledger's thread of a discussion review started on a
// line: its finding, state and replies' markers; false for any other.
func (st *mrState) thread(d discussion) (seam.Thread, bool) {
	if len(d.Notes) == 0 || !discussionID().MatchString(d.ID) {
		return seam.Thread{}, false
	}
	first := d.Notes[0]
	fp, run, code, ok := seam.ReadThreadMarker(first.Body)
	if !ok || first.Type != "DiffNote" || !st.mine(first) {
		return seam.Thread{}, false
	}
	_, sev, _ := seam.ReadCommentMarker(first.Body)
	t := seam.Thread{Fingerprint: fp, Run: run, Code: code, Severity: sev, URL: st.noteURL(first.ID),
		ID: d.ID, ReplyTo: d.ID, Resolved: first.Resolved, Rule: seam.ReadRule(first.Body)}
	if first.Position != nil {
		t.Path, t.Line = first.Position.NewPath, first.Position.NewLine
	}
	if first.ResolvedBy != nil {
		t.ResolvedBy = first.ResolvedBy.Username
	}
	fixedByUs := false
	for _, n := range d.Notes[1:] {
		if !st.mine(n) {
			continue
		}
		if dfp, who, ok := seam.ReadDismissMarker(n.Body); ok && dfp == fp && t.Dismissed == "" {
			t.Dismissed = seam.DismissWhy(who)
		}
		fixedByUs = fixedByUs || strings.HasPrefix(n.Body, seam.FixedMarker(fp))
	}
	t.ResolvedByUs = t.Resolved && (fixedByUs || first.ResolvedBy != nil && first.ResolvedBy.ID == st.me.ID)
	t.Reopened = !t.Resolved && fixedByUs
	return t, true
}

// thumbsDown is the username of the first person with Developer access or
// above who awarded 👎 to a note, or "".
func (c *client) thumbsDown(ctx context.Context, noteID, me int64) (string, error) {
	es, err := list[awardEmoji](ctx, c, "listing the award emoji of a note of "+c.mrName, c.mrPath+"/notes/"+strconv.FormatInt(noteID, 10)+"/award_emoji")
	if err != nil {
		return "", err
	}
	project, _, _ := strings.Cut(c.mrPath, "/merge_requests/")
	for _, e := range es {
		if e.Name != "thumbsdown" || e.User.ID == me {
			continue
		}
		// Only a Developer or above dismisses, as only they may run
		// /review commands; a member GitLab will not say anything
		// about does not.
		var m struct {
			AccessLevel int `json:"access_level"`
		}
		_, err := c.Call(ctx, seam.Request{Op: fmt.Sprintf("reading the access of user %d to %s", e.User.ID, c.mrName), Method: http.MethodGet,
			Path: project + "/members/all/" + strconv.FormatInt(e.User.ID, 10), Out: &m})
		if err == nil && m.AccessLevel >= Developer {
			return e.User.Username, nil
		}
	}
	return "", nil
}

// Resolve resolves the discussion of a fixed finding: a note saying so
// (which the next review reads), then the discussion resolved.
func (p *Poster) Resolve(ctx context.Context, t seam.Thread) error {
	if !discussionID().MatchString(t.ID) {
		return fmt.Errorf("cannot resolve the discussion of %s:%d: %q is not a discussion ID", text.OneLine(t.Path, 200), t.Line, text.OneLine(t.ID, 80))
	}
	if _, err := p.Reply(ctx, t.ID, seam.FixedMarker(t.Fingerprint)+"\n"+seam.FixedReply(p.Options.HeadSHA)); err != nil {
		return err
	}
	return p.ResolveDiscussion(ctx, t.ID)
}

// ResolveDiscussion resolves a discussion of the merge request, as review.
func (p *Poster) ResolveDiscussion(ctx context.Context, id string) error {
	if !discussionID().MatchString(id) {
		return fmt.Errorf("%q is not a discussion ID", text.OneLine(id, 80))
	}
	c, err := newClient(p.Options, "")
	if err != nil {
		return err
	}
	_, err = c.Call(ctx, seam.Request{
		Op: "resolving discussion " + id[:8] + " of " + c.mrName, Method: http.MethodPut,
		Path: c.mrPath + "/discussions/" + id, Query: url.Values{"resolved": {"true"}},
	})
	return err
}
