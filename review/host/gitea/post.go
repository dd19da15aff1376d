package gitea

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/result"
)

// words are how the summary comment names what it speaks of.
var words = seam.Words{Host: "Gitea", Thread: "comment", Summary: "comment", Change: "pull request", Max: maxBody}

// Poster posts to one pull request: the seam.Poster of Gitea.
type Poster struct {
	Options Options
	// Anchor, if set, is the code a finding is on (seam.Anchor), which
	// its comment's marker carries for the ledger.
	Anchor func(result.Finding) string
}

var _ seam.Poster = (*Poster)(nil)

// Target names the pull request.
func (p *Poster) Target() string { return fmt.Sprintf("pull request #%d", p.Options.PR) }

// prState is what a run reads of the pull request: who the token is, the
// pull request, the summary comment the newest earlier run posted, and
// the comments of the reviews the token posted.
type prState struct {
	me          user
	pr          pullRequest
	comments    []comment
	summary     *comment
	summaryHead string
	heads       []string // the heads the summary names, oldest first
	reviews     []review
	lines       []reviewComment // the comments of reviews, in order
}

// mine reports whether u is the token's user: only what it posted counts,
// so nobody steers a run by copying a marker.
func (s *prState) mine(u *user) bool { return u != nil && u.ID == s.me.ID && u.Login == s.me.Login }

// state reads who the token is, the pull request, its conversation and,
// with lines, the comments of the reviews the token posted.
func (c *client) state(ctx context.Context, lines bool) (*prState, error) {
	st := &prState{}
	if err := c.get(ctx, "asking who the token belongs to", "/user", &st.me); err != nil {
		return nil, err
	}
	if err := c.get(ctx, "reading pull request "+c.prName, c.prPath, &st.pr); err != nil {
		return nil, err
	}
	cs, err := list[comment](ctx, c, "listing the comments of "+c.prName, c.repoPath+"/issues/"+strconv.Itoa(c.pr)+"/comments")
	if err != nil {
		return nil, err
	}
	st.comments = cs
	for i := range cs {
		_, head, more, ok := seam.ReadReviewMarker(cs[i].Body)
		if !ok || !st.mine(cs[i].User) || cs[i].ID <= 0 {
			continue
		}
		if st.summary == nil || cs[i].ID > st.summary.ID {
			st.summary, st.summaryHead = &cs[i], head
			st.heads = append(seam.EarlierHeads(more), head)
		}
	}
	if !lines {
		return st, nil
	}
	rs, err := list[review](ctx, c, "listing the reviews of "+c.prName, c.prPath+"/reviews")
	if err != nil {
		return nil, err
	}
	for _, rv := range rs {
		if !st.mine(rv.User) || rv.ID <= 0 {
			continue
		}
		st.reviews = append(st.reviews, rv)
		rcs, err := list[reviewComment](ctx, c, "listing the comments of a review of "+c.prName, c.prPath+"/reviews/"+strconv.FormatInt(rv.ID, 10)+"/comments")
		if err != nil {
			return nil, err
		}
		for _, rc := range rcs {
			if rc.ID > 0 && st.mine(rc.User) {
				st.lines = append(st.lines, rc)
			}
		}
	}
	return st, nil
}

// commented maps the fingerprints of the findings earlier runs commented
// on lines to the first such comment's address.
func (s *prState) commented() map[string]string {
	earlier := map[string]string{}
	for _, rc := range s.lines {
		if fp, _, ok := seam.ReadCommentMarker(rc.Body); ok {
			if _, dup := earlier[fp]; !dup {
				earlier[fp] = string(rc.HTMLURL)
			}
		}
	}
	return earlier
}

