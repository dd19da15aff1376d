package gitlab

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/lazy"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/result"
)

// DefaultAPIURL is gitlab.com's REST API; a self-managed instance names its
// own in CI_API_V4_URL.
const DefaultAPIURL = "https://gitlab.com/api/v4"

// maxBody is under GitLab's limit of 1,000,000 characters for a note.
const maxBody = 900_000

// words are how the summary note names what it speaks of.
var words = seam.Words{Host: "GitLab", Thread: "discussion", Summary: "note", Change: "merge request", Max: maxBody}

// Options says where Post posts.
type Options struct {
	// APIURL is the REST API root, $CI_API_V4_URL; empty means gitlab.com.
	APIURL string
	// Token authenticates the requests (PRIVATE-TOKEN): a personal,
	// project or group access token with the api scope.
	Token string
	// Project is the project's ID or path, $CI_PROJECT_ID.
	Project string
	// MR is the merge request's IID, $CI_MERGE_REQUEST_IID.
	MR int
	// HeadSHA is the commit the review is of; empty means the result's.
	HeadSHA string
	// HTTPClient sends the requests; nil means a client with a timeout
	// for each request, as is a client without one. Its CheckRedirect is
	// wrapped to keep the token from other hosts.
	HTTPClient *http.Client
	// MaxAttempts bounds the attempts of one request; 1 disables retries,
	// 0 means seam.DefaultMaxAttempts.
	MaxAttempts int
	// BaseDelay and MaxDelay shape the wait between attempts when GitLab
	// does not say how long to wait. Zero means the defaults.
	BaseDelay, MaxDelay time.Duration
}

// Poster posts to one merge request: the seam.Poster of GitLab.
type Poster struct {
	Options Options
	// Anchor, if set, is the code a finding is on (seam.Anchor), which
	// its discussion's marker carries for the ledger.
	Anchor func(result.Finding) string
}

var _ seam.Poster = (*Poster)(nil)

// Target names the merge request.
func (p *Poster) Target() string { return fmt.Sprintf("merge request !%d", p.Options.MR) }

// Earlier reads what earlier runs posted on the merge request: the heads
// their summary note names, oldest first, and the findings of their
// discussions nobody has resolved. Only notes by the token's own user
// count, so nobody else can steer a run by copying a marker.
func (p *Poster) Earlier(ctx context.Context) (seam.Earlier, error) {
	c, err := newClient(p.Options, "")
	if err != nil {
		return seam.Earlier{}, err
	}
	st, err := c.state(ctx)
	if err != nil {
		return seam.Earlier{}, err
	}
	var e seam.Earlier
	if st.summary != nil {
		e.Heads = st.heads
	}
	seen := map[string]bool{}
	for _, n := range st.notes {
		fp, sev, ok := seam.ReadCommentMarker(n.Body)
		if !ok || sev == "" || n.Type != "DiffNote" || n.Resolved || seen[fp] || !st.mine(n) {
			continue
		}
		seen[fp] = true
		of := seam.OpenFinding{Fingerprint: fp, Severity: sev, URL: st.noteURL(n.ID)}
		if n.Position != nil {
			of.Path, of.Line = n.Position.NewPath, n.Position.NewLine
		}
		e.Open = append(e.Open, of)
	}
	if e.Threads, err = c.threads(ctx, st); err != nil {
		return seam.Earlier{}, err
	}
	return e, nil
}

// Post posts the findings (see Post).
func (p *Poster) Post(ctx context.Context, r *result.Result, d *diffctx.Diff) (seam.Report, error) {
	return postMR(ctx, r, d, p.Options, p.Anchor)
}

