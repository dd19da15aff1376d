package bitbucket

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
var words = seam.Words{Host: "Bitbucket", Thread: "comment", Summary: "comment", Change: "pull request", Max: maxBody}

// Poster posts to one pull request: the seam.Poster of Bitbucket Cloud.
type Poster struct {
	Options Options
	// Anchor, if set, is the code a finding is on (seam.Anchor), which
	// its comment's marker carries for the ledger.
	Anchor func(result.Finding) string

	// prURL is the pull request's web address, once read: the build
	// status links to it when the review names no address of its own.
	prURL string
}

var _ seam.Poster = (*Poster)(nil)

// Target names the pull request.
func (p *Poster) Target() string { return fmt.Sprintf("pull request #%d", p.Options.PR) }

// prState is what a run reads of the pull request: the pull request, its
// comments, the summary comment the newest earlier run posted, and the
// comments on lines review posted.
type prState struct {
	pr          pullRequest
	comments    []comment
	summary     *comment
	summaryHead string
	heads       []string  // the heads the summary names, oldest first
	lines       []comment // review's comments on lines, in order
}

// state reads the pull request and its comments. Only a comment whose
// marker carries review's signature (verified) counts as review's: nobody
// steers a run by writing a marker.
func (c *client) state(ctx context.Context) (*prState, error) {
	st := &prState{}
	if err := c.get(ctx, "reading pull request "+c.prName, c.prPath, &st.pr); err != nil {
		return nil, err
	}
	cs, err := list[comment](ctx, c, "listing the comments of "+c.prName, c.prPath+"/comments")
	if err != nil {
		return nil, err
	}
	c.sort(st, cs)
	return st, nil
}

// sort keeps a pull request's comments in st, and finds among them the
// newest summary and the comments on lines review posted.
func (c *client) sort(st *prState, cs []comment) {
	st.comments = cs
	for i := range cs {
		cm := &cs[i]
		if cm.Deleted || cm.ID <= 0 || !c.verified(cm.Content.Raw) {
			continue
		}
		if _, _, ok := seam.ReadCommentMarker(cm.Content.Raw); ok && cm.Inline != nil && cm.Inline.Path != "" && cm.Parent == nil {
			st.lines = append(st.lines, *cm)
			continue
		}
		_, head, more, ok := seam.ReadReviewMarker(cm.Content.Raw)
		if !ok || cm.Inline != nil || cm.Parent != nil {
			continue
		}
		if st.summary == nil || cm.ID > st.summary.ID {
			st.summary, st.summaryHead = cm, head
			st.heads = append(seam.EarlierHeads(more), head)
		}
	}
}

// line is the line of the new file a comment is on, or of the old one.
func (cm *comment) line() int {
	if cm.Inline == nil {
		return 0
	}
	if cm.Inline.To > 0 {
		return cm.Inline.To
	}
	return cm.Inline.From
}

