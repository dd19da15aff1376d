package seam

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/lazy"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/result"
)

// Poster posts a review where its change is discussed, and reads what
// earlier runs posted there.
type Poster interface {
	// Target names what is posted on, for messages: "pull request #7",
	// "merge request !3".
	Target() string
	// Earlier reads what earlier runs posted on the target.
	Earlier(ctx context.Context) (Earlier, error)
	// Post posts the findings of r, a review of d. An error that is
	// ErrDenied says the token may not post there.
	Post(ctx context.Context, r *result.Result, d *diffctx.Diff) (Report, error)
	// Reply posts body (Markdown review wrote, model text neutralised)
	// in the change's conversation: in the thread or discussion named by
	// to, or as a comment of its own when to is "". It returns the
	// reply's address.
	Reply(ctx context.Context, to, body string) (string, error)
	// SetStatus sets the review's commit status on sha, which a branch
	// protection rule or a script reads.
	SetStatus(ctx context.Context, sha string, s result.Status) error
	// Resolve resolves the thread of a finding that was fixed (see
	// Reconcile), as review, with a reply saying why.
	Resolve(ctx context.Context, t Thread) error
}

// ErrDenied is what errors.Is finds in a Poster's error when the host
// refused because the token may not post (a read-only token): not a
// failure of the review, whose findings then go to the job's log instead.
var ErrDenied = errors.New("the token may not post")

// Report says what Post did.
type Report struct {
	// URL is where the post can be read.
	URL string `json:"url,omitempty"`
	// Skipped is true when a review of this head was posted before:
	// nothing was posted again.
	Skipped bool `json:"skipped"`
	// Updated is true when the summary an earlier run posted was updated
	// in place rather than a new one posted.
	Updated bool `json:"updated,omitempty"`
	// Inline counts findings posted on lines of the diff, InBody those
	// listed in the summary, and Repeated those left out because an
	// earlier run already posted them.
	Inline   int `json:"inline"`
	InBody   int `json:"in_body"`
	Repeated int `json:"repeated"`
	// Body names the summary the InBody findings are in: "body" (of a
	// GitHub review), "summary note" (on GitLab).
	Body string `json:"-"`
	// Fallback is true when the host refused the findings on lines and
	// they went into the summary instead.
	Fallback bool `json:"fallback,omitempty"`
}

// Earlier is what earlier runs posted on a change.
type Earlier struct {
	// Heads are the head commits they reviewed, oldest first.
	Heads []string
	// Open are the findings they posted on lines that are still open
	// there, one per fingerprint.
	Open []OpenFinding
	// Threads are the threads of every finding they posted on lines, in
	// the order posted, with what people did in them: the ledger's input
	// (Reconcile).
	Threads []Thread
}

// OpenFinding is a finding an earlier run posted that is still open.
type OpenFinding struct {
	Fingerprint string          `json:"fingerprint"`
	Severity    result.Severity `json:"severity"`
	Path        string          `json:"path"`
	Line        int             `json:"line"`
	URL         string          `json:"url,omitempty"`
}

// Nameable reports whether a host's JSON API can name the file at path,
// as a comment on a line must. A JSON string cannot carry bytes that are
// not UTF-8: encoding/json would send U+FFFD in their place, a name no file
// has, and the host would refuse the comment or place it nowhere. A finding
// on a file it cannot name goes into the summary, named by Location.
func Nameable(path string) bool { return utf8.ValidString(path) }

// Markers are hidden HTML comments at the start of a body; only the start
// is looked at, so a marker quoted inside a finding's text never counts.
var (
	reviewMarkerRE  = lazy.Regexp(`^<!-- review:run=(\S+) head=([0-9A-Fa-f]+)( [^\n]*)? -->`)
	commentMarkerRE = lazy.Regexp(`^<!-- review:fp=([0-9a-f]+) `)
	// severityRE reads a comment's severity from its first line after the
	// marker, as CommentMarkdown writes it.
	severityRE = lazy.Regexp(`^<!-- [^\n]* -->\n\*\*\[(info|low|medium|high|critical)\] `)
	// SHA matches a commit's SHA, abbreviated or whole.
	SHA = lazy.Regexp(`^[0-9A-Fa-f]{7,64}$`)
)

// ReviewMarker starts the body of a review's summary: the run and the head
// commit it reviewed, and optionally more (space-separated key=value).
func ReviewMarker(run, head string, more ...string) string {
	extra := ""
	if len(more) > 0 {
		extra = " " + text.OneLine(strings.Join(more, " "), 0)
	}
	return fmt.Sprintf("<!-- review:run=%s head=%s%s -->", text.OneLine(run, 0), head, extra)
}

// ReadReviewMarker reads the marker at the start of body: the run, the
// head, and what else it holds; ok false when body does not start with one.
func ReadReviewMarker(body string) (run, head, more string, ok bool) {
	m := reviewMarkerRE().FindStringSubmatch(body)
	if m == nil {
		return "", "", "", false
	}
	return m[1], strings.ToLower(m[2]), strings.TrimSpace(m[3]), true
}

// CommentMarker starts the body of a comment on a line: the finding's
// fingerprint and the run, and optionally more (space-separated
// key=value, such as AnchorField's; empty ones are left out).
func CommentMarker(fp, run string, more ...string) string {
	extra := ""
	for _, m := range more {
		if m = strings.Join(strings.Fields(m), "_"); m != "" {
			extra += " " + m
		}
	}
	return fmt.Sprintf("<!-- review:fp=%s run=%s%s -->", fp, strings.Join(strings.Fields(text.OneLine(run, 0)), "_"), extra)
}

// ReadCommentMarker reads the fingerprint of the marker at the start of
// body, and the severity the comment gives ("" when it says none).
func ReadCommentMarker(body string) (fp string, sev result.Severity, ok bool) {
	m := commentMarkerRE().FindStringSubmatch(body)
	if m == nil {
		return "", "", false
	}
	if s := severityRE().FindStringSubmatch(body); s != nil {
		sev = result.Severity(s[1])
	}
	return m[1], sev, true
}
