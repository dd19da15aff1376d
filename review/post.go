package review

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/reviewdev/review/diffctx"
)

// DefaultGitHubAPI is github.com's REST API. GitHub Enterprise Server
// names its own in GITHUB_API_URL.
const DefaultGitHubAPI = "https://api.github.com"

const (
	// maxGitHubBody is under GitHub's limit of 65536 characters for a
	// review or comment body, leaving room for the truncation note.
	maxGitHubBody = 65000
	// maxGitHubResponse bounds a response held in memory; a page of 100
	// reviews is far smaller.
	maxGitHubResponse = 16 << 20
	// maxListPages stops a listing that never ends: 100 pages of 100 is
	// more reviews than any pull request has.
	maxListPages = 100
	// githubTimeout bounds each request when the caller gives no client.
	githubTimeout = 30 * time.Second
)

// PostOptions says where PostGitHub posts.
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
	// HTTPClient sends the requests; nil means a client with a timeout.
	HTTPClient *http.Client
	// Login is the account the token posts as, when it is a person's
	// token. Markers of earlier runs are trusted only in reviews and
	// comments by bots (the Actions token, an app) or by Login, so that
	// nobody else can suppress a review by copying a marker. Empty means
	// PostGitHub asks GitHub who the token belongs to.
	Login string
}

// PostReport says what PostGitHub did.
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

// GitHubError is a request GitHub refused. Its message is one line: what
// failed, what GitHub said, and what to do.
type GitHubError struct {
	Op      string // what was being done
	Status  int    // the HTTP status
	Message string // GitHub's message and error details
	Hint    string // what to do about it
}

func (e *GitHubError) Error() string {
	return fmt.Sprintf("%s: GitHub answered %d %s: %s", e.Op, e.Status, e.Message, e.Hint)
}

// PREvent is what review needs from a pull request's event.
type PREvent struct {
	Number  int
	HeadSHA string // empty for events that do not carry it
}

// ReadPREvent reads the pull request number and head commit from the
// event payload GitHub Actions writes to $GITHUB_EVENT_PATH. It knows the
// pull_request and pull_request_target events (pull_request.number and
// head.sha) and comments on a pull request (issue.number of an issue that
// is a pull request, without a head).
func ReadPREvent(path string) (PREvent, error) {
	if path == "" {
		return PREvent{}, errors.New("no GitHub event file: GITHUB_EVENT_PATH is not set; run on a pull_request event in GitHub Actions, which sets it")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return PREvent{}, fmt.Errorf("cannot read the GitHub event file: %w: set GITHUB_EVENT_PATH to the event file GitHub Actions writes", err)
	}
	var ev struct {
		Number      int `json:"number"`
		PullRequest *struct {
			Number int `json:"number"`
			Head   struct {
				SHA string `json:"sha"`
			} `json:"head"`
		} `json:"pull_request"`
		Issue *struct {
			Number      int             `json:"number"`
			PullRequest json.RawMessage `json:"pull_request"`
		} `json:"issue"`
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		return PREvent{}, fmt.Errorf("the GitHub event file %s is not valid JSON (%v): set GITHUB_EVENT_PATH to the event file GitHub Actions writes", path, err)
	}
	switch {
	case ev.PullRequest != nil && ev.PullRequest.Number > 0:
		return PREvent{Number: ev.PullRequest.Number, HeadSHA: ev.PullRequest.Head.SHA}, nil
	case ev.PullRequest != nil && ev.Number > 0:
		return PREvent{Number: ev.Number, HeadSHA: ev.PullRequest.Head.SHA}, nil
	case ev.Issue != nil && ev.Issue.Number > 0 && len(ev.Issue.PullRequest) > 0 && string(ev.Issue.PullRequest) != "null":
		return PREvent{Number: ev.Issue.Number}, nil
	}
	return PREvent{}, fmt.Errorf("the GitHub event in %s is not about a pull request (it has no pull_request.number): run on pull_request or pull_request_target events", path)
}

