package hosttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Gitea is a scripted Gitea (and Forgejo) REST API under /api/v1, as much
// of it as posting a review, review comment and the ledger use, in the
// shapes of Gitea's swagger (templates/swagger/v1_json.tmpl of
// go-gitea/gitea; Forgejo serves the same): GET /user; GET
// /repos/{owner}/{repo}/pulls/{index} (PullRequest); GET and POST
// .../pulls/{index}/reviews (PullReview, CreatePullReviewOptions with
// CreatePullReviewComment: path, new_position, old_position, body); GET
// .../pulls/{index}/reviews/{id}/comments (PullReviewComment, its resolver
// a User once a person resolved the conversation); GET and POST
// /repos/{owner}/{repo}/issues/{index}/comments and PATCH
// .../issues/comments/{id} (Comment, CreateIssueCommentOption,
// EditIssueCommentOption); GET .../issues/comments/{id}/reactions
// (Reaction); GET .../collaborators/{collaborator}/permission
// (RepoCollaboratorPermission); POST .../statuses/{sha}
// (CreateStatusOption). Listings take page and limit and answer two items
// a page at most, with a Link header to the next, as Gitea sends it.
//
// It checks each request as Gitea would: the token in "Authorization:
// token …" (401 otherwise), a JSON body of the documented shape and
// nothing else (422), a commit SHA where one is named. What is posted is
// kept, by the token's user (gitea-actions, as the Actions token is), so a
// second run sees it. Each pull request starts with two comments by
// people, one quoting a review marker, and a review by alice.
type Gitea struct {
	// Token is the token it accepts; another gets 401.
	Token string
	// Dir, if set, receives each request as gt-NNN.json and a line per
	// request in requests.log.
	Dir string
	// ReadOnly refuses every post (403), as Gitea does a token without
	// write access, such as the Actions token of a fork's pull request.
	ReadOnly bool
	// Head is the pull requests' head commit, as GET .../pulls/{index}
	// answers it.
	Head string
	// Fail answers the first Fail requests 500, as a Gitea behind a proxy
	// that is restarting.
	Fail int
	// Huge answers GET /user with a body of 17 MiB.
	Huge bool
	// Unplaceable refuses a review with comments on lines (422), as Gitea
	// does a line its diff does not hold.
	Unplaceable bool

	mu       sync.Mutex
	seq      int
	nextID   int64
	served   int
	prs      map[string]*gtPR
	writers  map[string]string
	statuses []map[string]any
}

// gtPR is the state of one pull request: its conversation's comments, its
// reviews, their comments on lines, and reactions by comment ID.
type gtPR struct {
	comments  []map[string]any
	reviews   []map[string]any
	lines     []map[string]any
	reactions map[int64][]map[string]any
}

// giteaMe is the token's user: the Actions token's, as Gitea names it.
var giteaMe = map[string]any{"id": -2, "login": "gitea-actions", "full_name": "Gitea Actions"}

// Start serves the API until stop is called, and returns its root
// (…/api/v1), as Gitea Actions sets GITHUB_API_URL.
func (g *Gitea) Start() (api string, stop func()) {
	g.prs = map[string]*gtPR{}
	g.writers = map[string]string{"alice": "write", "bob": "admin", "carol": "write", "owner": "owner"}
	srv := httptest.NewServer(g)
	return srv.URL + "/api/v1", srv.Close
}

func (g *Gitea) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	ServeRecorded(w, r, g.route, func(r *http.Request, body []byte, status int) {
		WriteRequest(g.Dir, "gt", &g.seq, r, body, status, "Authorization", "Content-Type")
	})
}

var gtPath = regexp.MustCompile(`^/api/v1/repos/([^/]+)/([^/]+)/(pulls|issues|collaborators|statuses)/([^/]+)(?:/(.*))?$`)

