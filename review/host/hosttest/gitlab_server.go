package hosttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// GitLab is a scripted GitLab REST API v4 under /api/v4, as much of it as
// posting to a merge request uses: GET /user, GET a merge request, its
// versions and notes (two a page, with X-Next-Page and Link headers), POST
// a discussion with a text position, POST a note and PUT one. It checks
// each request as GitLab would (PRIVATE-TOKEN, a JSON body of the
// documented shape, a position on a version of the merge request) and
// keeps what is posted, so a second run sees it. Each merge request starts
// with three notes by people, one of which quotes a review marker.
type GitLab struct {
	// Token is the token it accepts; another gets 401.
	Token string
	// ReadOnly refuses to post (403), as GitLab does a token without the
	// role or scope.
	ReadOnly bool
	// RateLimited answers the first post of a discussion 429 with
	// Retry-After: 0, before acting on it.
	RateLimited bool
	// LostAnswer posts the first discussion and then answers 502, as a
	// proxy that lost GitLab's answer would.
	LostAnswer bool
	// Dir, if set, receives each request as gl-NNN.json and a line per
	// request in requests.log ("METHOD URI STATUS").
	Dir string

	// Versions are the diff versions every merge request has, newest
	// first.
	Versions []GitLabVersion

	// Statuses are the commit statuses set, in order.
	Statuses []map[string]any
	// Members are the access levels of users by ID, inherited ones
	// included (GET /projects/:id/members/all/:user_id); a user not
	// here is not a member (404).
	Members map[int64]int
	// Files are the files of the repository's main branch that the
	// repository files API serves (path → content).
	Files map[string]string

	mu       sync.Mutex
	seq      int
	nextID   int64
	mrs      map[string]*glMR
	awards   map[string][]map[string]any // award emoji by note ID
	redirect string                      // the other host's URL, for GET .../versions
	limited  bool
	lost     bool
	repo     *repo
	opened   []map[string]any // merge requests opened through the API
}

// GitLabVersion is a merge request diff version.
type GitLabVersion struct {
	ID                                           int64
	HeadCommitSHA, BaseCommitSHA, StartCommitSHA string
}

// GitLabUserID is the ID of the token's user, which posts.
const GitLabUserID = 42

type glMR struct {
	notes []map[string]any
}

// DefaultGitLabVersions are two versions with SHAs no repository has, so a
// test can tell the position came from the newest.
var DefaultGitLabVersions = []GitLabVersion{
	{ID: 2, HeadCommitSHA: strings.Repeat("2", 40), BaseCommitSHA: strings.Repeat("b", 40), StartCommitSHA: strings.Repeat("5", 40)},
	{ID: 1, HeadCommitSHA: strings.Repeat("1", 40), BaseCommitSHA: strings.Repeat("a", 40), StartCommitSHA: strings.Repeat("4", 40)},
}

// Start serves g, and with redirect a second host that GET .../versions
// is redirected to (302): the second host answers the versions without
// asking for a token and records in other.log whether one came. It
// returns the API URL (…/api/v4) and a function that stops both.
func (g *GitLab) Start(redirect bool) (api string, stop func()) {
	if g.Versions == nil {
		g.Versions = DefaultGitLabVersions
	}
	g.mrs = map[string]*glMR{}
	main := httptest.NewServer(g)
	stop = main.Close
	if redirect {
		other := httptest.NewServer(http.HandlerFunc(g.serveOther))
		g.redirect = other.URL
		stop = func() { main.Close(); other.Close() }
	}
	return main.URL + "/api/v4", stop
}

func (g *GitLab) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	ServeRecorded(w, r, g.route, g.record)
}

// ServeRecorded answers r with route and then records it, with its body
// and the status it was answered with: the scripted hosts' (GitLab's
// here, GitHub's in the behaviour scripts) one way to log what they got.
func ServeRecorded(w http.ResponseWriter, r *http.Request, route http.HandlerFunc, record func(r *http.Request, body []byte, status int)) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	rec := httptest.NewRecorder()
	route(rec, r)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
	record(r, body, rec.Code)
}