// PRFromEvent returns the pull request number from the event payload at
// path ($GITHUB_EVENT_PATH); see ReadPREvent.
func PRFromEvent(path string) (int, error) {
	ev, err := ReadPREvent(path)
	return ev.Number, err
}

// PostGitHub posts the findings as one pull request review. Findings on
// lines inside the diff's hunks become inline comments on the new side;
// the others, with the summary and usage, make the review's body.
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
func PostGitHub(ctx context.Context, r *Result, d *diffctx.Diff, o PostOptions) (PostReport, error) {
	c, err := newGitHubClient(o, r)
	if err != nil {
		return PostReport{}, err
	}
	login := o.Login
	if login == "" {
		login = c.login(ctx)
	}
	trusted := func(u *ghUser) bool {
		return u != nil && (u.Type == "Bot" || (login != "" && strings.EqualFold(u.Login, login)))
	}

	pr := c.repoURL + "/pulls/" + strconv.Itoa(o.PR)
	reviews, err := listAll[ghReview](ctx, c, "listing the reviews of "+c.prName, pr+"/reviews?per_page=100")
	if err != nil {
		return PostReport{}, err
	}
	for _, rv := range reviews {
		if m := reviewMarkerRE.FindStringSubmatch(rv.Body); m != nil && trusted(rv.User) && strings.EqualFold(m[2], c.head) {
			return PostReport{ReviewID: rv.ID, URL: rv.HTMLURL, Skipped: true}, nil
		}
	}
	comments, err := listAll[ghComment](ctx, c, "listing the review comments of "+c.prName, pr+"/comments?per_page=100")
	if err != nil {
		return PostReport{}, err
	}
	earlier := map[string]string{} // fingerprint → URL of the comment
	for _, cm := range comments {
		if m := commentMarkerRE.FindStringSubmatch(cm.Body); m != nil && trusted(cm.User) {
			if _, ok := earlier[m[1]]; !ok {
				earlier[m[1]] = cm.HTMLURL
			}
		}
	}

	p := planReview(r, d, earlier, true)
	rep := PostReport{Inline: len(p.comments), InBody: len(p.body), Repeated: len(p.repeated)}
	req := ghReviewRequest{CommitID: c.head, Event: "COMMENT", Body: p.render(r, c.head, false), Comments: p.comments}
	created, err := c.createReview(ctx, pr, req)
	var gerr *GitHubError
	if err != nil && errors.As(err, &gerr) && gerr.Status == http.StatusUnprocessableEntity && len(p.comments) > 0 {
		// The comments could not be placed; the findings are still worth
		// posting, in the body, where no line has to match.
		p = planReview(r, d, earlier, false)
		req.Body, req.Comments = p.render(r, c.head, true), nil
		rep = PostReport{InBody: len(p.body), Repeated: len(p.repeated), Fallback: true}
		created, err = c.createReview(ctx, pr, req)
	}
	if err != nil {
		return PostReport{}, err
	}
	rep.ReviewID, rep.URL = created.ID, created.HTMLURL
	return rep, nil
}

// Markers are hidden HTML comments at the start of a body; only the start
// is looked at, so a marker quoted inside a finding's text never counts.
var (
	reviewMarkerRE  = regexp.MustCompile(`^<!-- review:run=(\S+) head=([0-9A-Fa-f]+) -->`)
	commentMarkerRE = regexp.MustCompile(`^<!-- review:fp=([0-9a-f]+) `)
	shaRE           = regexp.MustCompile(`^[0-9A-Fa-f]{7,64}$`)
)

// reviewPlan is the findings of a review sorted into inline comments, the
// body, and those an earlier run already commented.
type reviewPlan struct {
	inline   []Finding
	comments []ghDraftComment
	body     []Finding
	repeated []repeatedFinding
}

type repeatedFinding struct {
	Finding
	url string
}