// Post posts the findings on the merge request. Each finding on a line of
// the diff becomes a discussion on that line, placed by the merge
// request's diff version of the reviewed head (its latest when none is of
// it); the others, with the summary and usage, make one summary note. A
// later run updates that note in place, and leaves out the findings an
// earlier run posted (by their fingerprints), listing them in the note
// instead. The findings the note listed are kept in it, under the review
// that found them, when this run reviewed only the commits since and did
// not review their files again (see carry). A run of a head the note
// already names posts nothing.
//
// A discussion GitLab refuses to place (400: the line is not in its diff)
// goes into the summary note, as does a finding on a file whose name is
// not UTF-8, which a position could not name: the note names it quoted
// ("caf\xe9.txt":3). A 403 is an error that is seam.ErrDenied.
func Post(ctx context.Context, r *result.Result, d *diffctx.Diff, o Options) (seam.Report, error) {
	return postMR(ctx, r, d, o, nil)
}

// commented maps the fingerprints of the findings earlier runs started a
// discussion on to the first such note's address.
func (st *mrState) commented() map[string]string {
	earlier := map[string]string{}
	for _, n := range st.notes {
		if fp, _, ok := seam.ReadCommentMarker(n.Body); ok && st.mine(n) {
			if _, dup := earlier[fp]; !dup {
				earlier[fp] = st.noteURL(n.ID)
			}
		}
	}
	return earlier
}

// postMR is Post, with each discussion's marker carrying its finding's
// anchor when anchor is set.
func postMR(ctx context.Context, r *result.Result, d *diffctx.Diff, o Options, anchor func(result.Finding) string) (seam.Report, error) {
	head := o.HeadSHA
	if head == "" {
		head = r.HeadSHA
	}
	c, err := newClient(o, head)
	if err != nil {
		return seam.Report{}, err
	}
	if !seam.SHA().MatchString(c.head) {
		return seam.Report{}, fmt.Errorf("cannot post to GitLab: head %q is not a commit SHA", c.head)
	}
	st, err := c.state(ctx)
	if err != nil {
		return seam.Report{}, err
	}
	rep := seam.Report{Body: "summary note"}
	if st.summary != nil && st.summaryHead == c.head {
		rep.Skipped, rep.URL = true, st.noteURL(st.summary.ID)
		return rep, nil
	}
	v, err := c.version(ctx)
	if err != nil {
		return seam.Report{}, err
	}
	earlier := st.commented()
	var plan seam.Summary
	for _, f := range r.Findings {
		pos, ok := placeFinding(d, f, v)
		if ok && (!seam.Nameable(pos.NewPath) || !seam.Nameable(pos.OldPath)) {
			// A position names the file on both sides; GitLab's API
			// cannot carry a name that is not UTF-8.
			plan.Unnamed++
			ok = false
		}
		if !ok {
			plan.Body = append(plan.Body, f)
			continue
		}
		fp := f.Fingerprint()
		if u, ok := earlier[fp]; ok {
			plan.Repeated = append(plan.Repeated, seam.Repeated{Finding: f, URL: u})
			continue
		}
		code := ""
		if anchor != nil {
			code = anchor(f)
		}
		err := c.discuss(ctx, r.RunID, f, pos, d, code)
		var ge *Error
		if errors.As(err, &ge) && (ge.Status == http.StatusBadRequest || ge.Status == http.StatusUnprocessableEntity) {
			plan.Unplaced++
			plan.Body = append(plan.Body, f)
			continue
		}
		if err != nil {
			return seam.Report{}, err
		}
		plan.Inline = append(plan.Inline, f)
	}
	if st.summary != nil {
		plan.Carried = seam.Carry(seam.ReadListed(st.summary.Body), r, d)
	}
	body := plan.Write(r, seam.NextHeads(st.heads, c.head), words)
	id, err := c.putSummary(ctx, st.summary, r.RunID, body)
	if err != nil {
		return seam.Report{}, err
	}
	rep.URL, rep.Updated = st.noteURL(id), st.summary != nil
	rep.Inline, rep.InBody, rep.Repeated = len(plan.Inline), len(plan.Body), len(plan.Repeated)
	rep.Fallback = plan.Unplaced > 0
	return rep, nil
}