// route checks the token and answers by path.
func (g *Gitea) route(w http.ResponseWriter, r *http.Request) {
	g.served++
	switch {
	case r.Header.Get("Authorization") != "token "+g.Token:
		gtJSON(w, http.StatusUnauthorized, map[string]string{"message": "user does not exist [uid: 0, name: ]", "url": "https://gitea.example/api/swagger"})
		return
	case g.served <= g.Fail:
		gtJSON(w, http.StatusInternalServerError, map[string]string{"message": "internal error"})
		return
	case r.Method != http.MethodGet && r.Method != http.MethodDelete && r.Header.Get("Content-Type") != "application/json":
		gtJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Content-Type is " + r.Header.Get("Content-Type")})
		return
	}
	if r.URL.Path == "/api/v1/user" && r.Method == http.MethodGet {
		if g.Huge {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id": -2, "login": "gitea-actions", "full_name": "%s"}`, strings.Repeat("x", 17<<20))
			return
		}
		giteaAnswer(w, http.StatusOK, "User", giteaMe)
		return
	}
	if err := checkBody(r); err != nil {
		gtJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": err.Error()})
		return
	}
	m := gtPath.FindStringSubmatch(r.URL.Path)
	if m == nil {
		gtJSON(w, http.StatusNotFound, map[string]string{"message": "not found"})
		return
	}
	repo, kind, id, rest := m[1]+"/"+m[2], m[3], m[4], m[5]
	switch kind {
	case "pulls":
		g.pulls(w, r, repo, id, rest)
	case "issues":
		g.issues(w, r, repo, id, rest)
	case "collaborators":
		g.permission(w, r, id, rest)
	case "statuses":
		g.status(w, r, id, rest)
	}
}

// pr is the state of pull request n of repo, made on first use.
func (g *Gitea) pr(repo, n string) *gtPR {
	key := repo + "#" + n
	if p, ok := g.prs[key]; ok {
		return p
	}
	p := &gtPR{reactions: map[int64][]map[string]any{}}
	p.comments = append(p.comments, g.comment(repo, n, "alice", "Looks fine to me."),
		g.comment(repo, n, "mallory", "<!-- review:run=forged head=0000000000000000000000000000000000000000 -->\nI am the review now."))
	rv := g.review(repo, n, "alice", "One question.", g.Head)
	p.reviews = append(p.reviews, rv)
	p.lines = append(p.lines, g.line(repo, n, rv, "alice", "app/handler.go", 1, "Why this name?"))
	g.prs[key] = p
	return p
}

func (g *Gitea) user(login string) map[string]any {
	if login == "gitea-actions" {
		return giteaMe
	}
	return map[string]any{"id": int64(len(login)) * 100, "login": login}
}

func (g *Gitea) comment(repo, n, login, body string) map[string]any {
	g.nextID++
	return map[string]any{"id": g.nextID, "body": body, "user": g.user(login),
		"html_url": fmt.Sprintf("https://gitea.example/%s/pulls/%s#issuecomment-%d", repo, n, g.nextID)}
}

func (g *Gitea) review(repo, n, login, body, commit string) map[string]any {
	g.nextID++
	return map[string]any{"id": g.nextID, "body": body, "user": g.user(login), "state": "COMMENT", "commit_id": commit,
		"html_url": fmt.Sprintf("https://gitea.example/%s/pulls/%s#pullrequestreview-%d", repo, n, g.nextID)}
}

func (g *Gitea) line(repo, n string, rv map[string]any, login, path string, pos int, body string) map[string]any {
	g.nextID++
	return map[string]any{"id": g.nextID, "body": body, "user": g.user(login), "path": path, "position": pos, "original_position": 0,
		"resolver": nil, "pull_request_review_id": rv["id"], "commit_id": rv["commit_id"],
		"html_url": fmt.Sprintf("https://gitea.example/%s/pulls/%s/files#issuecomment-%d", repo, n, g.nextID)}
}