// planReview sorts the findings. A finding is inline when its line is
// inside a hunk, unless an earlier run commented it; a range that leaves
// its hunk is commented on its first line, as GitHub needs both ends of a
// range in one hunk. inline false puts every new finding in the body.
func planReview(r *Result, d *diffctx.Diff, earlier map[string]string, inline bool) reviewPlan {
	var p reviewPlan
	for _, f := range r.Findings {
		if f.Line <= 0 || d == nil || !d.InHunk(f.Path, f.Line) {
			p.body = append(p.body, f)
			continue
		}
		fp := f.Fingerprint()
		if u, ok := earlier[fp]; ok {
			p.repeated = append(p.repeated, repeatedFinding{f, u})
			continue
		}
		if !inline {
			p.body = append(p.body, f)
			continue
		}
		c := ghDraftComment{Path: f.Path, Line: f.Line, Side: "RIGHT"}
		ranged := f.EndLine > f.Line && sameHunk(d, f.Path, f.Line, f.EndLine)
		if ranged {
			c.StartLine, c.StartSide, c.Line = f.Line, "RIGHT", f.EndLine
		}
		c.Body = capBody(commentMarker(fp, r.RunID) + "\n" + commentMarkdown(f, ranged || f.EndLine <= f.Line))
		p.inline = append(p.inline, f)
		p.comments = append(p.comments, c)
	}
	return p
}

// sameHunk reports whether lines start to end of path's new side lie in
// one hunk.
func sameHunk(d *diffctx.Diff, path string, start, end int) bool {
	f := d.File(path)
	if f == nil {
		return false
	}
	for _, h := range f.Hunks {
		if start >= h.NewStart && end < h.NewStart+h.NewLines {
			return true
		}
	}
	return false
}

func reviewMarker(run, head string) string {
	return fmt.Sprintf("<!-- review:run=%s head=%s -->", oneLineText(run), head)
}

func commentMarker(fp, run string) string {
	return fmt.Sprintf("<!-- review:fp=%s run=%s -->", fp, oneLineText(run))
}