// serveOther is the second host: it answers a merge request's versions
// to anyone, and logs whether a token came.
func (g *GitLab) serveOther(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	token := "none"
	if r.Header.Get("PRIVATE-TOKEN") != "" {
		token = "PRIVATE-TOKEN"
	}
	if g.Dir != "" {
		if f, err := os.OpenFile(filepath.Join(g.Dir, "other.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintf(f, "%s %s token=%s\n", r.Method, r.URL.RequestURI(), token)
			f.Close()
		}
	}
	if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/versions") {
		glJSON(w, http.StatusNotFound, map[string]string{"message": "404 Not Found"})
		return
	}
	g.versions(w, r)
}

var (
	glMRPath   = regexp.MustCompile(`^/api/v4/projects/([^/]+)/merge_requests/(\d+)(/.*)?$`)
	glNotePath = regexp.MustCompile(`^/notes/(\d+)$`)
)

func (g *GitLab) route(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("PRIVATE-TOKEN") != g.Token {
		glJSON(w, http.StatusUnauthorized, map[string]string{"message": "401 Unauthorized"})
		return
	}
	if r.Method != http.MethodGet && r.ContentLength != 0 && r.Header.Get("Content-Type") != "application/json" {
		glJSON(w, http.StatusUnsupportedMediaType, map[string]string{"message": "415 Unsupported Media Type"})
		return
	}
	if r.URL.Path == "/api/v4/user" && r.Method == http.MethodGet {
		glJSON(w, http.StatusOK, map[string]any{"id": GitLabUserID, "username": "project_7_bot_0123", "bot": true})
		return
	}
	if g.routeMore(w, r) || g.routeLearnings(w, r) {
		return
	}
	m := glMRPath.FindStringSubmatch(r.URL.EscapedPath())
	if m == nil {
		glJSON(w, http.StatusNotFound, map[string]string{"message": "404 Not Found"})
		return
	}
	project, _ := url.PathUnescape(m[1])
	mr := g.mr(project + "!" + m[2])
	rest := m[3]
	if g.routeLedger(w, r, mr, rest) || g.routeThreads(w, r, mr, rest) {
		return
	}
	switch {
	case rest == "" && r.Method == http.MethodGet:
		glJSON(w, http.StatusOK, map[string]any{"iid": m[2], "web_url": fmt.Sprintf("https://gitlab.example/%s/-/merge_requests/%s", project, m[2])})
	case rest == "/versions" && r.Method == http.MethodGet:
		if g.redirect != "" {
			http.Redirect(w, r, g.redirect+r.URL.RequestURI(), http.StatusFound)
			return
		}
		g.versions(w, r)
	case rest == "/notes" && r.Method == http.MethodGet:
		glPage(w, r, mr.notes)
	case rest == "/notes" && r.Method == http.MethodPost:
		g.postNote(w, r, mr)
	case rest == "/discussions" && r.Method == http.MethodPost:
		g.postDiscussion(w, r, mr)
	case glNotePath.MatchString(rest) && r.Method == http.MethodPut:
		g.putNote(w, r, mr, glNotePath.FindStringSubmatch(rest)[1])
	default:
		glJSON(w, http.StatusNotFound, map[string]string{"message": "404 Not Found"})
	}
}

func (g *GitLab) versions(w http.ResponseWriter, _ *http.Request) {
	var out []map[string]any
	for _, v := range g.Versions {
		out = append(out, map[string]any{"id": v.ID, "head_commit_sha": v.HeadCommitSHA, "base_commit_sha": v.BaseCommitSHA, "start_commit_sha": v.StartCommitSHA, "state": "collected"})
	}
	glJSON(w, http.StatusOK, out)
}

// mr returns a merge request's state, made with the people's notes on
// first use.
func (g *GitLab) mr(key string) *glMR {
	if m, ok := g.mrs[key]; ok {
		return m
	}
	m := &glMR{}
	for i, who := range []string{"alice", "bob", "carol"} {
		body := "Why this name?"
		if who == "bob" {
			// A person quoting a marker: not review's, not trusted.
			body = "<!-- review:run=copied head=" + strings.Repeat("2", 40) + " -->\nLooks fine."
		}
		m.notes = append(m.notes, g.note(int64(i+1), who, body, nil))
	}
	g.mrs[key] = m
	return m
}

func (g *GitLab) note(author int64, who, body string, pos map[string]any) map[string]any {
	g.nextID++
	n := map[string]any{
		"id": 1000 + g.nextID, "body": body, "system": false, "type": nil,
		"author":     map[string]any{"id": author, "username": who},
		"resolvable": false,
	}
	if pos != nil {
		n["type"], n["position"], n["resolvable"], n["resolved"] = "DiffNote", pos, true, false
	}
	return n
}