// pulls answers GET .../pulls/{index}, and its reviews.
func (g *Gitea) pulls(w http.ResponseWriter, r *http.Request, repo, n, rest string) {
	if _, err := strconv.Atoi(n); err != nil {
		gtJSON(w, http.StatusNotFound, map[string]string{"message": "pull request does not exist"})
		return
	}
	p := g.pr(repo, n)
	switch {
	case rest == "" && r.Method == http.MethodGet:
		num, _ := strconv.Atoi(n)
		giteaAnswer(w, http.StatusOK, "PullRequest", map[string]any{"number": num, "state": "open", "html_url": "https://gitea.example/" + repo + "/pulls/" + n,
			"head": map[string]any{"sha": g.Head, "ref": "feature"}, "base": map[string]any{"ref": "main"}})
	case rest == "reviews" && r.Method == http.MethodGet:
		gtPage(w, r, "PullReview", p.reviews)
	case rest == "reviews" && r.Method == http.MethodPost:
		g.createReview(w, r, repo, n, p)
	case strings.HasPrefix(rest, "reviews/") && strings.HasSuffix(rest, "/comments") && r.Method == http.MethodGet:
		id, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(rest, "reviews/"), "/comments"), 10, 64)
		var out []map[string]any
		for _, l := range p.lines {
			if l["pull_request_review_id"] == id {
				out = append(out, l)
			}
		}
		gtPage(w, r, "PullReviewComment", out)
	default:
		gtJSON(w, http.StatusNotFound, map[string]string{"message": "not found"})
	}
}

var gtSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// gtReview is CreatePullReviewOptions.
type gtReview struct {
	Body     *string `json:"body"`
	CommitID *string `json:"commit_id"`
	Event    *string `json:"event"`
	Comments []struct {
		Body        *string `json:"body"`
		Path        *string `json:"path"`
		NewPosition int64   `json:"new_position"`
		OldPosition int64   `json:"old_position"`
	} `json:"comments"`
}

// problems are what Gitea's validation says of rv.
func (rv *gtReview) problems() []string {
	var out []string
	switch {
	case rv.CommitID != nil && !gtSHA.MatchString(*rv.CommitID):
		out = append(out, "commit_id is not a commit SHA")
	case rv.Event == nil || !strings.Contains(" APPROVED PENDING COMMENT REQUEST_CHANGES ", " "+*rv.Event+" "):
		out = append(out, "event is not a ReviewStateType")
	case *rv.Event == "COMMENT" && (rv.Body == nil || strings.TrimSpace(*rv.Body) == "") && len(rv.Comments) == 0:
		out = append(out, "review event COMMENT requires a body or a comment")
	}
	for i, c := range rv.Comments {
		switch {
		case c.Path == nil || *c.Path == "":
			out = append(out, fmt.Sprintf("comment %d has no path", i))
		case c.NewPosition <= 0 && c.OldPosition <= 0 || c.NewPosition < 0 || c.OldPosition < 0:
			out = append(out, fmt.Sprintf("comment %d has no line", i))
		case c.Body == nil || *c.Body == "":
			out = append(out, fmt.Sprintf("comment %d has no body", i))
		}
	}
	return out
}

func (g *Gitea) createReview(w http.ResponseWriter, r *http.Request, repo, n string, p *gtPR) {
	if g.ReadOnly {
		gtJSON(w, http.StatusForbidden, map[string]string{"message": "user should have a permission to write to the repository"})
		return
	}
	var rv gtReview
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rv); err != nil {
		gtJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "[]: " + err.Error()})
		return
	}
	if problems := rv.problems(); len(problems) > 0 {
		gtJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": strings.Join(problems, "; ")})
		return
	}
	if g.Unplaceable && len(rv.Comments) > 0 {
		gtJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "the line is not in the diff of the pull request"})
		return
	}
	commit, body := g.Head, ""
	if rv.CommitID != nil {
		commit = *rv.CommitID
	}
	if rv.Body != nil {
		body = *rv.Body
	}
	review := g.review(repo, n, "gitea-actions", body, commit)
	review["comments_count"] = len(rv.Comments)
	p.reviews = append(p.reviews, review)
	for _, c := range rv.Comments {
		l := g.line(repo, n, review, "gitea-actions", *c.Path, int(c.NewPosition), *c.Body)
		l["original_position"] = c.OldPosition
		p.lines = append(p.lines, l)
	}
	giteaAnswer(w, http.StatusOK, "PullReview", review)
}

