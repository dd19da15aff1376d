package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	gh "github.com/google/go-github/v84/github"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/result"
)

// DefaultAPIURL is github.com's REST API. GitHub Enterprise Server names
// its own in GITHUB_API_URL.
const DefaultAPIURL = "https://api.github.com"

// maxBody is under GitHub's limit of 65536 characters for a review or
// comment body, leaving room for the truncation note.
const maxBody = 65000

// PostOptions says where Post posts.
type PostOptions struct {
	// APIURL is the REST API root, $GITHUB_API_URL; empty means github.com.
	APIURL string
	// Token authenticates the requests, usually $GITHUB_TOKEN.
	Token string
	// Repo is "owner/name", $GITHUB_REPOSITORY.
	Repo string
	// PR is the pull request number (see PRFromEvent).
	PR int
	// HeadSHA is the commit the review is of: the pull request's head.
	// Empty means the result's head. In a pull_request workflow HEAD is a
	// merge commit GitHub made, not the head: pass
	// github.event.pull_request.head.sha (ReadPREvent reads it).
	HeadSHA string
	// HTTPClient sends the requests; nil means a client with a timeout
	// for each request (RequestTimeout, also for a client without one).
	HTTPClient *http.Client
	// Timeout bounds all the requests of one Post or ReadEarlier; 0
	// means DefaultTimeout.
	Timeout time.Duration
	// Login is the account the token posts as, when it is a person's
	// token. Markers of earlier runs are trusted only in reviews and
	// comments by bots (the Actions token, an app) or by Login, so that
	// nobody else can suppress a review by copying a marker. Empty means
	// Post asks GitHub who the token belongs to.
	Login string
	// MaxAttempts bounds the attempts of one request; 1 disables retries,
	// 0 means seam.DefaultMaxAttempts.
	MaxAttempts int
	// BaseDelay and MaxDelay shape the wait between attempts when GitHub
	// does not say how long to wait: a random time up to
	// BaseDelay·2^(n-1), at most MaxDelay. Zero means the defaults.
	BaseDelay, MaxDelay time.Duration
}

// PostReport says what Post did.
type PostReport struct {
	// ReviewID and URL identify the review posted, or the earlier review
	// of the same commit when Skipped.
	ReviewID int64  `json:"review_id,omitempty"`
	URL      string `json:"url,omitempty"`
	// Skipped is true when a review of this head commit was already
	// posted: nothing was posted again.
	Skipped bool `json:"skipped"`
	// Inline counts findings posted as comments on lines of the diff,
	// InBody those in the review's body, and Repeated those left out
	// because an earlier run already commented them on the pull request.
	Inline   int `json:"inline"`
	InBody   int `json:"in_body"`
	Repeated int `json:"repeated"`
	// Fallback is true when GitHub refused the inline comments and every
	// finding went into the body instead.
	Fallback bool `json:"fallback,omitempty"`
}

// Error is a request GitHub refused. Its message is one line: what
// failed, what GitHub said, and what to do.
type Error struct {
	Op      string // what was being done
	Status  int    // the HTTP status of the last answer
	Message string // GitHub's message and error details
	Hint    string // what to do about it
	// Attempts counts the requests made, retries included.
	Attempts int
	// Denied says the token may not do it (403, not a rate limit): a
	// read-only token, as a pull request from a fork gets.
	Denied bool
}

// Is makes a refusal for want of permission seam.ErrDenied.
func (e *Error) Is(target error) bool { return target == seam.ErrDenied && e.Denied }

func (e *Error) Error() string {
	return fmt.Sprintf("%s: GitHub answered %d %s: %s", withAttempts(e.Op, e.Attempts), e.Status, e.Message, e.Hint)
}

