package github

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/gittest"
	"github.com/reviewdev/review/review/result"
)

const (
	fakeToken = "ghs_0123456789abcdefghijklmnopqrstuvwxyz"
	fakeHead  = "1111111111111111111111111111111111111111"
	fakeHead2 = "2222222222222222222222222222222222222222"
)

// ghUser and ghDraftComment are GitHub's shapes of a user and of a
// review's draft comment, as the fake reads and writes them.
type (
	ghUser struct {
		Login string `json:"login"`
		Type  string `json:"type"`
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

// failure is an answer the fake gives instead of serving a request:
// status with header and body, or, with status 0, a connection closed
// without an answer. after serves the request first and then fails, as
// GitHub does when it acts but cannot answer.
type failure struct {
	status int
	header http.Header
	body   map[string]any
	after  bool
}

// fakeGitHub is a GitHub REST API for one pull request, o/r#7, under the
// /api/v3 prefix GitHub Enterprise Server uses. It checks every request
// against the documented shapes of the pull request review endpoints and
// keeps what was posted, so a second run sees the first one's review.
type fakeGitHub struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	perPage  int              // items per page it serves, to make it paginate
	user     *ghUser          // GET /user answers this; nil: 403 as for an Actions token
	poster   ghUser           // the author of what is posted
	reviews  []map[string]any // stored in GitHub's response shape
	comments []map[string]any
	posts    []postedReview       // each accepted or refused POST, decoded
	statuses []int                // answers for the next POSTs; none left: 200
	listFail int                  // status for the listings; 0: serve them
	header   http.Header          // sent with a failure
	linkHost string               // if set, next-page links point there
	failures map[string][]failure // by "METHOD last-path-segment": the next answers
	requests []string
	bodies   [][]byte // each request's body as sent, for checks of its bytes
	nextID   int64
	// threads are the review threads GraphQL lists; reactions the 👎s by
	// comment ID (see ledger_test.go).
	threads   []map[string]any
	reactions map[int64][]map[string]any
}

// postedReview is a POSTed review as decoded by the checks.
type postedReview struct {
	CommitID string           `json:"commit_id"`
	Body     string           `json:"body"`
	Event    string           `json:"event"`
	Comments []ghDraftComment `json:"comments"`
}

func newFakeGitHub(t *testing.T) *fakeGitHub {
	g := &fakeGitHub{t: t, perPage: 100, poster: ghUser{Login: "github-actions[bot]", Type: "Bot"}, nextID: 100}
	g.srv = httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(g.srv.Close)
	return g
}

// options points Post at the fake, with retries after a millisecond or
// two.
func (g *fakeGitHub) options() PostOptions {
	return PostOptions{APIURL: g.srv.URL + "/api/v3/", Token: fakeToken, Repo: "o/r", PR: 7, HeadSHA: fakeHead,
		BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}
}

// fail queues answers for the next requests of one kind: "GET user",
// "GET reviews", "GET comments" or "POST reviews".
func (g *fakeGitHub) fail(kind string, fs ...failure) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.failures == nil {
		g.failures = map[string][]failure{}
	}
	g.failures[kind] = append(g.failures[kind], fs...)
}

// failed answers r with the next failure queued for its kind, if any.
func (g *fakeGitHub) failed(w http.ResponseWriter, r *http.Request) bool {
	kind := r.Method + " " + path.Base(r.URL.Path)
	fs := g.failures[kind]
	if len(fs) == 0 {
		return false
	}
	f := fs[0]
	g.failures[kind] = fs[1:]
	if f.after {
		g.route(httptest.NewRecorder(), r)
	}
	if f.status == 0 {
		if conn, _, err := http.NewResponseController(w).Hijack(); err != nil {
			g.t.Errorf("cannot drop the connection: %v", err)
		} else {
			conn.Close()
		}
		return true
	}
	for k, v := range f.header {
		w.Header()[k] = v
	}
	writeGitHubJSON(w, f.status, f.body)
	return true
}

func (g *fakeGitHub) posted() []postedReview {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]postedReview(nil), g.posts...)
}

func (g *fakeGitHub) serve(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.t
	g.requests = append(g.requests, r.Method+" "+r.URL.RequestURI())
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	g.bodies = append(g.bodies, body)
	for k, want := range map[string]string{
		"Authorization":        "Bearer " + fakeToken,
		"Accept":               "application/vnd.github+json",
		"X-Github-Api-Version": "2022-11-28",
	} {
		if got := r.Header.Get(k); got != want {
			t.Errorf("%s %s: header %s = %q, want %q", r.Method, r.URL, k, got, want)
		}
	}
	if r.Header.Get("User-Agent") == "" {
		t.Errorf("%s %s: no User-Agent; GitHub refuses requests without one", r.Method, r.URL)
	}
	if !g.failed(w, r) {
		g.route(w, r)
	}
}

