package azure

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/result"
)

// words are how the summary thread names what it speaks of.
var words = seam.Words{Host: "Azure DevOps", Thread: "thread", Summary: "thread", Change: "pull request", Max: maxBody}

// Poster posts to one pull request: the seam.Poster of Azure DevOps.
type Poster struct {
	Options Options
	// Anchor, if set, is the code a finding is on (seam.Anchor), which
	// its thread's marker carries for the ledger.
	Anchor func(result.Finding) string
}

var _ seam.Poster = (*Poster)(nil)

// Target names the pull request.
func (p *Poster) Target() string { return fmt.Sprintf("pull request !%d", p.Options.PR) }

// prState is what a run reads of the pull request: who the token is, the
// pull request, its threads, the summary thread the newest earlier run
// posted, and the threads of findings the token started.
type prState struct {
	me          string
	pr          pullRequest
	web         string // the pull request's web address
	threads     []thread
	summary     *thread
	summaryHead string
	heads       []string // the heads the summary names, oldest first
	findings    []thread // threads whose first comment is a finding's, by the token
}

// state reads who the token is, the pull request and its threads.
func (c *client) state(ctx context.Context) (*prState, error) {
	st := &prState{}
	var err error
	if st.me, err = c.me(ctx); err != nil {
		return nil, err
	}
	if err := c.get(ctx, "reading pull request "+c.prName, c.prPath, &st.pr); err != nil {
		return nil, err
	}
	st.web = c.webURL(st.pr)
	if st.threads, err = c.threads(ctx); err != nil {
		return nil, err
	}
	st.sort()
	return st, nil
}

// sort finds, among the threads, the summary thread the newest earlier
// run posted and the threads of findings, by the token only: nobody
// steers a run by copying a marker.
func (st *prState) sort() {
	for i := range st.threads {
		t := &st.threads[i]
		first := t.first()
		if !first.by(st.me) {
			continue
		}
		if _, head, more, ok := seam.ReadReviewMarker(first.Content); ok && t.ThreadContext == nil {
			if !seam.FullSHA(head) {
				continue // review names the head it reviewed whole
			}
			if st.summary == nil || t.ID > st.summary.ID {
				st.summary, st.summaryHead = t, head
				st.heads = append(seam.EarlierHeads(more), head)
			}
			continue
		}
		if _, _, ok := seam.ReadCommentMarker(first.Content); ok {
			st.findings = append(st.findings, *t)
		}
	}
}

// webURL is the pull request's web address: its repository's, which the
// answer names, else the collection's, and /pullrequest/N.
func (c *client) webURL(pr pullRequest) string {
	base := ""
	if pr.Repository != nil {
		base = string(pr.Repository.WebURL)
	}
	if base == "" {
		base = c.API.String() + "/" + url.PathEscape(c.opts.Project) + "/_git/" + url.PathEscape(c.opts.Repo)
	}
	return strings.TrimRight(base, "/") + "/pullrequest/" + strconv.Itoa(c.pr)
}

// threadURL is the web address of thread id of the pull request at web.
func threadURL(web string, id int64) string {
	return web + "?discussionId=" + strconv.FormatInt(id, 10)
}

// commented maps the fingerprints of the findings earlier runs started
// threads for to the first such thread's address.
func (s *prState) commented() map[string]string {
	earlier := map[string]string{}
	for _, t := range s.findings {
		if fp, _, ok := seam.ReadCommentMarker(t.first().Content); ok {
			if _, dup := earlier[fp]; !dup {
				earlier[fp] = threadURL(s.web, t.ID)
			}
		}
	}
	return earlier
}

// openStatus reports whether a thread's status leaves it open: active or
// pending, or none (a thread posted without one).
func openStatus(status string) bool {
	switch status {
	case "", "unknown", "active", "pending":
		return true
	}
	return false
}

// Earlier reads what earlier runs posted on the pull request: the heads
// their summary thread names, oldest first, the findings of their threads
// still open, and the ledger's threads.
func (p *Poster) Earlier(ctx context.Context) (seam.Earlier, error) {
	c, err := newClient(p.Options, "")
	if err != nil {
		return seam.Earlier{}, err
	}
	st, err := c.state(ctx)
	if err != nil {
		return seam.Earlier{}, err
	}
	return st.earlier(), nil
}

// earlier is what earlier runs posted, as st reads it.
func (st *prState) earlier() seam.Earlier {
	var e seam.Earlier
	if st.summary != nil {
		e.Heads = st.heads
	}
	seen := map[string]bool{}
	for _, t := range st.findings {
		fp, sev, ok := seam.ReadCommentMarker(t.first().Content)
		if !ok || sev == "" || !openStatus(t.Status) || seen[fp] {
			continue
		}
		seen[fp] = true
		e.Open = append(e.Open, seam.OpenFinding{Fingerprint: fp, Severity: sev, Path: t.path(), Line: t.line(), URL: threadURL(st.web, t.ID)})
	}
	e.Threads = ledger(st)
	return e
}