// commentMarkdown is an inline comment: the finding's title, body and
// suggestion. applicable says the comment covers exactly the finding's
// lines, so a literal suggestion can be offered as a suggested change;
// otherwise it is shown as code. Suggestion blocks anywhere else are shown
// as code too: GitHub would offer them as changes to the wrong lines.
func commentMarkdown(f Finding, applicable bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**[%s] %s** · %s", f.Severity, escapeAngles(oneLineText(f.Title)), escapeAngles(f.RuleID()))
	if !applicable && f.EndLine > f.Line {
		// The comment sits on the first line only; say where it ends.
		fmt.Fprintf(&b, " · lines %d-%d", f.Line, f.EndLine)
	}
	b.WriteString("\n")
	if f.Body != "" {
		b.WriteString("\n" + neutralizeSuggestions(tidyMarkdown(f.Body)) + "\n")
	}
	if f.Suggestion != "" {
		if code, prose, ok := LiteralSuggestion(f.Suggestion); ok {
			info := ""
			if applicable {
				info = "suggestion"
			}
			fence := codeFence(code)
			block := fence + info + "\n" + code + "\n" + fence
			if prose != "" {
				block = neutralizeSuggestions(tidyMarkdown(prose)) + "\n\n" + block
			}
			b.WriteString("\n" + labelled("Suggestion", block) + "\n")
		} else {
			b.WriteString("\n" + labelled("Suggestion", neutralizeSuggestions(tidyMarkdown(f.Suggestion))) + "\n")
		}
	}
	if f.Note != "" {
		b.WriteString("\n_" + escapeAngles(oneLineText(f.Note)) + "_\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// render writes the review's body: marker, counts, summary, the findings
// not commented inline, those commented before, and usage.
func (p reviewPlan) render(r *Result, head string, fallback bool) string {
	var b strings.Builder
	b.WriteString(reviewMarker(r.RunID, head) + "\n")
	fmt.Fprintf(&b, "### review: %s\n\n", CountFindings(r.Findings))
	if s := strings.TrimSpace(r.Summary); s != "" {
		b.WriteString(neutralizeSuggestions(tidyMarkdown(s)) + "\n\n")
	}
	if fallback {
		b.WriteString("_GitHub did not accept comments on the lines of this pull request's diff, so every finding is listed here._\n\n")
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
				escapeAngles(oneLineText(f.Title)), mdCode(f.Location()), escapeAngles(f.RuleID()))
			if md := findingMarkdown(f, 0); md != "" {
				b.WriteString(neutralizeSuggestions(md) + "\n\n")
			}
		}
	}
	if len(p.repeated) > 0 {
		b.WriteString("#### Commented by an earlier run\n\n")
		for _, f := range p.repeated {
			fmt.Fprintf(&b, "- [%s] %s · %s", f.Severity, escapeAngles(oneLineText(f.Title)), mdCode(f.Finding.Location()))
			if f.url != "" {
				fmt.Fprintf(&b, " · [comment](%s)", f.url)
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("---\n" + usageLine(r) + "\n")
	return capBody(b.String())
}

// usageLine is the run's usage in one line, with how to replay it.
func usageLine(r *Result) string {
	u := r.Usage
	s := fmt.Sprintf("Run `%s` · model %s · %s · %d prompt tokens (%d cached) · %d completion tokens · our count %d",
		r.RunID, escapeAngles(oneLineText(r.Model)), plural(u.Requests, "request"), u.Prompt, u.Cached, u.Completion, u.Own)
	if c, ok := r.EstimateCost(); ok {
		s += " · about " + FormatUSD(c)
	}
	return s + " · see what the model saw: `review replay " + r.RunID + "`"
}

// capBody cuts a body GitHub would refuse as too long, keeping its start,
// where the marker is.
func capBody(s string) string {
	if len(s) <= maxGitHubBody {
		return s
	}
	return closeFences(truncateRunes(s, maxGitHubBody)) + "\n\n_(cut to fit GitHub's length limit; the run's other outputs have it all)_"
}

// codeFence returns a backtick fence longer than any run of backticks in
// code, and at least three long.
func codeFence(code string) string {
	n := 3
	for i := 0; i < len(code); i++ {
		if code[i] == '`' {
			m := runOf(code[i:], '`')
			n = max(n, m+1)
			i += m - 1
		}
	}
	return strings.Repeat("`", n)
}

// neutralizeSuggestions turns fenced "suggestion" blocks into plain code
// blocks.
func neutralizeSuggestions(s string) string {
	if !strings.Contains(s, "suggestion") {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if fence := FenceOf(t); fence != "" && strings.HasPrefix(strings.TrimSpace(t[len(fence):]), "suggestion") {
			lines[i] = strings.Replace(l, t, fence, 1)
		}
	}
	return strings.Join(lines, "\n")
}

// The GitHub REST objects PostGitHub reads and writes.
type (
	ghUser struct {
		Login string `json:"login"`
		Type  string `json:"type"`
	}
	ghReview struct {
		ID      int64   `json:"id"`
		User    *ghUser `json:"user"`
		Body    string  `json:"body"`
		HTMLURL string  `json:"html_url"`
	}
	ghComment struct {
		ID      int64   `json:"id"`
		User    *ghUser `json:"user"`
		Body    string  `json:"body"`
		HTMLURL string  `json:"html_url"`
	}
	ghReviewRequest struct {
		CommitID string           `json:"commit_id"`
		Body     string           `json:"body"`
		Event    string           `json:"event"`
		Comments []ghDraftComment `json:"comments,omitempty"`
	}
	ghDraftComment struct {
		Path      string `json:"path"`
		Line      int    `json:"line"`
		Side      string `json:"side"`
		StartLine int    `json:"start_line,omitempty"`
		StartSide string `json:"start_side,omitempty"`
		Body      string `json:"body"`
	}
)

// githubClient sends REST requests to one repository's pull request.
type githubClient struct {
	http    *http.Client
	api     *url.URL
	token   string
	repoURL string // API URL of the repository
	prName  string // owner/name#n, for messages
	head    string
}

func newGitHubClient(o PostOptions, r *Result) (*githubClient, error) {
	if strings.TrimSpace(o.Token) == "" {
		return nil, errors.New("cannot post to GitHub: no token; set GITHUB_TOKEN (in a workflow: env: GITHUB_TOKEN: ${{ github.token }})")
	}
	owner, name, ok := strings.Cut(o.Repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return nil, fmt.Errorf("cannot post to GitHub: repository %q is not owner/name; set GITHUB_REPOSITORY", o.Repo)
	}
	if o.PR <= 0 {
		return nil, fmt.Errorf("cannot post to GitHub: pull request number %d is not valid; run on a pull_request event, whose event file names it", o.PR)
	}
	head := o.HeadSHA
	if head == "" {
		head = r.HeadSHA
	}
	if !shaRE.MatchString(head) {
		return nil, fmt.Errorf("cannot post to GitHub: head %q is not a commit SHA; pass the pull request's head commit (github.event.pull_request.head.sha)", head)
	}
	raw := o.APIURL
	if raw == "" {
		raw = DefaultGitHubAPI
	}
	api, err := url.Parse(strings.TrimRight(raw, "/"))
	if err != nil || (api.Scheme != "https" && api.Scheme != "http") || api.Host == "" {
		return nil, fmt.Errorf("cannot post to GitHub: API URL %q is not an http(s) URL; set GITHUB_API_URL, e.g. %s", raw, DefaultGitHubAPI)
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: githubTimeout}
	}
	return &githubClient{
		http:    hc,
		api:     api,
		token:   o.Token,
		repoURL: api.String() + "/repos/" + url.PathEscape(owner) + "/" + url.PathEscape(name),
		prName:  fmt.Sprintf("%s/%s#%d", owner, name, o.PR),
		head:    strings.ToLower(head),
	}, nil
}

// login asks who the token belongs to. Tokens of apps and of Actions may
// not ask and are bots anyway, so a refusal is not an error.
func (c *githubClient) login(ctx context.Context) string {
	var u ghUser
	if _, err := c.do(ctx, "", http.MethodGet, c.api.String()+"/user", nil, &u); err != nil {
		return ""
	}
	return u.Login
}

// createReview posts a review and returns GitHub's record of it.
func (c *githubClient) createReview(ctx context.Context, prURL string, req ghReviewRequest) (ghReview, error) {
	var out ghReview
	_, err := c.do(ctx, "posting the review to "+c.prName, http.MethodPost, prURL+"/reviews", req, &out)
	return out, err
}

// listAll gets every page of a listing, following the Link header's next
// page, which must stay on the API's host: the token goes with it.
func listAll[T any](ctx context.Context, c *githubClient, op, first string) ([]T, error) {
	var all []T
	next := first
	for page := 0; next != ""; page++ {
		if page == maxListPages {
			return nil, fmt.Errorf("%s: more than %d pages; GitHub's pagination did not end", op, maxListPages)
		}
		var items []T
		h, err := c.do(ctx, op, http.MethodGet, next, nil, &items)
		if err != nil {
			return nil, err
		}
		all = append(all, items...)
		next = nextPage(h.Get("Link"))
		if next != "" {
			u, err := url.Parse(next)
			if err != nil || u.Scheme != c.api.Scheme || u.Host != c.api.Host {
				return nil, fmt.Errorf("%s: GitHub's next page %q is not on %s; refusing to send the token there", op, next, c.api.Host)
			}
		}
	}
	return all, nil
}

// linkNextRE finds the next page in a Link header:
// <https://api.github.com/...&page=2>; rel="next", <...>; rel="last".
var linkNextRE = regexp.MustCompile(`<([^>]*)>\s*;[^,]*\brel="?next"?`)

func nextPage(link string) string {
	if m := linkNextRE.FindStringSubmatch(link); m != nil {
		return m[1]
	}
	return ""
}

// do sends one request with GitHub's headers and decodes a 2xx answer
// into out. Any other answer is a *GitHubError naming op.
func (c *githubClient) do(ctx context.Context, op, method, target string, in, out any) (http.Header, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("%s: encoding the request: %w", op, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	req.Header.Set("User-Agent", "review")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: stopped: %w", op, context.Cause(ctx))
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is in the message already, as the host
		}
		return nil, fmt.Errorf("%s: cannot reach GitHub at %s: %w: check GITHUB_API_URL and the network", op, c.api.Host, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxGitHubResponse+1))
	if err != nil {
		return nil, fmt.Errorf("%s: reading GitHub's answer: %w", op, err)
	}
	if len(raw) > maxGitHubResponse {
		return nil, fmt.Errorf("%s: GitHub's answer is larger than %d MiB", op, maxGitHubResponse>>20)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, c.apiError(op, resp, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return nil, fmt.Errorf("%s: GitHub's answer is not the JSON expected (%v); check GITHUB_API_URL points at the REST API", op, err)
		}
	}
	return resp.Header, nil
}

// apiError explains a refused request.
func (c *githubClient) apiError(op string, resp *http.Response, raw []byte) *GitHubError {
	e := &GitHubError{Op: op, Status: resp.StatusCode, Message: githubMessage(resp.StatusCode, raw)}
	limited := resp.StatusCode == http.StatusTooManyRequests ||
		(resp.StatusCode == http.StatusForbidden && (resp.Header.Get("X-RateLimit-Remaining") == "0" || strings.Contains(strings.ToLower(e.Message), "rate limit")))
	switch {
	case limited:
		e.Hint = "the token's rate limit is used up; run again"
		if reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			e.Hint += " after " + time.Unix(reset, 0).UTC().Format(time.RFC3339)
		} else {
			e.Hint += " later"
		}
	case resp.StatusCode == http.StatusUnauthorized:
		e.Hint = "the token is wrong or expired; pass a valid one in GITHUB_TOKEN"
	case resp.StatusCode == http.StatusForbidden:
		e.Hint = "the token may not write reviews; give the workflow `permissions: pull-requests: write` (pull requests from forks get a read-only token)"
	case resp.StatusCode == http.StatusNotFound:
		e.Hint = fmt.Sprintf("check that %s exists and the token can read it (GITHUB_REPOSITORY, the pull request number, and GITHUB_API_URL on GitHub Enterprise)", c.prName)
	case resp.StatusCode == http.StatusUnprocessableEntity:
		e.Hint = fmt.Sprintf("the review must be of the pull request's head commit (%s was given) with comments on lines of its diff; pass github.event.pull_request.head.sha", c.head)
	case resp.StatusCode >= 500:
		e.Hint = "GitHub had a problem; run again later"
	default:
		e.Hint = "see GitHub's REST API documentation for pull request reviews"
	}
	return e
}

// githubMessage is the message and error details of GitHub's error body,
// in one line: {"message": "Validation Failed", "errors": [...]}.
func githubMessage(status int, raw []byte) string {
	var body struct {
		Message string            `json:"message"`
		Errors  []json.RawMessage `json:"errors"`
	}
	if json.Unmarshal(raw, &body) != nil || body.Message == "" {
		return http.StatusText(status)
	}
	msg := body.Message
	var details []string
	for _, e := range body.Errors {
		var s string
		if json.Unmarshal(e, &s) == nil {
			details = append(details, s)
			continue
		}
		var o struct{ Message, Code, Field, Resource string }
		if json.Unmarshal(e, &o) == nil {
			switch {
			case o.Message != "":
				details = append(details, strings.TrimSpace(o.Field+" "+o.Message))
			case o.Code != "":
				details = append(details, strings.TrimSpace(o.Field+" "+o.Code))
			}
		}
	}
	if len(details) > 0 {
		msg += " (" + strings.Join(details, "; ") + ")"
	}
	return truncateRunes(oneLineText(msg), 300)
}

// plural is "1 request", "2 requests".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