func (g *fakeGitHub) route(w http.ResponseWriter, r *http.Request) {
	t := g.t
	const pr = "/api/v3/repos/o/r/pulls/7"
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/v3/user":
		if g.user == nil {
			writeGitHubJSON(w, http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration"})
			return
		}
		writeGitHubJSON(w, http.StatusOK, g.user)
	case r.Method == http.MethodGet && r.URL.Path == pr+"/reviews":
		g.list(w, r, g.reviews)
	case r.Method == http.MethodGet && r.URL.Path == pr+"/comments":
		g.list(w, r, g.comments)
	case r.Method == http.MethodPost && r.URL.Path == pr+"/reviews":
		g.create(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/api/graphql",
		r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/reactions"),
		r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/permission"):
		g.ledger(w, r)
	default:
		t.Errorf("unexpected request %s %s", r.Method, r.URL)
		writeGitHubJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
	}
}

func (g *fakeGitHub) list(w http.ResponseWriter, r *http.Request, items []map[string]any) {
	if g.listFail != 0 {
		for k, v := range g.header {
			w.Header()[k] = v
		}
		writeGitHubJSON(w, g.listFail, map[string]any{"message": http.StatusText(g.listFail), "documentation_url": "https://docs.github.com/rest"})
		return
	}
	q := r.URL.Query()
	if q.Get("per_page") != "100" {
		g.t.Errorf("%s: per_page = %q, want 100, the most GitHub serves", r.URL, q.Get("per_page"))
	}
	page := 1
	if p := q.Get("page"); p != "" {
		page, _ = strconv.Atoi(p)
	}
	from := min((page-1)*g.perPage, len(items))
	to := min(from+g.perPage, len(items))
	if to < len(items) {
		host := "http://" + r.Host
		if g.linkHost != "" {
			host = "http://" + g.linkHost
		}
		next := fmt.Sprintf("%s%s?per_page=100&page=%d", host, r.URL.Path, page+1)
		w.Header().Set("Link", fmt.Sprintf(`<%s>; rel="next", <%s%s?per_page=100&page=99>; rel="last"`, next, host, r.URL.Path))
	}
	writeGitHubJSON(w, http.StatusOK, append([]map[string]any{}, items[from:to]...))
}

var fakeSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// create checks a review against POST /repos/{owner}/{repo}/pulls/{n}/reviews:
// commit_id, body, event and comments, each comment with path, line, side
// and optionally start_line and start_side, with the documented types and
// no other fields.
func (g *fakeGitHub) create(w http.ResponseWriter, r *http.Request) {
	t := g.t
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("POST Content-Type = %q", ct)
	}
	var raw map[string]json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
		t.Errorf("POST body is not a JSON object: %v", err)
		writeGitHubJSON(w, http.StatusBadRequest, map[string]string{"message": "Problems parsing JSON"})
		return
	}
	for k := range raw {
		if k != "commit_id" && k != "body" && k != "event" && k != "comments" {
			t.Errorf("review has unexpected field %q", k)
		}
	}
	var rv postedReview
	checkString(t, raw, "commit_id", &rv.CommitID, true)
	checkString(t, raw, "body", &rv.Body, true)
	checkString(t, raw, "event", &rv.Event, true)
	if !fakeSHA.MatchString(rv.CommitID) || rv.Event != "COMMENT" || rv.Body == "" {
		t.Errorf("review commit_id %q, event %q, body %d bytes", rv.CommitID, rv.Event, len(rv.Body))
	}
	if len([]rune(rv.Body)) > 65536 {
		t.Errorf("review body has %d characters, over GitHub's limit", len([]rune(rv.Body)))
	}
	if c, ok := raw["comments"]; ok {
		var list []map[string]json.RawMessage
		if err := json.Unmarshal(c, &list); err != nil {
			t.Errorf("comments is not an array of objects: %s", c)
		}
		for i, m := range list {
			var dc ghDraftComment
			for k := range m {
				switch k {
				case "path", "line", "side", "start_line", "start_side", "body":
				default:
					t.Errorf("comment %d has unexpected field %q", i, k)
				}
			}
			checkString(t, m, "path", &dc.Path, true)
			checkString(t, m, "body", &dc.Body, true)
			checkString(t, m, "side", &dc.Side, true)
			checkInt(t, m, "line", &dc.Line, true)
			checkInt(t, m, "start_line", &dc.StartLine, false)
			checkString(t, m, "start_side", &dc.StartSide, false)
			if dc.Path == "" || dc.Line < 1 || dc.Side != "RIGHT" || dc.Body == "" {
				t.Errorf("comment %d: path %q line %d side %q body %d bytes", i, dc.Path, dc.Line, dc.Side, len(dc.Body))
			}
			if (dc.StartLine != 0) != (dc.StartSide != "") || (dc.StartLine != 0 && (dc.StartLine >= dc.Line || dc.StartSide != "RIGHT")) {
				t.Errorf("comment %d: start_line %d start_side %q for line %d", i, dc.StartLine, dc.StartSide, dc.Line)
			}
			rv.Comments = append(rv.Comments, dc)
		}
	}
	g.posts = append(g.posts, rv)
	if len(g.statuses) > 0 {
		status := g.statuses[0]
		g.statuses = g.statuses[1:]
		if status != http.StatusOK {
			writeGitHubJSON(w, status, map[string]any{
				"message": "Unprocessable Entity",
				"errors":  []any{"Line could not be resolved", map[string]string{"field": "pull_request_review_thread.line", "code": "invalid"}},
			})
			return
		}
	}
	g.nextID++
	review := map[string]any{
		"id": g.nextID, "user": g.poster, "body": rv.Body, "commit_id": rv.CommitID, "state": "COMMENTED",
		"html_url": fmt.Sprintf("https://github.example/o/r/pull/7#pullrequestreview-%d", g.nextID),
	}
	g.reviews = append(g.reviews, review)
	for _, c := range rv.Comments {
		g.nextID++
		g.comments = append(g.comments, map[string]any{
			"id": g.nextID, "user": g.poster, "body": c.Body, "path": c.Path, "line": c.Line, "commit_id": rv.CommitID,
			"html_url": fmt.Sprintf("https://github.example/o/r/pull/7#discussion_r%d", g.nextID),
		})
	}
	writeGitHubJSON(w, http.StatusOK, review)
}