// The API's shapes, the fields review reads.
type (
	user struct {
		ID       int64  `json:"id"`
		Username string `json:"username"`
	}
	mergeRequest struct {
		WebURL string `json:"web_url"`
	}
	version struct {
		ID       int64  `json:"id"`
		HeadSHA  string `json:"head_commit_sha"`
		BaseSHA  string `json:"base_commit_sha"`
		StartSHA string `json:"start_commit_sha"`
	}
	note struct {
		ID         int64     `json:"id"`
		Body       string    `json:"body"`
		Type       string    `json:"type"`
		System     bool      `json:"system"`
		Author     user      `json:"author"`
		Resolved   bool      `json:"resolved"`
		ResolvedBy *user     `json:"resolved_by"`
		Position   *position `json:"position"`
		Resolvable bool      `json:"resolvable"`
	}
	// position is a text position in a merge request's diff.
	position struct {
		PositionType string `json:"position_type"`
		BaseSHA      string `json:"base_sha"`
		StartSHA     string `json:"start_sha"`
		HeadSHA      string `json:"head_sha"`
		NewPath      string `json:"new_path,omitempty"`
		OldPath      string `json:"old_path,omitempty"`
		NewLine      int    `json:"new_line,omitempty"`
		OldLine      int    `json:"old_line,omitempty"`
	}
)

// mrState is what a run reads of the merge request before posting.
type mrState struct {
	me          user
	webURL      string
	notes       []note
	summary     *note    // the newest summary note by me, if any
	summaryHead string   // the head it names
	heads       []string // the heads it names, oldest first
}

func (s *mrState) mine(n note) bool { return n.Author.ID == s.me.ID && !n.System }

func (s *mrState) noteURL(id int64) string {
	if s.webURL == "" {
		return ""
	}
	return s.webURL + "#note_" + strconv.FormatInt(id, 10)
}

// state reads who the token is, the merge request and its notes.
func (c *client) state(ctx context.Context) (*mrState, error) {
	st := &mrState{}
	if _, err := c.Call(ctx, seam.Request{Op: "asking who the token belongs to", Method: http.MethodGet, Path: "/user", Out: &st.me}); err != nil {
		return nil, err
	}
	var mr mergeRequest
	if _, err := c.Call(ctx, seam.Request{Op: "reading merge request " + c.mrName, Method: http.MethodGet, Path: c.mrPath, Out: &mr}); err != nil {
		return nil, err
	}
	st.webURL = mr.WebURL
	notes, err := list[note](ctx, c, "listing the notes of "+c.mrName, c.mrPath+"/notes")
	if err != nil {
		return nil, err
	}
	st.notes = notes
	for i := range notes {
		n := &notes[i]
		_, head, more, ok := seam.ReadReviewMarker(n.Body)
		if !ok || !st.mine(*n) || n.Type == "DiffNote" {
			continue
		}
		if st.summary == nil || n.ID > st.summary.ID {
			st.summary, st.summaryHead = n, head
			st.heads = append(seam.EarlierHeads(more), head)
		}
	}
	return st, nil
}

// version returns the merge request's diff version of the reviewed head,
// or its latest (GitLab lists the newest first).
func (c *client) version(ctx context.Context) (version, error) {
	vs, err := list[version](ctx, c, "listing the diff versions of "+c.mrName, c.mrPath+"/versions")
	if err != nil {
		return version{}, err
	}
	if len(vs) == 0 {
		return version{}, fmt.Errorf("merge request %s has no diff version yet; run again when GitLab has prepared its diff", c.mrName)
	}
	// Only versions whose SHAs are commit SHAs: they are copied into
	// every position posted.
	var bad error
	valid := vs[:0:0]
	for _, v := range vs {
		if err := checkVersion(v.ID, map[string]string{"head_commit_sha": v.HeadSHA, "base_commit_sha": v.BaseSHA, "start_commit_sha": v.StartSHA}); err != nil {
			bad = cmp.Or(bad, err)
			continue
		}
		valid = append(valid, v)
	}
	if len(valid) == 0 {
		return version{}, fmt.Errorf("listing the diff versions of %s: %w; no version can place a comment", c.mrName, bad)
	}
	for _, v := range valid {
		if strings.EqualFold(v.HeadSHA, c.head) {
			return v, nil
		}
	}
	return valid[0], nil
}