// glPage serves one page of two items, with the headers GitLab sends.
func glPage(w http.ResponseWriter, r *http.Request, items []map[string]any) {
	page := 1
	if p := r.URL.Query().Get("page"); p != "" {
		var err error
		if page, err = strconv.Atoi(p); err != nil || page < 1 {
			glJSON(w, http.StatusBadRequest, map[string]string{"error": "page is invalid"})
			return
		}
	}
	const size = 2
	from := min((page-1)*size, len(items))
	to := min(from+size, len(items))
	w.Header().Set("X-Page", strconv.Itoa(page))
	w.Header().Set("X-Total", strconv.Itoa(len(items)))
	if to < len(items) {
		w.Header().Set("X-Next-Page", strconv.Itoa(page+1))
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(page+1))
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s?%s>; rel="next"`, r.Host, r.URL.Path, q.Encode()))
	} else {
		w.Header().Set("X-Next-Page", "")
	}
	glJSON(w, http.StatusOK, append([]map[string]any{}, items[from:to]...))
}

// noteBody reads the body of a note posted, answering as GitLab does
// when the token may not write or the body is missing or too long.
func (g *GitLab) noteBody(w http.ResponseWriter, r *http.Request) (string, bool) {
	if g.ReadOnly {
		glJSON(w, http.StatusForbidden, map[string]string{"message": "403 Forbidden"})
		return "", false
	}
	var in struct {
		Body *string `json:"body"`
	}
	if !glDecode(w, r, &in) {
		return "", false
	}
	if in.Body == nil || *in.Body == "" || len(*in.Body) > 1_000_000 {
		glJSON(w, http.StatusBadRequest, map[string]string{"error": "body is missing or too long"})
		return "", false
	}
	return *in.Body, true
}

func (g *GitLab) postNote(w http.ResponseWriter, r *http.Request, mr *glMR) {
	body, ok := g.noteBody(w, r)
	if !ok {
		return
	}
	n := g.note(GitLabUserID, "project_7_bot_0123", body, nil)
	mr.notes = append(mr.notes, n)
	glJSON(w, http.StatusCreated, n)
}

func (g *GitLab) putNote(w http.ResponseWriter, r *http.Request, mr *glMR, id string) {
	if g.ReadOnly {
		glJSON(w, http.StatusForbidden, map[string]string{"message": "403 Forbidden"})
		return
	}
	var in struct {
		Body *string `json:"body"`
	}
	if !glDecode(w, r, &in) {
		return
	}
	for _, n := range mr.notes {
		if fmt.Sprint(n["id"]) != id {
			continue
		}
		if n["author"].(map[string]any)["id"] != int64(GitLabUserID) {
			glJSON(w, http.StatusForbidden, map[string]string{"message": "403 Forbidden"})
			return
		}
		if in.Body == nil || *in.Body == "" {
			glJSON(w, http.StatusBadRequest, map[string]string{"error": "body is missing"})
			return
		}
		n["body"] = *in.Body
		glJSON(w, http.StatusOK, n)
		return
	}
	glJSON(w, http.StatusNotFound, map[string]string{"message": "404 Note Not Found"})
}

// glPosition is a discussion's position on a version of the merge request.
type glPosition struct {
	PositionType string `json:"position_type"`
	BaseSHA      string `json:"base_sha"`
	StartSHA     string `json:"start_sha"`
	HeadSHA      string `json:"head_sha"`
	NewPath      string `json:"new_path"`
	OldPath      string `json:"old_path"`
	NewLine      int    `json:"new_line"`
	OldLine      int    `json:"old_line"`
}

// discussionProblem is what GitLab would refuse a new discussion for, ""
// when nothing.
func (g *GitLab) discussionProblem(body *string, p *glPosition) string {
	onVersion := false
	for _, v := range g.Versions {
		onVersion = onVersion || p != nil && p.BaseSHA == v.BaseCommitSHA && p.StartSHA == v.StartCommitSHA && p.HeadSHA == v.HeadCommitSHA
	}
	switch {
	case body == nil || *body == "":
		return "body is missing"
	case p == nil:
		return "position is missing"
	case p.PositionType != "text":
		return "position_type is not text"
	case !onVersion:
		return "the position's SHAs are not those of a version of the merge request"
	case p.NewPath == "" || p.OldPath == "":
		return "new_path and old_path are required"
	case p.NewLine < 0 || p.OldLine < 0 || p.NewLine == 0 && p.OldLine == 0:
		return "line_code can't be blank"
	}
	return ""
}

// postDiscussion accepts a discussion with a text position on a version
// of the merge request: its three SHAs, both paths, and a new line (added or context)
// or an old one (deleted or context).
func (g *GitLab) postDiscussion(w http.ResponseWriter, r *http.Request, mr *glMR) {
	if g.ReadOnly {
		glJSON(w, http.StatusForbidden, map[string]string{"message": "403 Forbidden"})
		return
	}
	if g.RateLimited && !g.limited {
		g.limited = true
		w.Header().Set("Retry-After", "0")
		glJSON(w, http.StatusTooManyRequests, map[string]string{"message": "Retry later"})
		return
	}
	var in struct {
		Body     *string     `json:"body"`
		Position *glPosition `json:"position"`
	}
	if !glDecode(w, r, &in) {
		return
	}
	p := in.Position
	if problem := g.discussionProblem(in.Body, p); problem != "" {
		glJSON(w, http.StatusBadRequest, map[string]any{"message": "400 Bad request - Note {:line_code=>[\"" + problem + "\"]}"})
		return
	}
	pos := map[string]any{"position_type": "text", "base_sha": p.BaseSHA, "start_sha": p.StartSHA, "head_sha": p.HeadSHA, "new_path": p.NewPath, "old_path": p.OldPath}
	if p.NewLine > 0 {
		pos["new_line"] = p.NewLine
	}
	if p.OldLine > 0 {
		pos["old_line"] = p.OldLine
	}
	n := g.note(GitLabUserID, "project_7_bot_0123", *in.Body, pos)
	mr.notes = append(mr.notes, n)
	if g.LostAnswer && !g.lost {
		g.lost = true
		glJSON(w, http.StatusBadGateway, map[string]string{"message": "502 Bad Gateway"})
		return
	}
	g.nextID++
	id := fmt.Sprintf("%040x", g.nextID)
	n["discussion_id"] = id
	glJSON(w, http.StatusCreated, map[string]any{"id": id, "individual_note": false, "notes": []map[string]any{n}})
}

// glDecode reads a JSON body with no unknown fields, or answers 400.
func glDecode(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		glJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid JSON: " + err.Error()})
		return false
	}
	return true
}

func (g *GitLab) record(r *http.Request, body []byte, status int) {
	WriteRequest(g.Dir, "gl", &g.seq, r, body, status, "PRIVATE-TOKEN", "Content-Type")
}

// WriteRequest records, in dir, a request a scripted host answered: as
// prefix-NNN.json (NNN counted by seq) with its method, path, query,
// status, the headers named and its body (as JSON when it is), and as a
// line of requests.log. With dir "" it records nothing.
func WriteRequest(dir, prefix string, seq *int, r *http.Request, body []byte, status int, headers ...string) {
	if dir == "" {
		return
	}
	*seq++
	h := map[string]string{}
	for _, k := range headers {
		h[k] = r.Header.Get(k)
	}
	entry := map[string]any{"method": r.Method, "path": r.URL.Path, "query": r.URL.RawQuery, "status": status, "headers": h}
	if len(body) > 0 {
		if json.Valid(body) {
			entry["body"] = json.RawMessage(body)
		} else {
			entry["body"] = string(body)
		}
	}
	b, err := json.MarshalIndent(entry, "", "  ")
	if err != nil {
		b = []byte(err.Error())
	}
	os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%03d.json", prefix, *seq)), append(b, '\n'), 0o644)
	if f, err := os.OpenFile(filepath.Join(dir, "requests.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		fmt.Fprintf(f, "%s %s %d\n", r.Method, r.URL.RequestURI(), status)
		f.Close()
	}
}

func glJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// Notes returns a copy of the notes of merge request project!iid, oldest
// first.
func (g *GitLab) Notes(project string, iid int) []map[string]any {
	g.mu.Lock()
	defer g.mu.Unlock()
	m, ok := g.mrs[fmt.Sprintf("%s!%d", project, iid)]
	if !ok {
		return nil
	}
	out := make([]map[string]any, len(m.notes))
	for i, n := range m.notes {
		c := make(map[string]any, len(n))
		for k, v := range n {
			c[k] = v
		}
		out[i] = c
	}
	return out
}