// checkField decodes field k of m into dst, reporting a missing required
// field or one of the wrong type (kind names the type in the message).
func checkField[T any](t *testing.T, m map[string]json.RawMessage, k, kind string, dst *T, required bool) {
	t.Helper()
	v, ok := m[k]
	if !ok {
		if required {
			t.Errorf("field %q missing", k)
		}
		return
	}
	if err := json.Unmarshal(v, dst); err != nil {
		t.Errorf("field %q is not %s: %s", k, kind, v)
	}
}

func checkString(t *testing.T, m map[string]json.RawMessage, k string, dst *string, required bool) {
	t.Helper()
	checkField(t, m, k, "a string", dst, required)
}

func checkInt(t *testing.T, m map[string]json.RawMessage, k string, dst *int, required bool) {
	t.Helper()
	checkField(t, m, k, "an integer", dst, required)
}

func writeGitHubJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// postTestDiff commits a.go on main and a change to it on a branch, in a
// real repository, and loads the branch's diff: hunks around lines 10-11
// (changed) and 31 (added).
func postTestDiff(t *testing.T) *diffctx.Diff {
	t.Helper()
	lines := make([]string, 40)
	for i := range lines {
		lines[i] = fmt.Sprintf("// line %d", i+1)
	}
	base := strings.Join(lines, "\n") + "\n"
	lines[9], lines[10] = "// changed 10", "// changed 11"
	lines = append(lines[:30], append([]string{"// added 31"}, lines[30:]...)...)
	dir := repoWithChange(t, "a.go", base, strings.Join(lines, "\n")+"\n")
	d, err := diffctx.Load(context.Background(), diffctx.Options{Dir: dir, Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if !d.InHunk("a.go", 10) || !d.InHunk("a.go", 31) || d.InHunk("a.go", 20) || d.InOneHunk("a.go", 11, 31) {
		t.Fatalf("unexpected hunks: %+v", d.File("a.go").Hunks)
	}
	return d
}

// repoWithChange makes a repository, away from the machine's and the
// user's git configuration, whose main branch has file with text base and
// whose feature branch, checked out, changes it to head.
func repoWithChange(t *testing.T, file, base, head string) string {
	t.Helper()
	return gittest.Change(t, map[string]string{file: base}, map[string]string{file: head})
}

func postFindings() []result.Finding {
	return []result.Finding{
		{Path: "a.go", Line: 10, Severity: result.High, Category: "correctness", Title: "Off-by-one in the bound",
			Body: "The loop runs once too often.", Suggestion: "```suggestion\n// fixed 10\n```"},
		{Path: "a.go", Line: 10, EndLine: 12, Severity: result.Medium, Category: "maintainability", Title: "Three lines to name",
			Body: "These lines say the same thing.\n```suggestion\nnot offered\n```"},
		{Path: "a.go", Line: 11, EndLine: 31, Severity: result.Low, Category: "tests", Title: "Spans two hunks",
			Suggestion: "Replace both:\n```suggestion\n// one\n// two\n```"},
		{Path: "a.go", Line: 20, Severity: result.Medium, Category: "performance", Title: "Outside the hunks", Body: "Context line 20 is not in the diff."},
		{Path: "a.go", Severity: result.Info, Category: "docs", Title: "Whole file", Body: "About the file."},
		{Path: "c.go", Line: 3, Severity: result.High, Category: "security", Title: "Not in the change", Body: "c.go is not changed."},
	}
}

func postResult() *result.Result {
	return &result.Result{
		RunID: "run1", Revisions: result.Revisions{Base: "main", Head: "feature", HeadSHA: fakeHead}, Model: "gpt-4o-mini",
		Summary: "Looks fine apart from the loop.", Submitted: true,
		Usage:    result.RunUsage{Requests: 2, Prompt: 5000, Cached: 1000, Completion: 300, Own: 4900},
		Findings: postFindings(),
	}
}

func TestPostGitHub(t *testing.T) {
	d := postTestDiff(t)
	g := newFakeGitHub(t)
	g.perPage = 2 // the second run must page through the comments
	ctx := context.Background()

	// First run: one review, the three findings on hunk lines inline.
	rep, err := Post(ctx, postResult(), d, g.options())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Skipped || rep.Inline != 3 || rep.InBody != 3 || rep.Repeated != 0 || rep.Fallback || rep.ReviewID == 0 || rep.URL == "" {
		t.Errorf("first run: %+v", rep)
	}
	posts := g.posted()
	if len(posts) != 1 {
		t.Fatalf("first run posted %d reviews, want 1", len(posts))
	}
	p := posts[0]
	if p.CommitID != fakeHead {
		t.Errorf("commit_id = %s, want the head %s", p.CommitID, fakeHead)
	}
	fs := postFindings()
	want := []ghDraftComment{
		{Path: "a.go", Line: 10, Side: "RIGHT"},
		{Path: "a.go", StartLine: 10, StartSide: "RIGHT", Line: 12, Side: "RIGHT"},
		{Path: "a.go", Line: 11, Side: "RIGHT"}, // its range leaves the hunk
	}
	if len(p.Comments) != len(want) {
		t.Fatalf("comments = %+v", p.Comments)
	}
	for i, w := range want {
		c := p.Comments[i]
		w.Body = c.Body
		if c != w {
			t.Errorf("comment %d = %+v, want %+v", i, c, w)
		}
		if !strings.HasPrefix(c.Body, "<!-- review:fp="+fs[i].Fingerprint()+" run=run1 -->\n") || !strings.Contains(c.Body, fs[i].Title) {
			t.Errorf("comment %d body:\n%s", i, c.Body)
		}
	}
	// A literal replacement of exactly the comment's lines is offered as
	// a suggested change; no other suggestion block is.
	if !strings.Contains(p.Comments[0].Body, "```suggestion\n// fixed 10\n```") {
		t.Errorf("comment 0 does not offer its suggestion:\n%s", p.Comments[0].Body)
	}
	for _, i := range []int{1, 2} {
		if strings.Contains(p.Comments[i].Body, "```suggestion") {
			t.Errorf("comment %d offers a change for the wrong lines:\n%s", i, p.Comments[i].Body)
		}
	}
	if !strings.Contains(p.Comments[2].Body, "```\n// one\n// two\n```") {
		t.Errorf("comment 2 lost its suggestion's code:\n%s", p.Comments[2].Body)
	}
	if !strings.HasPrefix(p.Body, "<!-- review:run=run1 head="+fakeHead+" -->\n") {
		t.Errorf("review body does not start with its marker:\n%s", p.Body)
	}
	for _, s := range []string{"Looks fine apart from the loop.", "3 commented on the changed lines", "Outside the hunks", "Whole file", "Not in the change",
		"`a.go:20`", "`c.go:3`", "review replay run1", "5,000 prompt tokens (1,000 cached)", "about $0.0009"} {
		if !strings.Contains(p.Body, s) {
			t.Errorf("review body lacks %q:\n%s", s, p.Body)
		}
	}
	for _, f := range fs[:3] {
		if strings.Contains(p.Body, f.Title) {
			t.Errorf("review body repeats inline finding %q", f.Title)
		}
	}

	// Second run on the same head: nothing new is posted.
	rep2, err := Post(ctx, postResult(), d, g.options())
	if err != nil {
		t.Fatal(err)
	}
	if !rep2.Skipped || rep2.ReviewID != rep.ReviewID || rep2.URL != rep.URL {
		t.Errorf("second run: %+v, want skipped with review %d", rep2, rep.ReviewID)
	}
	if n := len(g.posted()); n != 1 {
		t.Fatalf("second run posted again: %d reviews", n)
	}

	// A push: the same findings, one on a moved line and retitled with
	// its line, and a new one. Only the new one is commented.
	r3 := postResult()
	r3.RunID, r3.HeadSHA = "run2", fakeHead2
	r3.Findings[0].Line, r3.Findings[0].Title = 11, "Off-by-one in the bound at line 11"
	r3.Findings = append(r3.Findings, result.Finding{Path: "a.go", Line: 31, Severity: result.Critical, Category: "security", Title: "New problem", Body: "Added line."})
	o := g.options()
	o.HeadSHA = ""
	rep3, err := Post(ctx, r3, d, o)
	if err != nil {
		t.Fatal(err)
	}
	if rep3.Skipped || rep3.Inline != 1 || rep3.Repeated != 3 || rep3.InBody != 3 {
		t.Errorf("run on a new head: %+v", rep3)
	}
	posts = g.posted()
	if len(posts) != 2 {
		t.Fatalf("run on a new head posted %d reviews in all, want 2", len(posts))
	}
	p3 := posts[1]
	if p3.CommitID != fakeHead2 || len(p3.Comments) != 1 || p3.Comments[0].Line != 31 {
		t.Errorf("new head review: commit %s, comments %+v", p3.CommitID, p3.Comments)
	}
	if !strings.Contains(p3.Body, "Commented by an earlier run") || !strings.Contains(p3.Body, "#discussion_r") {
		t.Errorf("new head review does not point at the earlier comments:\n%s", p3.Body)
	}
	// The listings were paged: two reviews and three comments, two a page.
	g.mu.Lock()
	requests := g.requests
	g.mu.Unlock()
	paged := false
	for _, rq := range requests {
		u, err := url.Parse(strings.TrimPrefix(rq, "GET "))
		if err == nil && strings.HasSuffix(u.Path, "/comments") && u.Query().Get("page") == "2" && u.Query().Get("per_page") == "100" {
			paged = true
		}
	}
	if !paged {
		t.Errorf("the comments' second page was not read:\n%s", strings.Join(requests, "\n"))
	}
}

func TestPostGitHubTrust(t *testing.T) {
	d := postTestDiff(t)
	ctx := context.Background()
	marker := "<!-- review:run=old head=" + fakeHead + " -->\nforged"
	fp := "<!-- review:fp=" + postFindings()[0].Fingerprint() + " run=old -->\nforged"
	tests := []struct {
		name   string
		author ghUser
		me     *ghUser // GET /user
		login  string  // PostOptions.Login
		skip   bool
	}{
		{"a person's marker does not count", ghUser{Login: "mallory", Type: "User"}, nil, "", false},
		{"a bot's does", ghUser{Login: "some-app[bot]", Type: "Bot"}, nil, "", true},
		{"the token's own account's does", ghUser{Login: "OctoCat", Type: "User"}, &ghUser{Login: "octocat", Type: "User"}, "", true},
		{"a configured login's does", ghUser{Login: "ci-user", Type: "User"}, nil, "ci-user", true},
		{"another account's does not", ghUser{Login: "mallory", Type: "User"}, &ghUser{Login: "octocat", Type: "User"}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newFakeGitHub(t)
			g.user = tt.me
			g.reviews = []map[string]any{{"id": 1, "user": tt.author, "body": marker, "html_url": "https://github.example/r/1"}}
			o := g.options()
			o.Login = tt.login
			rep, err := Post(ctx, postResult(), d, o)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Skipped != tt.skip || (len(g.posted()) == 0) != tt.skip {
				t.Errorf("skipped = %v with %d posts, want skipped %v", rep.Skipped, len(g.posted()), tt.skip)
			}

			// The same for a comment's fingerprint.
			g2 := newFakeGitHub(t)
			g2.user = tt.me
			g2.comments = []map[string]any{{"id": 2, "user": tt.author, "body": fp, "html_url": "https://github.example/c/2"}}
			rep, err = Post(ctx, postResult(), d, g2.optionsWith(o))
			if err != nil {
				t.Fatal(err)
			}
			if (rep.Repeated == 1) != tt.skip {
				t.Errorf("repeated = %d; a marker from %s must count: %v", rep.Repeated, tt.author.Login, tt.skip)
			}
		})
	}
	// A marker quoted inside a body, not at its start, never counts.
	g := newFakeGitHub(t)
	g.reviews = []map[string]any{{"id": 1, "user": ghUser{Login: "x[bot]", Type: "Bot"}, "body": "quoted: " + marker}}
	if rep, err := Post(ctx, postResult(), d, g.options()); err != nil || rep.Skipped {
		t.Errorf("quoted marker: %+v, %v", rep, err)
	}
}

// optionsWith points o at this fake.
func (g *fakeGitHub) optionsWith(o PostOptions) PostOptions {
	o.APIURL = g.srv.URL + "/api/v3"
	return o
}

func TestPostGitHubPagination(t *testing.T) {
	d := postTestDiff(t)
	g := newFakeGitHub(t)
	g.perPage = 1
	other := ghUser{Login: "dependabot[bot]", Type: "Bot"}
	g.reviews = []map[string]any{
		{"id": 1, "user": other, "body": "LGTM"},
		{"id": 2, "user": other, "body": ""},
		{"id": 3, "user": other, "body": "<!-- review:run=old head=" + fakeHead + " -->\n", "html_url": "https://github.example/r/3"},
	}
	rep, err := Post(context.Background(), postResult(), d, g.options())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Skipped || rep.ReviewID != 3 {
		t.Errorf("the review on page 3 was not found: %+v", rep)
	}

	// A next page named on another host is asked of the API URL all the
	// same: only its number is read, so the token goes nowhere else.
	g.linkHost = "evil.example"
	api, err := url.Parse(g.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	var hosts []string
	o := g.options()
	o.HTTPClient = &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		hosts = append(hosts, r.URL.Host)
		return http.DefaultTransport.RoundTrip(r)
	})}
	rep, err = Post(context.Background(), postResult(), d, o)
	if err != nil || !rep.Skipped || rep.ReviewID != 3 {
		t.Errorf("pages linked on another host: %+v, %v", rep, err)
	}
	for _, h := range hosts {
		if h != api.Host {
			t.Errorf("a request went to %s, not to the API at %s", h, api.Host)
		}
	}
	if len(hosts) < 4 {
		t.Errorf("%d requests; want /user and three pages of reviews", len(hosts))
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestPostGitHubErrors(t *testing.T) {
	d := postTestDiff(t)
	tests := []struct {
		name     string
		list     int
		header   http.Header
		statuses []int
		status   int
		hint     string
	}{
		{"bad token", http.StatusUnauthorized, nil, nil, 401, "GITHUB_TOKEN"},
		{"no access", http.StatusNotFound, nil, nil, 404, "o/r#7 exists"},
		{"rate limit", http.StatusForbidden, http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"1700000000"}}, nil, 403, "rate limit is used up; run again after 2023-11-14T22:13:20Z"},
		{"read-only token", 0, nil, []int{http.StatusForbidden}, 403, "permissions: pull-requests: write"},
		{"unprocessable twice", 0, nil, []int{422, 422}, 422, "pull_request.head.sha"},
		{"server error", 0, nil, []int{502, 502, 502, 502}, 502, "posting the review to o/r#7 (4 attempts): GitHub answered 502 Unprocessable Entity (Line could not be resolved; pull_request_review_thread.line invalid): GitHub had a problem; run again later"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newFakeGitHub(t)
			g.listFail, g.header, g.statuses = tt.list, tt.header, tt.statuses
			_, err := Post(context.Background(), postResult(), d, g.options())
			var gerr *Error
			if !errors.As(err, &gerr) || gerr.Status != tt.status {
				t.Fatalf("error = %v, want a GitHubError with status %d", err, tt.status)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.hint) || strings.Contains(msg, "\n") || strings.Contains(msg, fakeToken) {
				t.Errorf("error %q: want one line with %q and no token", msg, tt.hint)
			}
		})
	}
}