// Post posts the findings as one pull request review. Findings on lines
// inside the diff's hunks become inline comments on the new side; the
// others, with the summary and usage, make the review's body. So do those
// on a file whose name is not UTF-8, which a comment could not name: the
// body names it quoted ("caf\xe9.txt":3).
//
// Running it again does not repeat itself. Each body starts with a hidden
// marker: the review's names the run and head commit, each comment's the
// finding's fingerprint. If a review of the same head commit exists,
// nothing is posted; otherwise inline comments whose finding an earlier
// run already commented are left out and listed in the body.
//
// If GitHub refuses the inline comments (422, for instance when the
// pull request's diff differs from the one reviewed), the review is posted
// once more with every finding in its body.
//
// Requests that fail in a way that may pass (GitHub's server errors, its
// secondary rate limits, the network) are made again after a wait; see
// PostOptions.MaxAttempts.
func Post(ctx context.Context, r *result.Result, d *diffctx.Diff, o PostOptions) (PostReport, error) {
	return postReview(ctx, r, d, o, &pullRead{}, nil)
}

// postReview is Post, with what was read of the pull request before, and
// each comment's marker carrying its finding's anchor when anchor is set.
func postReview(ctx context.Context, r *result.Result, d *diffctx.Diff, o PostOptions, read *pullRead, anchor func(result.Finding) string) (PostReport, error) {
	c, err := newClient(o, r)
	if err != nil {
		return PostReport{}, err
	}
	c.read = read
	ctx, cancel := c.bound(ctx, o)
	defer cancel()
	c.login = o.Login
	if c.login == "" {
		c.login = c.whoAmI(ctx)
	}
	if rv, err := c.findReview(ctx, false); err != nil || rv != nil {
		if err != nil {
			return PostReport{}, err
		}
		return PostReport{ReviewID: rv.GetID(), URL: rv.GetHTMLURL(), Skipped: true}, nil
	}
	earlier, err := c.earlierComments(ctx)
	if err != nil {
		return PostReport{}, err
	}

	p := planReview(r, d, earlier, true, anchor)
	rep := PostReport{Inline: len(p.comments), InBody: len(p.body), Repeated: len(p.repeated)}
	req := &gh.PullRequestReviewRequest{
		CommitID: gh.Ptr(c.head), Event: gh.Ptr("COMMENT"),
		Body: gh.Ptr(p.render(r, c.head, false)), Comments: p.comments,
	}
	created, err := c.createReview(ctx, req)
	var gerr *Error
	if err != nil && errors.As(err, &gerr) && gerr.Status == http.StatusUnprocessableEntity && len(p.comments) > 0 {
		// The comments could not be placed; the findings are still worth
		// posting, in the body, where no line has to match.
		p = planReview(r, d, earlier, false, anchor)
		req.Body, req.Comments = gh.Ptr(p.render(r, c.head, true)), nil
		rep = PostReport{InBody: len(p.body), Repeated: len(p.repeated), Fallback: true}
		created, err = c.createReview(ctx, req)
	}
	if err != nil {
		return PostReport{}, err
	}
	rep.ReviewID, rep.URL = created.GetID(), created.GetHTMLURL()
	return rep, nil
}

// Earlier is what earlier runs of review posted on a pull request: the
// heads their reviews were of, and the findings they commented on lines
// still in its diff (GitHub has not marked the comment outdated).
type Earlier = seam.Earlier

// OpenFinding is a finding an earlier run commented on a pull request.
type OpenFinding = seam.OpenFinding

// ReadEarlier reads what earlier runs posted on the pull request o names:
// what an incremental review (--since) starts from, and what its gate
// still counts. o.HeadSHA is not needed. Only markers by bots or by the
// token's own account count, as for Post.
func ReadEarlier(ctx context.Context, o PostOptions) (Earlier, error) {
	return readEarlier(ctx, o, &pullRead{})
}

// readEarlier is ReadEarlier, keeping what it read of the pull request in
// read.
func readEarlier(ctx context.Context, o PostOptions, read *pullRead) (Earlier, error) {
	if o.HeadSHA == "" {
		o.HeadSHA = strings.Repeat("0", 40)
	}
	c, err := newClient(o, &result.Result{})
	if err != nil {
		return Earlier{}, err
	}
	c.read = read
	ctx, cancel := c.bound(ctx, o)
	defer cancel()
	c.login = o.Login
	if c.login == "" {
		c.login = c.whoAmI(ctx)
	}
	return c.earlier(ctx)
}