// Post posts the findings: each on a line of a hunk as a thread of its
// own on that line of the new file, the others, with the summary and
// usage, in one summary thread on the pull request that a later run
// updates in place. It leaves out what an earlier run started a thread
// for (by fingerprint) and keeps the findings the summary listed on files
// the commits since did not change (seam.Carry). A run of a head the
// summary names already posts nothing. A thread Azure DevOps refuses to
// place (400) goes into the summary, as does a finding on a file whose
// name is not UTF-8. A 403 is an error that is seam.ErrDenied.
func (p *Poster) Post(ctx context.Context, r *result.Result, d *diffctx.Diff) (seam.Report, error) {
	head := p.Options.HeadSHA
	if head == "" {
		head = r.HeadSHA
	}
	if !seam.FullSHA(head) {
		return seam.Report{}, fmt.Errorf("cannot post to Azure DevOps: head %q is not a commit SHA (40 or 64 hexadecimal digits); pass the pull request's source commit (SYSTEM_PULLREQUEST_SOURCECOMMITID)", text.Truncate(head, 80))
	}
	c, err := newClient(p.Options, head)
	if err != nil {
		return seam.Report{}, err
	}
	st, err := c.state(ctx)
	if err != nil {
		return seam.Report{}, err
	}
	rep := seam.Report{Body: "summary thread"}
	if st.summary != nil && st.summaryHead == c.head {
		rep.Skipped, rep.URL = true, threadURL(st.web, st.summary.ID)
		return rep, nil
	}
	plan := seam.PlanLines(r, d, st.commented(), true)
	var posted []result.Finding
	for _, f := range plan.Inline {
		err := c.postFinding(ctx, r.RunID, f, p.Anchor)
		var ae *seam.APIError
		if errors.As(err, &ae) && (ae.Status == http.StatusBadRequest || ae.Status == http.StatusUnprocessableEntity) {
			// Not placed on its line; still worth posting, in the
			// summary, where no line has to match.
			plan.Body = append(plan.Body, f)
			plan.Unplaced++
			continue
		}
		if err != nil {
			return seam.Report{}, err
		}
		posted = append(posted, f)
	}
	plan.Inline = posted
	if st.summary != nil {
		plan.Carried = seam.Carry(seam.ReadListed(st.summary.first().Content), r, d)
	}
	body := inert(plan.Write(r, seam.NextHeads(st.heads, c.head), words))
	id, err := c.putSummary(ctx, st.summary, r.RunID, body)
	if err != nil {
		return seam.Report{}, err
	}
	rep.URL, rep.Updated = threadURL(st.web, id), st.summary != nil
	rep.Inline, rep.InBody, rep.Repeated = len(plan.Inline), len(plan.Body), len(plan.Repeated)
	rep.Fallback = plan.Unplaced > 0
	return rep, nil
}

// newThread is a thread being created (GitPullRequestCommentThread): its
// first comment, its status, and the file and lines it is on.
type newThread struct {
	Comments      []newComment   `json:"comments"`
	Status        string         `json:"status,omitempty"`
	ThreadContext *threadContext `json:"threadContext,omitempty"`
}

// newComment is a comment being created (Comment).
type newComment struct {
	ParentCommentID int    `json:"parentCommentId"`
	Content         string `json:"content"`
	CommentType     string `json:"commentType"`
}

// findingThread is the thread of finding f: active, on its lines of the
// new file (the right side of the diff), its first comment the finding
// with its marker.
func findingThread(run string, f result.Finding, anchor func(result.Finding) string) newThread {
	code := ""
	if anchor != nil {
		code = anchor(f)
	}
	body := capBody(inert(seam.CommentMarker(f.Fingerprint(), run, seam.AnchorField(code)) + "\n" + seam.CommentMarkdown(f, "", true)))
	end := max(f.EndLine, f.Line)
	return newThread{
		Comments: []newComment{{ParentCommentID: 0, Content: body, CommentType: "text"}},
		Status:   "active",
		ThreadContext: &threadContext{
			FilePath:       "/" + f.Path,
			RightFileStart: &position{Line: f.Line, Offset: 1},
			RightFileEnd:   &position{Line: end, Offset: 1},
		},
	}
}

// postFinding starts the thread of finding f. A retry first looks for
// the thread by its marker, so it is never started twice.
func (c *client) postFinding(ctx context.Context, run string, f result.Finding, anchor func(result.Finding) string) error {
	t := findingThread(run, f, anchor)
	marker := strings.TrimSuffix(seam.CommentMarker(f.Fingerprint(), run), " -->")
	return c.call(ctx, seam.Request{
		Op: "starting a thread on " + text.OneLine(f.Path, 200) + " in " + c.prName, Method: http.MethodPost, Path: c.prPath + "/threads", Body: t,
		Landed: func(ctx context.Context) (bool, error) { return c.hasThread(ctx, marker) },
	})
}