// TestPostGitHubNotUTF8: a finding on a changed line of a file whose name
// is not UTF-8 is not a comment, whose path would reach GitHub as U+FFFD
// and name no file; the body lists it, the name quoted. A run on a new
// head lists it again, as it does every finding off the lines.
func TestPostGitHubNotUTF8(t *testing.T) {
	const name = "caf\xe9.txt"
	dir := gittest.Change(t, map[string]string{"a.go": "package a\n"},
		map[string]string{"a.go": "package a\n\nvar x = 1\n", name: "hello\n"})
	d, err := diffctx.Load(context.Background(), diffctx.Options{Dir: dir, Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if !d.InHunk(name, 1) {
		t.Fatalf("%q line 1 is not in the diff", name)
	}
	r := postResult()
	r.Findings = []result.Finding{
		{Path: "a.go", Line: 3, Severity: result.Low, Category: "style", Title: "Unused variable", Body: "x is never read."},
		{Path: name, Line: 1, Severity: result.Info, Category: "docs", Title: "Greeting", Body: "Say more."},
	}
	g := newFakeGitHub(t)
	for i, head := range []string{fakeHead, fakeHead2} {
		o := g.options()
		o.HeadSHA = head
		rep, err := Post(context.Background(), r, d, o)
		if err != nil {
			t.Fatal(err)
		}
		wantInline, wantRepeated := 1, 0
		if i == 1 {
			wantInline, wantRepeated = 0, 1
		}
		if rep.Inline != wantInline || rep.InBody != 1 || rep.Repeated != wantRepeated || rep.Fallback {
			t.Errorf("run %d: %+v", i+1, rep)
		}
		p := g.posted()[i]
		for _, c := range p.Comments {
			if c.Path != "a.go" {
				t.Errorf("run %d: a comment on %q", i+1, c.Path)
			}
		}
		for _, s := range []string{"**1. [info] Greeting** · `\"caf\\xe9.txt\":1` · docs\n\nSay more.",
			"_GitHub's API cannot name a file whose name is not UTF-8, so the findings on one are listed here"} {
			if !strings.Contains(p.Body, s) {
				t.Errorf("run %d: the body lacks %q:\n%s", i+1, s, p.Body)
			}
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, b := range g.bodies {
		if bytes.Contains(b, []byte(`\ufffd`)) || bytes.Contains(b, []byte("\uFFFD")) || !utf8.Valid(b) {
			t.Errorf("%s sent U+FFFD or bytes that are not UTF-8:\n%s", g.requests[i], b)
		}
	}
}

func TestPostGitHubFallback(t *testing.T) {
	d := postTestDiff(t)
	g := newFakeGitHub(t)
	g.statuses = []int{http.StatusUnprocessableEntity}
	rep, err := Post(context.Background(), postResult(), d, g.options())
	if err != nil {
		t.Fatal(err)
	}
	posts := g.posted()
	if !rep.Fallback || rep.Inline != 0 || rep.InBody != 6 || len(posts) != 2 {
		t.Fatalf("report %+v after %d posts", rep, len(posts))
	}
	if len(posts[0].Comments) != 3 || len(posts[1].Comments) != 0 {
		t.Errorf("comments: first post %d, retry %d", len(posts[0].Comments), len(posts[1].Comments))
	}
	for _, f := range postFindings() {
		if !strings.Contains(posts[1].Body, f.Title) {
			t.Errorf("the retry's body lacks %q", f.Title)
		}
	}
	if strings.Contains(posts[1].Body, "```suggestion") {
		t.Errorf("a suggested change in a review body applies to no line:\n%s", posts[1].Body)
	}
}

func TestPostGitHubOptions(t *testing.T) {
	g := newFakeGitHub(t)
	good := g.options()
	tests := []struct {
		name string
		edit func(*PostOptions, *result.Result)
		want string
	}{
		{"no token", func(o *PostOptions, _ *result.Result) { o.Token = " " }, "no token"},
		{"no repo", func(o *PostOptions, _ *result.Result) { o.Repo = "" }, "not owner/name"},
		{"repo with three parts", func(o *PostOptions, _ *result.Result) { o.Repo = "a/b/c" }, "not owner/name"},
		{"no pull request", func(o *PostOptions, _ *result.Result) { o.PR = 0 }, "pull request number 0"},
		{"no head anywhere", func(o *PostOptions, r *result.Result) { o.HeadSHA, r.HeadSHA = "", "" }, "not a commit SHA"},
		{"a ref, not a SHA", func(o *PostOptions, _ *result.Result) { o.HeadSHA = "refs/pull/7/merge" }, "not a commit SHA"},
		{"API URL without scheme", func(o *PostOptions, _ *result.Result) { o.APIURL = "api.github.com" }, "GITHUB_API_URL"},
	}
	for _, tt := range tests {
		o, r := good, postResult()
		tt.edit(&o, r)
		_, err := Post(context.Background(), r, nil, o)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line with %q", tt.name, err, tt.want)
		}
	}
	if n := len(g.requests); n != 0 {
		t.Errorf("bad options sent %d requests", n)
	}

	// Without a diff every finding goes in the body.
	rep, err := Post(context.Background(), postResult(), nil, good)
	if err != nil || rep.Inline != 0 || rep.InBody != 6 {
		t.Errorf("no diff: %+v, %v", rep, err)
	}
	// A stopped context stops the requests.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Post(ctx, postResult(), nil, good); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestReadPREvent(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, event string
		want        PREvent
		err         string
	}{
		{"pull_request", `{"action":"opened","number":7,"pull_request":{"number":7,"head":{"sha":"abc"}}}`, PREvent{Number: 7, HeadSHA: "abc"}, ""},
		{"number only at top", `{"number":9,"pull_request":{"head":{"sha":"def"}}}`, PREvent{Number: 9, HeadSHA: "def"}, ""},
		{"comment on a pull request", `{"issue":{"number":12,"pull_request":{"url":"x"}}}`, PREvent{Number: 12, HeadSHA: ""}, ""},
		{"comment on an issue", `{"issue":{"number":12}}`, PREvent{}, "not about a pull request"},
		{"comment on an issue, null", `{"issue":{"number":12,"pull_request":null}}`, PREvent{}, "not about a pull request"},
		{"push", `{"ref":"refs/heads/main","after":"abc"}`, PREvent{}, "not about a pull request"},
		{"not JSON", `{`, PREvent{}, "not valid JSON"},
	}
	for _, tt := range tests {
		p := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".json")
		if err := os.WriteFile(p, []byte(tt.event), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadPREvent(p)
		if (err != nil) != (tt.err != "") || (err != nil && !strings.Contains(err.Error(), tt.err)) || got != tt.want {
			t.Errorf("%s: %+v, %v; want %+v, %q", tt.name, got, err, tt.want, tt.err)
		}
		n, err2 := PRFromEvent(p)
		if n != tt.want.Number || (err2 != nil) != (err != nil) {
			t.Errorf("%s: PRFromEvent = %d, %v", tt.name, n, err2)
		}
	}
	for _, p := range []string{"", filepath.Join(dir, "missing.json")} {
		if _, err := ReadPREvent(p); err == nil || !strings.Contains(err.Error(), "GitHub Actions") {
			t.Errorf("ReadPREvent(%q): %v", p, err)
		}
	}
}

func TestCapBody(t *testing.T) {
	long := "<!-- review:run=x head=1 -->\n```go\n" + strings.Repeat("日本", maxBody)
	got := capBody(long)
	if n := len([]rune(got)); n > 65536 {
		t.Errorf("capped body has %d characters", n)
	}
	if !strings.HasPrefix(got, "<!-- review:run=x head=1 -->\n") || !strings.Contains(got, "cut to fit") {
		t.Errorf("capped body lost its marker or the note")
	}
	if strings.Count(got, "```")%2 != 0 {
		t.Error("capped body leaves a fence open")
	}
	if capBody("short") != "short" {
		t.Error("a short body was changed")
	}
}

// FuzzCommentMarkdown checks that a finding's text, whatever the model
// wrote, never offers a suggested change except the one sanctioned block,
// and only where the comment covers the finding's lines.
func FuzzCommentMarkdown(f *testing.F) {
	f.Add("body", "```suggestion\nx\n```", "title")
	f.Add("```suggestion\nsneaky\n```", "```suggestion\na\n```\n```suggestion\nb\n```", "t")
	f.Add("~~~ suggestion\n", "````suggestion\n```\n````", "")
	f.Add("```", "  ```suggestion\n  x\n  ```", "\n")
	f.Add("0", "```suggestion\n```suggestion\n```", "0")
	f.Fuzz(func(t *testing.T, body, suggestion, title string) {
		fd := result.Finding{Path: "a.go", Line: 3, Severity: result.Low, Title: title, Body: body, Suggestion: suggestion}
		for _, applicable := range []bool{false, true} {
			md := commentMarkdown(fd, applicable)
			// Count the blocks GitHub would render as suggested changes:
			// those opened, outside any block, with "suggestion".
			offers, open := 0, ""
			for _, l := range strings.Split(md, "\n") {
				s := strings.TrimSpace(l)
				fence := result.FenceOf(s)
				switch {
				case fence == "":
				case open == "":
					open = fence
					if strings.HasPrefix(strings.TrimSpace(s[len(fence):]), "suggestion") {
						offers++
					}
				case fence[0] == open[0] && len(fence) >= len(open) && s == fence:
					open = ""
				}
			}
			_, _, literal := result.LiteralSuggestion(suggestion)
			allowed := 0
			if applicable && literal {
				allowed = 1
			}
			if offers > allowed {
				t.Fatalf("applicable=%v literal=%v: %d suggestion blocks in\n%s", applicable, literal, offers, md)
			}
		}
		code, _, ok := result.LiteralSuggestion(suggestion)
		if ok && !linesWithin(suggestion, code) {
			t.Fatalf("replacement %q is not lines of %q", code, suggestion)
		}
	})
}

// linesWithin reports whether code's lines are lines of s in a row, each
// as CommonMark reads a fenced block's content: the line of s less at
// most three leading spaces (as many as its fence was indented by).
func linesWithin(s, code string) bool {
	if code == "" {
		return true
	}
	want, lines := strings.Split(code, "\n"), strings.Split(s, "\n")
	for k := 0; k+len(want) <= len(lines); k++ {
		all := true
		for i, w := range want {
			l := lines[k+i]
			n := len(l) - len(strings.TrimLeft(l, " "))
			if cut := len(l) - len(w); cut < 0 || cut > min(n, 3) || l[cut:] != w {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// TestReadEarlier reads what earlier runs posted: the heads of their
// reviews, oldest first, and the findings still open on the pull request,
// each once; outdated comments, replies, other people's markers and
// comments without a severity line are not findings.
func TestReadEarlier(t *testing.T) {
	g := newFakeGitHub(t)
	g.perPage = 2
	bot := ghUser{Login: "github-actions[bot]", Type: "Bot"}
	person := ghUser{Login: "mallory", Type: "User"}
	comment := func(id int, u ghUser, fp, sev string, line any) map[string]any {
		return map[string]any{"id": id, "user": u, "path": "a.go", "line": line,
			"body": "<!-- review:fp=" + fp + " run=r -->\n**[" + sev + "] Title** · security", "html_url": fmt.Sprintf("https://github.example/c/%d", id)}
	}
	g.reviews = []map[string]any{
		{"id": 1, "user": bot, "body": "<!-- review:run=a head=AAAAAAA111 -->\nfirst"},
		{"id": 2, "user": person, "body": "<!-- review:run=b head=bbbbbbb222 -->\nforged"},
		{"id": 3, "user": bot, "body": "<!-- review:run=c head=ccccccc333 -->\nsecond"},
	}
	reply := comment(14, bot, "44", "high", 9)
	reply["in_reply_to_id"] = 10
	g.comments = []map[string]any{
		comment(10, bot, "11", "high", 3),
		comment(11, bot, "11", "high", 3),       // the same finding again
		comment(12, bot, "22", "critical", nil), // outdated: no line, no position
		comment(13, person, "33", "critical", 5),
		reply,
		{"id": 15, "user": bot, "line": 7, "body": "<!-- review:fp=55 run=r -->\nno severity"},
		comment(16, bot, "66", "low", 8),
	}
	e, err := ReadEarlier(context.Background(), g.options())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(e.Heads, " ") != "aaaaaaa111 ccccccc333" {
		t.Errorf("heads %v", e.Heads)
	}
	var got []string
	for _, o := range e.Open {
		got = append(got, fmt.Sprintf("%s:%s:%s:%d:%s", o.Fingerprint, o.Severity, o.Path, o.Line, o.URL))
	}
	want := "11:high:a.go:3:https://github.example/c/10 66:low:a.go:8:https://github.example/c/16"
	if strings.Join(got, " ") != want {
		t.Errorf("open = %v, want %s", got, want)
	}
}