// Earlier reads what earlier runs posted on the pull request: the heads
// their summary comment names, oldest first, the findings of their
// comments on lines nobody resolved, and the ledger's threads.
func (p *Poster) Earlier(ctx context.Context) (seam.Earlier, error) {
	c, err := newClient(p.Options, "")
	if err != nil {
		return seam.Earlier{}, err
	}
	st, err := c.state(ctx, true)
	if err != nil {
		return seam.Earlier{}, err
	}
	var e seam.Earlier
	if st.summary != nil {
		e.Heads = st.heads
	}
	seen := map[string]bool{}
	for _, rc := range st.lines {
		fp, sev, ok := seam.ReadCommentMarker(rc.Body)
		if !ok || sev == "" || rc.Resolver != nil || seen[fp] {
			continue
		}
		seen[fp] = true
		e.Open = append(e.Open, seam.OpenFinding{Fingerprint: fp, Severity: sev, Path: rc.Path, Line: rc.Position, URL: string(rc.HTMLURL)})
	}
	if e.Threads, err = c.threads(ctx, st); err != nil {
		return seam.Earlier{}, err
	}
	return e, nil
}

// Post posts the findings: those on a line of a hunk in one pull-request
// review with a comment on each line, the others, with the summary and
// usage, in one summary comment that a later run updates in place. It
// leaves out what an earlier run commented (by fingerprint) and keeps the
// findings the summary listed on files the commits since did not change
// (seam.Carry). A run of a head the summary names already posts nothing.
// A review Gitea refuses to place (422: a line not in its diff) goes
// into the summary whole, as does a finding on a file whose name is not
// UTF-8. A 403 is an error that is seam.ErrDenied.
func (p *Poster) Post(ctx context.Context, r *result.Result, d *diffctx.Diff) (seam.Report, error) {
	head := p.Options.HeadSHA
	if head == "" {
		head = r.HeadSHA
	}
	if !seam.FullSHA(head) {
		return seam.Report{}, fmt.Errorf("cannot post to Gitea: head %q is not a commit SHA (40 or 64 hexadecimal digits); pass the pull request's head commit (the event's pull_request.head.sha)", text.Truncate(head, 80))
	}
	c, err := newClient(p.Options, head)
	if err != nil {
		return seam.Report{}, err
	}
	st, err := c.state(ctx, true)
	if err != nil {
		return seam.Report{}, err
	}
	rep := seam.Report{Body: "summary comment"}
	if st.summary != nil && st.summaryHead == c.head {
		rep.Skipped, rep.URL = true, string(st.summary.HTMLURL)
		return rep, nil
	}
	earlier := st.commented()
	plan, lines := p.plan(r, d, earlier, true)
	if len(lines) > 0 {
		err := c.postReview(ctx, r, lines)
		var ge *seam.APIError
		if errors.As(err, &ge) && (ge.Status == http.StatusBadRequest || ge.Status == http.StatusUnprocessableEntity) {
			// The comments could not be placed; the findings are still
			// worth posting, in the summary, where no line has to match.
			unplaced := len(plan.Inline)
			plan, _ = p.plan(r, d, earlier, false)
			plan.Unplaced = unplaced
		} else if err != nil {
			return seam.Report{}, err
		}
	}
	if st.summary != nil {
		plan.Carried = seam.Carry(seam.ReadListed(st.summary.Body), r, d)
	}
	body := plan.Write(r, seam.NextHeads(st.heads, c.head), words)
	url, err := c.putSummary(ctx, st.summary, r.RunID, body)
	if err != nil {
		return seam.Report{}, err
	}
	rep.URL, rep.Updated = url, st.summary != nil
	rep.Inline, rep.InBody, rep.Repeated = len(plan.Inline), len(plan.Body), len(plan.Repeated)
	rep.Fallback = plan.Unplaced > 0
	return rep, nil
}

// line is a comment on a line of a review being created (swagger
// CreatePullReviewComment): new_position is the line in the new file.
type line struct {
	Path        string `json:"path"`
	NewPosition int    `json:"new_position,omitempty"`
	OldPosition int    `json:"old_position,omitempty"`
	Body        string `json:"body"`
}