// issues answers the conversation's comments and a comment's reactions.
func (g *Gitea) issues(w http.ResponseWriter, r *http.Request, repo, id, rest string) {
	switch {
	case id == "comments":
		g.issueComment(w, r, rest)
	case rest == "comments" && r.Method == http.MethodGet:
		gtPage(w, r, "Comment", g.pr(repo, id).comments)
	case rest == "comments" && r.Method == http.MethodPost:
		body, ok := gtBody(w, r)
		if !ok {
			return
		}
		if g.ReadOnly {
			gtJSON(w, http.StatusForbidden, map[string]string{"message": "user should have a permission to write to the repository"})
			return
		}
		p := g.pr(repo, id)
		cm := g.comment(repo, id, "gitea-actions", body)
		p.comments = append(p.comments, cm)
		giteaAnswer(w, http.StatusCreated, "Comment", cm)
	default:
		gtJSON(w, http.StatusNotFound, map[string]string{"message": "not found"})
	}
}

// issueComment answers PATCH .../issues/comments/{id} and GET
// .../issues/comments/{id}/reactions, for a comment of the conversation
// or on a line.
func (g *Gitea) issueComment(w http.ResponseWriter, r *http.Request, rest string) {
	idText, sub, _ := strings.Cut(rest, "/")
	id, _ := strconv.ParseInt(idText, 10, 64)
	p, c := g.find(id)
	switch {
	case c == nil:
		gtJSON(w, http.StatusNotFound, map[string]string{"message": "comment does not exist"})
	case sub == "reactions" && r.Method == http.MethodGet:
		out := p.reactions[id]
		if out == nil {
			out = []map[string]any{}
		}
		giteaAnswer(w, http.StatusOK, "[]Reaction", out)
	case sub == "" && r.Method == http.MethodPatch:
		body, ok := gtBody(w, r)
		if !ok {
			return
		}
		if g.ReadOnly || c["user"].(map[string]any)["login"] != "gitea-actions" {
			gtJSON(w, http.StatusForbidden, map[string]string{"message": "user should be the poster"})
			return
		}
		c["body"] = body
		giteaAnswer(w, http.StatusOK, "Comment", c)
	default:
		gtJSON(w, http.StatusNotFound, map[string]string{"message": "not found"})
	}
}

// find finds a comment of any pull request by ID.
func (g *Gitea) find(id int64) (*gtPR, map[string]any) {
	for _, p := range g.prs {
		for _, cs := range [][]map[string]any{p.comments, p.lines} {
			for _, c := range cs {
				if c["id"] == id {
					return p, c
				}
			}
		}
	}
	return nil, nil
}

func (g *Gitea) permission(w http.ResponseWriter, r *http.Request, login, rest string) {
	if rest != "permission" || r.Method != http.MethodGet {
		gtJSON(w, http.StatusNotFound, map[string]string{"message": "not found"})
		return
	}
	perm, ok := g.writers[login]
	if !ok {
		perm = "read" // anyone may read a public repository
	}
	giteaAnswer(w, http.StatusOK, "RepoCollaboratorPermission", map[string]any{"permission": perm, "role_name": perm, "user": g.user(login)})
}

// status answers POST .../statuses/{sha} (CreateStatusOption).
func (g *Gitea) status(w http.ResponseWriter, r *http.Request, sha, rest string) {
	if rest != "" || r.Method != http.MethodPost {
		gtJSON(w, http.StatusNotFound, map[string]string{"message": "not found"})
		return
	}
	var st struct {
		State       string `json:"state"`
		Context     string `json:"context"`
		Description string `json:"description"`
		TargetURL   string `json:"target_url"`
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		gtJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": err.Error()})
		return
	}
	switch {
	case g.ReadOnly:
		gtJSON(w, http.StatusForbidden, map[string]string{"message": "user should have a permission to write to the repository"})
	case !gtSHA.MatchString(sha):
		gtJSON(w, http.StatusNotFound, map[string]string{"message": "sha not found"})
	case !strings.Contains(" pending success error failure warning ", " "+st.State+" "):
		gtJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "state is not a CommitStatusState: " + st.State})
	default:
		out := map[string]any{"status": st.State, "context": st.Context, "description": st.Description, "sha": sha}
		g.statuses = append(g.statuses, out)
		giteaAnswer(w, http.StatusCreated, "CommitStatus", out)
	}
}