// placeFinding is the text position of a finding's line in version v: on
// an added line its new side, on a context line both sides, and for a
// deleted file's line its old side. ok is false when the line is in no
// hunk: GitLab could not place it.
func placeFinding(d *diffctx.Diff, f result.Finding, v version) (position, bool) {
	if d == nil || f.Line <= 0 {
		return position{}, false
	}
	file := d.File(f.Path)
	if file == nil {
		return position{}, false
	}
	pos := position{PositionType: "text", BaseSHA: v.BaseSHA, StartSHA: v.StartSHA, HeadSHA: v.HeadSHA,
		NewPath: file.Path, OldPath: file.OldPath}
	if pos.OldPath == "" {
		pos.OldPath = file.Path
	}
	for _, h := range file.Hunks {
		oldLine, newLine, op := lineIn(h, f.Line, file.Status == diffctx.Deleted)
		switch op {
		case '+':
			pos.NewLine = newLine
		case ' ':
			pos.NewLine, pos.OldLine = newLine, oldLine
		case '-':
			pos.OldLine = oldLine
		default:
			continue
		}
		return pos, true
	}
	return position{}, false
}

// lineIn finds line in hunk h, on the new side, or on the old side when
// old: its operation (' ', '+', '-', or 0 when h does not hold it) and its
// line numbers on either side.
func lineIn(h diffctx.Hunk, line int, old bool) (oldLine, newLine int, op byte) {
	o, n := h.OldStart, h.NewStart
	for _, l := range strings.Split(h.Body, "\n") {
		if l == "" {
			continue
		}
		switch l[0] {
		case ' ':
			if !old && n == line || old && o == line {
				return o, n, ' '
			}
			o++
			n++
		case '+':
			if !old && n == line {
				return 0, n, '+'
			}
			n++
		case '-':
			if old && o == line {
				return o, 0, '-'
			}
			o++
		}
	}
	return 0, 0, 0
}

// discuss starts a discussion on a finding's line. A retry first looks for
// the discussion by its marker, so it is never posted twice.
func (c *client) discuss(ctx context.Context, run string, f result.Finding, pos position, d *diffctx.Diff, code string) error {
	fp := f.Fingerprint()
	suggestion := ""
	covers := f.EndLine <= f.Line
	if pos.NewLine > 0 && (f.EndLine <= f.Line || d.InOneHunk(f.Path, f.Line, f.EndLine)) {
		suggestion = fmt.Sprintf("suggestion:-0+%d", max(f.EndLine-f.Line, 0))
	}
	body := capBody(seam.CommentMarker(fp, run, seam.AnchorField(code)) + "\n" + seam.CommentMarkdown(f, suggestion, covers))
	req := seam.Request{
		Op: fmt.Sprintf("starting a discussion on %s of %s", f.Location(), c.mrName), Method: http.MethodPost,
		Path: c.mrPath + "/discussions",
		Body: map[string]any{"body": body, "position": pos},
		Landed: func(ctx context.Context) (bool, error) {
			return c.hasNote(ctx, func(n note) bool {
				got, _, ok := seam.ReadCommentMarker(n.Body)
				return ok && got == fp && strings.Contains(n.Body, "run="+run+" ")
			})
		},
	}
	_, err := c.Call(ctx, req)
	return err
}