// plan sorts the findings (seam.PlanLines) and writes a comment on the
// line of each that is inline. Gitea comments one line; a finding over
// several says where it ends.
func (p *Poster) plan(r *result.Result, d *diffctx.Diff, earlier map[string]string, inline bool) (seam.Summary, []line) {
	plan := seam.PlanLines(r, d, earlier, inline)
	var lines []line
	for _, f := range plan.Inline {
		code := ""
		if p.Anchor != nil {
			code = p.Anchor(f)
		}
		body := capBody(seam.CommentMarker(f.Fingerprint(), r.RunID, seam.AnchorField(code)) + "\n" + seam.CommentMarkdown(f, "", f.EndLine <= f.Line))
		lines = append(lines, line{Path: f.Path, NewPosition: f.Line, Body: body})
	}
	return plan, lines
}

// reviewBody is the body of the review that carries the comments on
// lines: its marker, which a retry looks for, and where the rest is.
func reviewBody(run, head string, n int) string {
	return seam.ReviewMarker(run, head) + "\n" + fmt.Sprintf("review: %s on the changed lines; the summary is in the pull request's conversation.", text.Plural(n, "comment"))
}

// postReview posts one review of event COMMENT on the head with the
// comments on lines (swagger CreatePullReviewOptions). A retry first looks
// for the review by its marker, so it is never posted twice.
func (c *client) postReview(ctx context.Context, r *result.Result, lines []line) error {
	marker := seam.ReviewMarker(r.RunID, c.head)
	_, err := c.Call(ctx, seam.Request{
		Op: "posting a review on " + c.prName, Method: http.MethodPost, Path: c.prPath + "/reviews",
		Body: map[string]any{"commit_id": c.head, "event": "COMMENT", "body": reviewBody(r.RunID, c.head, len(lines)), "comments": lines},
		Landed: func(ctx context.Context) (bool, error) {
			rs, err := list[review](ctx, c, "listing the reviews of "+c.prName, c.prPath+"/reviews")
			if err != nil {
				return false, err
			}
			for _, rv := range rs {
				if strings.HasPrefix(rv.Body, marker) {
					return true, nil
				}
			}
			return false, nil
		},
	})
	return err
}

// putSummary updates the summary comment an earlier run posted, or posts
// one, and returns its address.
func (c *client) putSummary(ctx context.Context, old *comment, run, body string) (string, error) {
	var cm comment
	if old != nil {
		_, err := c.Call(ctx, seam.Request{
			Op: "updating the summary comment of " + c.prName, Method: http.MethodPatch,
			Path: c.repoPath + "/issues/comments/" + strconv.FormatInt(old.ID, 10), Body: map[string]string{"body": body}, Out: &cm,
		})
		return string(old.HTMLURL), err
	}
	var found string
	_, err := c.Call(ctx, seam.Request{
		Op: "posting the summary comment on " + c.prName, Method: http.MethodPost,
		Path: c.repoPath + "/issues/" + strconv.Itoa(c.pr) + "/comments", Body: map[string]string{"body": body}, Out: &cm,
		Landed: func(ctx context.Context) (bool, error) {
			cs, err := list[comment](ctx, c, "listing the comments of "+c.prName, c.repoPath+"/issues/"+strconv.Itoa(c.pr)+"/comments")
			for _, x := range cs {
				if r, _, _, ok := seam.ReadReviewMarker(x.Body); ok && r == run {
					found = string(x.HTMLURL)
					return true, nil
				}
			}
			return false, err
		},
	})
	if err != nil {
		return "", err
	}
	if cm.HTMLURL == "" {
		return found, nil
	}
	return string(cm.HTMLURL), nil
}

// capBody cuts a body past maxBody, keeping its start, where the marker
// is.
func capBody(s string) string { return seam.CapBody(s, maxBody, "Gitea") }