// commented maps the fingerprints of the findings earlier runs commented
// on lines to the first such comment's address.
func (s *prState) commented() map[string]string {
	earlier := map[string]string{}
	for _, cm := range s.lines {
		if fp, _, ok := seam.ReadCommentMarker(cm.Content.Raw); ok {
			if _, dup := earlier[fp]; !dup {
				earlier[fp] = string(cm.Links.HTML.Href)
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
	st, err := c.state(ctx)
	if err != nil {
		return seam.Earlier{}, err
	}
	p.prURL = string(st.pr.Links.HTML.Href)
	var e seam.Earlier
	if st.summary != nil {
		e.Heads = st.heads
	}
	seen := map[string]bool{}
	for _, cm := range st.lines {
		fp, sev, ok := seam.ReadCommentMarker(cm.Content.Raw)
		if !ok || sev == "" || cm.Resolution != nil || seen[fp] {
			continue
		}
		seen[fp] = true
		e.Open = append(e.Open, seam.OpenFinding{Fingerprint: fp, Severity: sev, Path: cm.Inline.Path, Line: cm.line(), URL: string(cm.Links.HTML.Href)})
	}
	e.Threads = c.threads(st)
	return e, nil
}

// Post posts the findings: each on a line of a hunk as a comment on that
// line, the others, with the summary and usage, in one summary comment
// that a later run updates in place; and every finding as an annotation
// of the Code Insights report "review" on the head. It leaves out what an
// earlier run commented (by fingerprint) and keeps the findings the
// summary listed on files the commits since did not change (seam.Carry).
// A run of a head the summary names already posts nothing. A comment
// Bitbucket refuses to place (400: a line it cannot anchor) goes into the
// summary, as does a finding on a file whose name is not UTF-8. A 403 is
// an error that is seam.ErrDenied.
func (p *Poster) Post(ctx context.Context, r *result.Result, d *diffctx.Diff) (seam.Report, error) {
	head := p.Options.HeadSHA
	if head == "" {
		head = r.HeadSHA
	}
	if !seam.FullSHA(head) {
		return seam.Report{}, fmt.Errorf("cannot post to Bitbucket: head %q is not a commit SHA (40 or 64 hexadecimal digits); pass the pull request's head commit (BITBUCKET_COMMIT)", text.Truncate(head, 80))
	}
	c, err := newClient(p.Options, head)
	if err != nil {
		return seam.Report{}, err
	}
	st, err := c.state(ctx)
	if err != nil {
		return seam.Report{}, err
	}
	p.prURL = string(st.pr.Links.HTML.Href)
	rep := seam.Report{Body: "summary comment"}
	if st.summary != nil && st.summaryHead == c.head {
		rep.Skipped, rep.URL = true, string(st.summary.Links.HTML.Href)
		return rep, nil
	}
	plan := seam.PlanLines(r, d, st.commented(), true)
	var placed []result.Finding
	for _, f := range plan.Inline {
		err := c.postLine(ctx, r.RunID, f, p.anchor(f))
		var ae *seam.APIError
		if errors.As(err, &ae) && ae.Status == http.StatusBadRequest {
			// The line could not be placed; the finding is still worth
			// posting, in the summary, where no line has to match.
			plan.Unplaced++
			plan.Body = append(plan.Body, f)
			continue
		}
		if err != nil {
			return seam.Report{}, err
		}
		placed = append(placed, f)
	}
	plan.Inline = placed
	if err := c.putReport(ctx, r); err != nil {
		return seam.Report{}, err
	}
	if st.summary != nil {
		plan.Carried = seam.Carry(seam.ReadListed(st.summary.Content.Raw), r, d)
	}
	body := c.signed(unfold(plan.Write(r, seam.NextHeads(st.heads, c.head), words)))
	url, err := c.putSummary(ctx, st.summary, r.RunID, body)
	if err != nil {
		return seam.Report{}, err
	}
	rep.URL, rep.Updated = url, st.summary != nil
	rep.Inline, rep.InBody, rep.Repeated = len(plan.Inline), len(plan.Body), len(plan.Repeated)
	rep.Fallback = plan.Unplaced > 0
	return rep, nil
}

func (p *Poster) anchor(f result.Finding) string {
	if p.Anchor == nil {
		return ""
	}
	return p.Anchor(f)
}

// lineBody is the comment on a finding's line: its signed marker, with
// the anchor, and the finding. Bitbucket comments one line; a finding
// over several says where it ends.
func (c *client) lineBody(run string, f result.Finding, code string) string {
	return capBody(c.signed(seam.CommentMarker(f.Fingerprint(), run, seam.AnchorField(code)) + "\n" + seam.CommentMarkdown(f, "", f.EndLine <= f.Line)))
}

// inline is where a comment is (swagger comment.inline): to is the line
// in the new file, from in the old.
type inline struct {
	Path string `json:"path"`
	To   int    `json:"to,omitempty"`
	From int    `json:"from,omitempty"`
}

// newComment is the body of POST .../comments (swagger
// pullrequest_comment): the raw Markdown, where it is, what it answers.
type newComment struct {
	Content content `json:"content"`
	Inline  *inline `json:"inline,omitempty"`
	Parent  *struct {
		ID int64 `json:"id"`
	} `json:"parent,omitempty"`
}

func rawComment(body string) newComment {
	var n newComment
	n.Content.Raw = body
	return n
}

// postLine posts a finding's comment on its line. A retry first looks
// for the comment by its marker, so it is never posted twice.
func (c *client) postLine(ctx context.Context, run string, f result.Finding, code string) error {
	body := c.lineBody(run, f, code)
	n := rawComment(body)
	n.Inline = &inline{Path: f.Path, To: f.Line}
	first, _, _ := strings.Cut(body, "\n")
	return c.post(ctx, "commenting on "+f.Location()+" of "+c.prName, n, first, nil)
}

// post posts comment n; marker is its first line, which a retry looks for
// among the comments before posting again. out, if set, receives the
// comment posted.
func (c *client) post(ctx context.Context, op string, n newComment, marker string, out *comment) error {
	if out == nil {
		out = &comment{}
	}
	_, err := c.Call(ctx, seam.Request{
		Op: op, Method: http.MethodPost, Path: c.prPath + "/comments", Body: n, Out: out,
		Landed: func(ctx context.Context) (bool, error) {
			cs, err := list[comment](ctx, c, "listing the comments of "+c.prName, c.prPath+"/comments")
			if err != nil {
				return false, err
			}
			for _, x := range cs {
				if !x.Deleted && (strings.HasPrefix(x.Content.Raw, marker+"\n") || x.Content.Raw == marker) {
					*out = x
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
			Op: "updating the summary comment of " + c.prName, Method: http.MethodPut,
			Path: c.prPath + "/comments/" + strconv.FormatInt(old.ID, 10), Body: rawComment(body), Out: &cm,
		})
		return string(old.Links.HTML.Href), err
	}
	first, _, _ := strings.Cut(body, "\n")
	if err := c.post(ctx, "posting the summary comment on "+c.prName, rawComment(body), first, &cm); err != nil {
		return "", err
	}
	return string(cm.Links.HTML.Href), nil
}

// unfold writes the collapsed section of the findings of earlier reviews
// a summary keeps (<details>) as a section under a heading: Bitbucket
// escapes HTML, and would show the tags as text. The section is the last
// thing in the summary that can hold "</details>" on a line of its own:
// what follows it is review's own lines, the model's words in them
// neutralised.
func unfold(s string) string {
	const open = "<details><summary>Findings of earlier reviews ("
	i := strings.Index(s, "\n"+open)
	if i < 0 {
		return s
	}
	end := strings.Index(s[i+1:], "</summary>\n")
	j := strings.LastIndex(s, "\n</details>\n")
	if end < 0 || j < i {
		return s
	}
	title := s[i+1+len("<details><summary>") : i+1+end]
	return s[:i+1] + "#### " + title + s[i+1+end+len("</summary>"):j+1] + s[j+len("\n</details>\n"):]
}

// capBody cuts a body past maxBody, keeping its start, where the marker
// is.
func capBody(s string) string { return seam.CapBody(s, maxBody, "Bitbucket") }

// Reply posts body in the pull request: as a reply to the comment whose
// ID is to, or as a comment of its own when to is "".
func (p *Poster) Reply(ctx context.Context, to, body string) (string, error) {
	c, err := newClient(p.Options, "")
	if err != nil {
		return "", err
	}
	n := rawComment(capBody(body))
	if to != "" {
		id, err := strconv.ParseInt(to, 10, 64)
		if err != nil || id <= 0 {
			return "", fmt.Errorf("cannot reply on Bitbucket: %q is not the ID of a comment", text.OneLine(to, 80))
		}
		n.Parent = &struct {
			ID int64 `json:"id"`
		}{id}
	}
	var cm comment
	_, err = c.Call(ctx, seam.Request{Op: "commenting on " + c.prName, Method: http.MethodPost, Path: c.prPath + "/comments", Body: n, Out: &cm})
	return string(cm.Links.HTML.Href), err
}

// StatusKey is the key of the build status review sets: a merge check or
// a script reads the review's state from it.
const StatusKey = "review"

// SetStatus sets the review's build status on sha (swagger commitstatus,
// POST .../commit/{sha}/statuses/build): SUCCESSFUL or FAILED, with a
// description whose first word is the review's state, linking to the
// review's address, else the pull request, as Bitbucket requires a link.
func (p *Poster) SetStatus(ctx context.Context, sha string, s result.Status) error {
	c, err := newClient(p.Options, "")
	if err != nil {
		return err
	}
	if !seam.FullSHA(sha) {
		return fmt.Errorf("setting the build status: %q is not a commit SHA", text.OneLine(sha, 80))
	}
	link := s.URL
	if link == "" {
		if p.prURL == "" {
			var pr pullRequest
			if err := c.get(ctx, "reading pull request "+c.prName, c.prPath, &pr); err != nil {
				return err
			}
			p.prURL = string(pr.Links.HTML.Href)
		}
		link = p.prURL
	}
	if link == "" {
		return fmt.Errorf("setting the build status of %s: Bitbucket named no web address of %s for the status to link to", text.ShortSHA(sha), c.prName)
	}
	state := "SUCCESSFUL"
	if s.Failing {
		state = "FAILED"
	}
	body := map[string]string{"key": StatusKey, "name": StatusKey, "state": state, "description": text.Truncate(s.Description, 255), "url": link}
	_, err = c.Call(ctx, seam.Request{Op: "setting the build status of " + text.ShortSHA(sha), Method: http.MethodPost,
		Path: c.repoPath + "/commit/" + strings.ToLower(sha) + "/statuses/build", Body: body})
	return err
}