// reviewPlan is the findings of a review sorted into inline comments, the
// body, and those an earlier run already commented.
type reviewPlan struct {
	inline   []result.Finding
	comments []*gh.DraftReviewComment
	body     []result.Finding
	repeated []seam.Repeated
	unnamed  int // findings in the body because their file's name is not UTF-8
}

// planReview sorts the findings (seam.PlanLines) and writes the inline
// comments: a range that leaves its hunk is commented on its first line,
// as GitHub needs both ends of a range in one hunk. inline false puts
// every new finding in the body.
func planReview(r *result.Result, d *diffctx.Diff, earlier map[string]string, inline bool, anchor func(result.Finding) string) reviewPlan {
	sorted := seam.PlanLines(r, d, earlier, inline)
	p := reviewPlan{inline: sorted.Inline, body: sorted.Body, repeated: sorted.Repeated, unnamed: sorted.Unnamed}
	for _, f := range p.inline {
		c := &gh.DraftReviewComment{Path: gh.Ptr(f.Path), Line: gh.Ptr(f.Line), Side: gh.Ptr("RIGHT")}
		ranged := f.EndLine > f.Line && d.InOneHunk(f.Path, f.Line, f.EndLine)
		if ranged {
			c.StartLine, c.StartSide, c.Line = gh.Ptr(f.Line), gh.Ptr("RIGHT"), gh.Ptr(f.EndLine)
		}
		code := ""
		if anchor != nil {
			code = anchor(f)
		}
		c.Body = gh.Ptr(capBody(seam.CommentMarker(f.Fingerprint(), r.RunID, seam.AnchorField(code)) + "\n" + commentMarkdown(f, ranged || f.EndLine <= f.Line)))
		p.comments = append(p.comments, c)
	}
	return p
}

func reviewMarker(run, head string) string { return seam.ReviewMarker(run, head) }

// render writes the review's body: marker, counts, summary, the findings
// not commented inline, those commented before, and usage.
func (p reviewPlan) render(r *result.Result, head string, fallback bool) string {
	var b strings.Builder
	b.WriteString(reviewMarker(r.RunID, head) + "\n")
	fmt.Fprintf(&b, "### review: %s\n\n", result.CountFindings(r.Findings))
	if s := strings.TrimSpace(r.Summary); s != "" {
		b.WriteString(seam.Neutralize(s) + "\n\n")
	}
	b.WriteString(coverageNote(r))
	b.WriteString(seam.LedgerNote(r))
	if r.Since != "" {
		fmt.Fprintf(&b, "_The commits since %s were reviewed; the findings of earlier reviews stay in their comments._\n\n", mdCode(text.ShortSHA(r.Since)))
	}
	if fallback {
		b.WriteString("_GitHub did not accept comments on the lines of this pull request's diff, so every finding is listed here._\n\n")
	} else if p.unnamed > 0 {
		b.WriteString(seam.UnnamedNote("GitHub"))
	}
	if n := len(p.inline); n > 0 {
		fmt.Fprintf(&b, "%d commented on the changed lines.\n\n", n)
	}
	if len(p.body) > 0 {
		if len(p.inline) > 0 {
			b.WriteString("#### Other findings\n\n")
		}
		for i, f := range p.body {
			fmt.Fprintf(&b, "**%d. [%s] %s** · %s · %s\n\n", i+1, f.Severity,
				seam.NeutralLine(text.OneLine(f.Title, 0)), mdCode(f.Location()), seam.NeutralLine(f.RuleID()))
			if md := findingMarkdown(f, 0); md != "" {
				b.WriteString(neutralizeSuggestions(md) + "\n\n")
			}
		}
	}
	seam.WriteRepeated(&b, "Commented by an earlier run", "comment", p.repeated)
	b.WriteString(seam.StateLine(r))
	b.WriteString("---\n" + r.UsageLine() + "\n")
	return capBody(b.String())
}

// capBody cuts a body GitHub would refuse as too long, keeping its start,
// where the marker is.
func capBody(s string) string { return seam.CapBody(s, maxBody, "GitHub") }