// checkBody checks the body of a request that sends one against its
// definition in Gitea's swagger (CreatePullReviewOptions,
// CreateIssueCommentOption, EditIssueCommentOption, CreateStatusOption).
func checkBody(r *http.Request) error {
	def := ""
	switch p := r.URL.Path; {
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/reviews"):
		def = "CreatePullReviewOptions"
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/comments"):
		def = "CreateIssueCommentOption"
	case r.Method == http.MethodPatch && strings.Contains(p, "/issues/comments/"):
		def = "EditIssueCommentOption"
	case r.Method == http.MethodPost && strings.Contains(p, "/statuses/"):
		def = "CreateStatusOption"
	default:
		return nil
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err := ValidateGitea(def, body); err != nil {
		return fmt.Errorf("the body is not a %s: %v", def, err)
	}
	return nil
}

// gtBody reads {"body": "..."} (CreateIssueCommentOption,
// EditIssueCommentOption), not empty.
func gtBody(w http.ResponseWriter, r *http.Request) (string, bool) {
	var in struct {
		Body *string `json:"body"`
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil || in.Body == nil || *in.Body == "" {
		gtJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "[Body]: Required"})
		return "", false
	}
	return *in.Body, true
}

// gtPage serves one page of a listing (page, limit: at most two a page
// here), with a Link header to the next, as Gitea sends it.
func gtPage(w http.ResponseWriter, r *http.Request, def string, items []map[string]any) {
	page, limit := 1, 2
	if p := r.URL.Query().Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			gtJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "page must be a positive integer"})
			return
		}
		page = n
	}
	if l, err := strconv.Atoi(r.URL.Query().Get("limit")); err == nil && l > 0 && l < limit {
		limit = l
	}
	from := min((page-1)*limit, len(items))
	to := min(from+limit, len(items))
	if to < len(items) {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(page+1))
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s?%s>; rel="next"`, r.Host, r.URL.Path, q.Encode()))
	}
	w.Header().Set("X-Total-Count", strconv.Itoa(len(items)))
	giteaAnswer(w, http.StatusOK, "[]"+def, append([]map[string]any{}, items[from:to]...))
}

func gtJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json;charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// Threads returns the IDs of the comments on lines review posted on pull
// request n that start a finding's thread (their body starts with a
// finding's marker), in the order posted.
func (g *Gitea) Threads(n string) []int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	var ids []int64
	for key, p := range g.prs {
		if !strings.HasSuffix(key, "#"+n) {
			continue
		}
		for _, l := range p.lines {
			if l["user"].(map[string]any)["login"] == "gitea-actions" && strings.HasPrefix(l["body"].(string), "<!-- review:fp=") {
				ids = append(ids, l["id"].(int64))
			}
		}
	}
	return ids
}

// Resolve marks the conversation of comment id resolved by login, as the
// web page's "Resolve conversation" does; "" unresolves it.
func (g *Gitea) Resolve(id int64, login string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, c := g.find(id); c != nil {
		c["resolver"] = nil
		if login != "" {
			c["resolver"] = g.user(login)
		}
	}
}

// React adds login's reaction (Gitea's content, "-1" for 👎) to comment id.
func (g *Gitea) React(id int64, login, content string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if p, c := g.find(id); c != nil {
		p.reactions[id] = append(p.reactions[id], map[string]any{"content": content, "user": g.user(login)})
	}
}

// Replies returns the bodies of the comments on lines review posted on
// the line of comment id after it, its replies in that conversation.
func (g *Gitea) Replies(id int64) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	p, c := g.find(id)
	if c == nil {
		return nil
	}
	var out []string
	for _, l := range p.lines {
		if l["id"].(int64) > id && l["path"] == c["path"] && l["position"] == c["position"] {
			out = append(out, l["body"].(string))
		}
	}
	return out
}

// Statuses returns the commit statuses set, in order.
func (g *Gitea) Statuses() []map[string]any {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]map[string]any(nil), g.statuses...)
}