// putSummary updates the summary note an earlier run posted, or posts one,
// and returns its ID.
func (c *client) putSummary(ctx context.Context, old *note, run, body string) (int64, error) {
	var n note
	if old != nil {
		_, err := c.Call(ctx, seam.Request{
			Op: "updating the summary note of " + c.mrName, Method: http.MethodPut,
			Path: c.mrPath + "/notes/" + strconv.FormatInt(old.ID, 10), Body: map[string]string{"body": body}, Out: &n,
		})
		return old.ID, err
	}
	var found int64
	_, err := c.Call(ctx, seam.Request{
		Op: "posting the summary note on " + c.mrName, Method: http.MethodPost,
		Path: c.mrPath + "/notes", Body: map[string]string{"body": body}, Out: &n,
		Landed: func(ctx context.Context) (bool, error) {
			return c.hasNote(ctx, func(n note) bool {
				r, _, _, ok := seam.ReadReviewMarker(n.Body)
				if ok && r == run {
					found = n.ID
				}
				return ok && r == run
			})
		},
	})
	if err != nil {
		return 0, err
	}
	if n.ID == 0 {
		n.ID = found
	}
	return n.ID, nil
}

// hasNote reports whether a note of the merge request matches.
func (c *client) hasNote(ctx context.Context, match func(note) bool) (bool, error) {
	notes, err := list[note](ctx, c, "listing the notes of "+c.mrName, c.mrPath+"/notes")
	if err != nil {
		return false, err
	}
	for _, n := range notes {
		if match(n) {
			return true, nil
		}
	}
	return false, nil
}

// capBody cuts a body GitLab would refuse as too long, keeping its start,
// where the marker is.
func capBody(s string) string { return seam.CapBody(s, maxBody, "GitLab") }

// Reply posts body in the merge request: as a note of the discussion
// whose ID is to, or as a note of its own when to is "".
func (p *Poster) Reply(ctx context.Context, to, body string) (string, error) {
	c, err := newClient(p.Options, "")
	if err != nil {
		return "", err
	}
	path := c.mrPath + "/notes"
	op := "posting a note on " + c.mrName
	if to != "" {
		if !discussionID().MatchString(to) {
			return "", fmt.Errorf("cannot reply on GitLab: %q is not a discussion ID (40 hexadecimal digits, as GitLab names discussions)", text.OneLine(to, 80))
		}
		path = c.mrPath + "/discussions/" + to + "/notes"
		op = "replying in discussion " + to[:8] + " of " + c.mrName
	}
	var n note
	if _, err := c.Call(ctx, seam.Request{Op: op, Method: http.MethodPost, Path: path, Body: map[string]string{"body": capBody(body)}, Out: &n}); err != nil {
		return "", err
	}
	// The note's address: GitLab answers a note without one.
	var mr mergeRequest
	if _, err := c.Call(ctx, seam.Request{Op: "reading merge request " + c.mrName, Method: http.MethodGet, Path: c.mrPath, Out: &mr}); err != nil {
		return "", nil
	}
	return (&mrState{webURL: mr.WebURL}).noteURL(n.ID), nil
}

// discussionID is how GitLab names a discussion: 40 hexadecimal digits.
var discussionID = lazy.Regexp(`^[0-9a-f]{40}$`)

// StatusName is the name of the commit status review sets (GitLab's
// "context" is its name): a pipeline rule or a script reads the review's
// state from it.
const StatusName = "review"

// SetStatus sets the review's commit status on sha: success or failed,
// with a description whose first word is the review's state.
func (p *Poster) SetStatus(ctx context.Context, sha string, s result.Status) error {
	c, err := newClient(p.Options, "")
	if err != nil {
		return err
	}
	if !seam.SHA().MatchString(sha) || len(sha) < 40 {
		return fmt.Errorf("setting the commit status: %q is not a commit SHA", text.OneLine(sha, 80))
	}
	state := "success"
	if s.Failing {
		state = "failed"
	}
	body := map[string]string{"state": state, "name": StatusName, "description": text.Truncate(s.Description, 255)}
	if s.URL != "" {
		body["target_url"] = s.URL
	}
	_, err = c.Call(ctx, seam.Request{
		Op: "setting the commit status of " + text.ShortSHA(sha), Method: http.MethodPost,
		Path: "/projects/" + url.PathEscape(p.Options.Project) + "/statuses/" + strings.ToLower(sha), Body: body,
	})
	return err
}