// Reply posts body in the pull request: in the conversation whose first
// comment's ID is to (a review comment on the same line, which Gitea
// shows in that conversation), or as a comment of its own when to is "".
func (p *Poster) Reply(ctx context.Context, to, body string) (string, error) {
	c, err := newClient(p.Options, "")
	if err != nil {
		return "", err
	}
	if to == "" {
		var cm comment
		_, err := c.Call(ctx, seam.Request{Op: "commenting on " + c.prName, Method: http.MethodPost,
			Path: c.repoPath + "/issues/" + strconv.Itoa(c.pr) + "/comments", Body: map[string]string{"body": capBody(body)}, Out: &cm})
		return string(cm.HTMLURL), err
	}
	id, err := strconv.ParseInt(to, 10, 64)
	if err != nil || id <= 0 {
		return "", fmt.Errorf("cannot reply on Gitea: %q is not the ID of a conversation's first comment on a line", text.OneLine(to, 80))
	}
	first, err := c.findLine(ctx, id)
	if err != nil {
		return "", err
	}
	return c.replyOn(ctx, first, body)
}

// findLine finds the review comment id among the pull request's.
func (c *client) findLine(ctx context.Context, id int64) (reviewComment, error) {
	rs, err := list[review](ctx, c, "listing the reviews of "+c.prName, c.prPath+"/reviews")
	if err != nil {
		return reviewComment{}, err
	}
	for _, rv := range rs {
		rcs, err := list[reviewComment](ctx, c, "listing the comments of a review of "+c.prName, c.prPath+"/reviews/"+strconv.FormatInt(rv.ID, 10)+"/comments")
		if err != nil {
			return reviewComment{}, err
		}
		for _, rc := range rcs {
			if rc.ID == id {
				return rc, nil
			}
		}
	}
	return reviewComment{}, fmt.Errorf("replying on %s: no comment on a line has ID %d", c.prName, id)
}

// replyOn posts body as a comment on first's line, in a review of its
// own: Gitea's API replies in a conversation no other way.
func (c *client) replyOn(ctx context.Context, first reviewComment, body string) (string, error) {
	l := line{Path: first.Path, NewPosition: first.Position, Body: capBody(body)}
	if first.Position <= 0 {
		l.NewPosition, l.OldPosition = 0, first.OriginalPosition
	}
	if !seam.Nameable(l.Path) || l.Path == "" || l.NewPosition <= 0 && l.OldPosition <= 0 {
		return "", fmt.Errorf("replying on %s: the comment names no line to reply on", c.prName)
	}
	var rv review
	_, err := c.Call(ctx, seam.Request{Op: "replying in a conversation of " + c.prName, Method: http.MethodPost, Path: c.prPath + "/reviews",
		Body: map[string]any{"event": "COMMENT", "body": "", "comments": []line{l}}, Out: &rv})
	return string(rv.HTMLURL), err
}

// StatusContext is the context of the commit status review sets: a
// branch protection rule or a script reads the review's state from it.
const StatusContext = "review"

// SetStatus sets the review's commit status on sha: success or failure,
// with a description whose first word is the review's state (swagger
// CreateStatusOption).
func (p *Poster) SetStatus(ctx context.Context, sha string, s result.Status) error {
	c, err := newClient(p.Options, "")
	if err != nil {
		return err
	}
	if !seam.FullSHA(sha) {
		return fmt.Errorf("setting the commit status: %q is not a commit SHA", text.OneLine(sha, 80))
	}
	state := "success"
	if s.Failing {
		state = "failure"
	}
	body := map[string]string{"state": state, "context": StatusContext, "description": text.Truncate(s.Description, 255)}
	if s.URL != "" {
		body["target_url"] = s.URL
	}
	_, err = c.Call(ctx, seam.Request{Op: "setting the commit status of " + text.ShortSHA(sha), Method: http.MethodPost,
		Path: c.repoPath + "/statuses/" + strings.ToLower(sha), Body: body})
	return err
}