// hasThread reports whether a thread of the pull request starts with
// prefix.
func (c *client) hasThread(ctx context.Context, prefix string) (bool, error) {
	ts, err := c.threads(ctx)
	for _, t := range ts {
		if strings.HasPrefix(t.first().Content, prefix) {
			return true, nil
		}
	}
	return false, err
}

// putSummary updates the first comment of the summary thread an earlier
// run posted, or starts one on the pull request, and returns its ID. The
// thread is posted without a status: there is nothing in it to resolve.
func (c *client) putSummary(ctx context.Context, old *thread, run, body string) (int64, error) {
	if old != nil {
		err := c.call(ctx, seam.Request{
			Op: "updating the summary thread of " + c.prName, Method: http.MethodPatch,
			Path: c.prPath + "/threads/" + strconv.FormatInt(old.ID, 10) + "/comments/" + strconv.Itoa(old.first().ID),
			Body: map[string]string{"content": body},
		})
		return old.ID, err
	}
	var t thread
	err := c.call(ctx, seam.Request{
		Op: "posting the summary thread on " + c.prName, Method: http.MethodPost, Path: c.prPath + "/threads",
		Body: newThread{Comments: []newComment{{ParentCommentID: 0, Content: body, CommentType: "text"}}}, Out: &t,
		Landed: func(ctx context.Context) (bool, error) {
			ts, err := c.threads(ctx)
			for _, x := range ts {
				if r, _, _, ok := seam.ReadReviewMarker(x.first().Content); ok && r == run {
					t = x
					return true, nil
				}
			}
			return false, err
		},
	})
	if err == nil && t.ID <= 0 {
		err = fmt.Errorf("posting the summary thread on %s: Azure DevOps answered no thread ID", c.prName)
	}
	return t.ID, err
}

// capBody cuts a body past maxBody, keeping its start, where the marker
// is.
func capBody(s string) string { return seam.CapBody(s, maxBody, "Azure DevOps") }

// Reply posts body in the pull request: as a comment in thread to, or as
// a thread of its own on the pull request when to is "".
func (p *Poster) Reply(ctx context.Context, to, body string) (string, error) {
	c, err := newClient(p.Options, "")
	if err != nil {
		return "", err
	}
	var pr pullRequest
	if err := c.get(ctx, "reading pull request "+c.prName, c.prPath, &pr); err != nil {
		return "", err
	}
	web := c.webURL(pr)
	body = capBody(inert(body))
	if to == "" {
		var t thread
		err := c.call(ctx, seam.Request{Op: "commenting on " + c.prName, Method: http.MethodPost, Path: c.prPath + "/threads",
			Body: newThread{Comments: []newComment{{ParentCommentID: 0, Content: body, CommentType: "text"}}}, Out: &t})
		return threadURL(web, t.ID), err
	}
	id, err := parseID(to)
	if err != nil {
		return "", fmt.Errorf("cannot reply on Azure DevOps: %w", err)
	}
	return threadURL(web, id), c.comment(ctx, id, body)
}

// comment adds body to thread id, as a reply to its first comment.
func (c *client) comment(ctx context.Context, id int64, body string) error {
	return c.call(ctx, seam.Request{Op: "replying in a thread of " + c.prName, Method: http.MethodPost,
		Path: c.prPath + "/threads/" + strconv.FormatInt(id, 10) + "/comments",
		Body: newComment{ParentCommentID: 1, Content: body, CommentType: "text"}})
}

// parseID reads a thread's ID.
func parseID(id string) (int64, error) {
	n, err := strconv.ParseInt(id, 10, 32)
	if err != nil || n <= 0 || strconv.FormatInt(n, 10) != id {
		return 0, fmt.Errorf("%q is not the ID of a pull request's thread", text.OneLine(id, 80))
	}
	return n, nil
}

// StatusContext is the name of the pull-request status review sets: a
// branch policy or a script reads the review's state from it.
const StatusContext = "review"

// SetStatus sets the review's status on the pull request (a pull-request
// status, GitPullRequestStatus, whose context's name is "review"):
// succeeded or failed, with a description whose first word is the
// review's state. Azure DevOps keeps each status posted; the newest of a
// context is the one it shows and a status policy reads. sha is the head
// reviewed, which the pull request's status does not name: it is checked,
// not sent.
func (p *Poster) SetStatus(ctx context.Context, sha string, s result.Status) error {
	c, err := newClient(p.Options, "")
	if err != nil {
		return err
	}
	if !seam.FullSHA(sha) {
		return fmt.Errorf("setting the pull request's status: %q is not a commit SHA", text.OneLine(sha, 80))
	}
	state := "succeeded"
	if s.Failing {
		state = "failed"
	}
	body := map[string]any{"state": state, "context": map[string]string{"name": StatusContext}, "description": text.Truncate(s.Description, 255)}
	if s.URL != "" {
		body["targetUrl"] = s.URL
	}
	return c.call(ctx, seam.Request{Op: "setting the status of " + c.prName, Method: http.MethodPost, Path: c.prPath + "/statuses", Body: body})
}
