package hosttest

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Start serves the API until stop is called, and returns its REST root
// (…/api/v3), as GITHUB_API_URL names it.
func (g *GitHub) Start() (api string, stop func()) {
	g.prs = map[string]*ghPR{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v3/user", func(w http.ResponseWriter, r *http.Request) {
		ghJSON(w, http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration"})
	})
	mux.HandleFunc("GET /api/v3/repos/{owner}/{repo}/pulls/{n}/reviews", g.listReviews)
	mux.HandleFunc("GET /api/v3/repos/{owner}/{repo}/pulls/{n}/comments", g.listComments)
	mux.HandleFunc("POST /api/v3/repos/{owner}/{repo}/pulls/{n}/reviews", g.createReview)
	g.routeConversation(mux)
	g.routeLedger(mux)
	g.repo = newRepo(g.Files)
	g.routeLearnings(mux)
	g.mux = mux
	srv := httptest.NewServer(g)
	return srv.URL + "/api/v3", srv.Close
}

// GitHub is a scripted GitHub REST API under /api/v3 (as on GitHub
// Enterprise), with its GraphQL API at /api/graphql, as much of them as
// posting a review, review comment and the ledger use: GET /user (403, as
// for the Actions token), GET and POST /repos/{owner}/{repo}/pulls/{n}/reviews
// and GET .../comments, two items a page with Link headers. Each pull
// request starts with two reviews and three comments by people; what is
// posted is kept, by github-actions[bot], so a second run sees it. A
// request with another token gets 401; one without GitHub's headers, or a
// review that is not the documented shape, gets 400 or 422 saying why.
type GitHub struct {
	// Token is the token it accepts (Bearer); another gets 401.
	Token string
	// Dir, if set, receives each request as gh-NNN.json and a line per
	// request in requests.log.
	Dir string
	// ReadOnly refuses to create reviews (403), as GitHub does the
	// read-only token of a pull request from a fork.
	ReadOnly bool
	// Head is the pull requests' head commit, as GET .../pulls/{n}
	// answers it.
	Head string
	// Files are the files of the repository's main branch that the
	// contents API serves (path → content), such as .review/learnings.md.
	Files map[string]string

	mux *http.ServeMux
	// before, if set, may answer a request before the mux does.
	before func(http.ResponseWriter, *http.Request) bool

	mu       sync.Mutex
	seq      int
	nextID   int64
	prs      map[string]*ghPR
	statuses []map[string]any
	ledger   ghLedger
	repo     *repo
	pulls    []map[string]any
}

// ghPageSize is small so that a few reviews already take two pages.
const ghPageSize = 2

// ghPR is the state of one pull request, in GitHub's response shapes:
// reviews, review comments, and the comments of its conversation.
type ghPR struct {
	reviews, comments, issueComments []map[string]any
}

func (g *GitHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	ServeRecorded(w, r, g.check, g.record)
}

// check answers as GitHub would a request with a wrong token or without
// the headers the REST API asks for, and routes the others.
func (g *GitHub) check(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+g.Token {
		ghJSON(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"})
		return
	}
	for k, want := range map[string]string{"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"} {
		if got := r.Header.Get(k); got != want {
			ghJSON(w, http.StatusBadRequest, map[string]string{"message": fmt.Sprintf("header %s is %q, want %q", k, got, want)})
			return
		}
	}
	if r.Header.Get("User-Agent") == "" {
		ghJSON(w, http.StatusForbidden, map[string]string{"message": "Request forbidden by administrative rules. Please make sure your request has a User-Agent header"})
		return
	}
	if g.before != nil && g.before(w, r) {
		return
	}
	g.mux.ServeHTTP(w, r)
}

func (g *GitHub) record(r *http.Request, body []byte, status int) {
	WriteRequest(g.Dir, "gh", &g.seq, r, body, status, "Authorization", "Accept", "X-GitHub-Api-Version", "Content-Type")
}

// pr returns the state of the pull request a request is about, made with
// the people's reviews and comments on first use.
func (g *GitHub) pr(r *http.Request) *ghPR {
	key := r.PathValue("owner") + "/" + r.PathValue("repo") + "#" + r.PathValue("n")
	if p, ok := g.prs[key]; ok {
		return p
	}
	p := &ghPR{}
	for _, who := range []string{"alice", "bob"} {
		p.reviews = append(p.reviews, g.item(r, who, "User", "Looks fine to me.", "pullrequestreview-"))
	}
	for _, who := range []string{"alice", "bob", "carol"} {
		p.comments = append(p.comments, g.item(r, who, "User", "Why this name?", "discussion_r"))
	}
	g.prs[key] = p
	return p
}

func (g *GitHub) item(r *http.Request, login, typ, body, anchor string) map[string]any {
	g.nextID++
	return map[string]any{
		"id":       g.nextID,
		"user":     map[string]any{"login": login, "type": typ},
		"body":     body,
		"html_url": fmt.Sprintf("https://github.example/%s/%s/pull/%s#%s%d", r.PathValue("owner"), r.PathValue("repo"), r.PathValue("n"), anchor, g.nextID),
	}
}

func (g *GitHub) listReviews(w http.ResponseWriter, r *http.Request) {
	ghPage(w, r, g.pr(r).reviews)
}

// listComments lists a pull request's review comments, each with the
// rollup of its reactions GitHub adds (total_count and a count a
// content).
func (g *GitHub) listComments(w http.ResponseWriter, r *http.Request) {
	var out []map[string]any
	for _, c := range g.pr(r).comments {
		rolled := maps.Clone(c)
		sum := map[string]any{"total_count": 0}
		for _, k := range []string{"+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"} {
			sum[k] = 0
		}
		id, _ := c["id"].(int64)
		for _, re := range g.ledger.reactions[id] {
			sum["total_count"] = sum["total_count"].(int) + 1
			sum[re["content"].(string)] = sum[re["content"].(string)].(int) + 1
		}
		rolled["reactions"] = sum
		out = append(out, rolled)
	}
	ghPage(w, r, out)
}

// ghPage serves one page of a listing, with a Link header to the next.
func ghPage(w http.ResponseWriter, r *http.Request, items []map[string]any) {
	page := 1
	if p := r.URL.Query().Get("page"); p != "" {
		var err error
		if page, err = strconv.Atoi(p); err != nil || page < 1 {
			ghJSON(w, http.StatusBadRequest, map[string]string{"message": "page must be a positive integer"})
			return
		}
	}
	from := min((page-1)*ghPageSize, len(items))
	to := min(from+ghPageSize, len(items))
	if to < len(items) {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(page+1))
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s?%s>; rel="next"`, r.Host, r.URL.Path, q.Encode()))
	}
	ghJSON(w, http.StatusOK, append([]map[string]any{}, items[from:to]...))
}

var ghSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// ghReview is the body of a review being created.
type ghReview struct {
	CommitID *string `json:"commit_id"`
	Body     *string `json:"body"`
	Event    *string `json:"event"`
	Comments []struct {
		Path      *string `json:"path"`
		Line      *int    `json:"line"`
		Side      *string `json:"side"`
		StartLine *int    `json:"start_line"`
		StartSide *string `json:"start_side"`
		Body      *string `json:"body"`
	} `json:"comments"`
}

// problems are what GitHub's validation says of rv.
func (rv *ghReview) problems() []string {
	var problems []string
	switch {
	case rv.CommitID == nil || !ghSHA.MatchString(*rv.CommitID):
		problems = append(problems, "commit_id is not a commit SHA")
	case rv.Event == nil || *rv.Event != "COMMENT":
		problems = append(problems, "event is not COMMENT")
	case rv.Body == nil || *rv.Body == "" || utf8.RuneCountInString(*rv.Body) > 65536:
		problems = append(problems, "body is empty or too long")
	}
	for i, c := range rv.Comments {
		switch {
		case c.Path == nil || *c.Path == "" || c.Line == nil || *c.Line < 1:
			problems = append(problems, fmt.Sprintf("comment %d has no path or line", i))
		case c.Side == nil || *c.Side != "RIGHT":
			problems = append(problems, fmt.Sprintf("comment %d is not on side RIGHT", i))
		case c.Body == nil || *c.Body == "":
			problems = append(problems, fmt.Sprintf("comment %d has no body", i))
		case (c.StartLine == nil) != (c.StartSide == nil):
			problems = append(problems, fmt.Sprintf("comment %d has only one of start_line and start_side", i))
		case c.StartLine != nil && (*c.StartLine >= *c.Line || *c.StartSide != "RIGHT"):
			problems = append(problems, fmt.Sprintf("comment %d: start_line %d, start_side %q for line %d", i, *c.StartLine, *c.StartSide, *c.Line))
		}
	}
	return problems
}

// createReview accepts a review of the documented shape: commit_id, body,
// event COMMENT and comments each with path, line, side RIGHT and body
// (start_line and start_side for a range), and nothing else.
func (g *GitHub) createReview(w http.ResponseWriter, r *http.Request) {
	if g.ReadOnly {
		ghJSON(w, http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration", "documentation_url": "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request"})
		return
	}
	var problems []string
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		problems = append(problems, fmt.Sprintf("Content-Type is %q", ct))
	}
	var rv ghReview
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rv); err != nil {
		ghJSON(w, http.StatusBadRequest, map[string]string{"message": "Problems parsing JSON: " + err.Error()})
		return
	}
	problems = append(problems, rv.problems()...)
	if len(problems) > 0 {
		ghJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed", "errors": problems})
		return
	}
	p := g.pr(r)
	review := g.item(r, "github-actions[bot]", "Bot", *rv.Body, "pullrequestreview-")
	review["commit_id"], review["state"] = *rv.CommitID, "COMMENTED"
	p.reviews = append(p.reviews, review)
	for _, c := range rv.Comments {
		cm := g.item(r, "github-actions[bot]", "Bot", *c.Body, "discussion_r")
		cm["path"], cm["line"], cm["commit_id"] = *c.Path, *c.Line, *rv.CommitID
		p.comments = append(p.comments, cm)
	}
	ghJSON(w, http.StatusOK, review)
}

func ghJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// routeConversation serves what review comment and the commit status use:
// GET .../pulls/{n} (the head given to githubserver, base main), the
// pull request's conversation comments (GET and POST
// .../issues/{n}/comments), replies in a review comment thread (POST
// .../pulls/{n}/comments with in_reply_to, only under a thread's first
// comment, as GitHub requires), GET .../pulls/comments/{id}, and POST
// .../statuses/{sha} in GitHub's documented shape.
func (g *GitHub) routeConversation(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v3/repos/{owner}/{repo}/pulls/{n}", func(w http.ResponseWriter, r *http.Request) {
		repo := map[string]any{"full_name": r.PathValue("owner") + "/" + r.PathValue("repo")}
		n, _ := strconv.Atoi(r.PathValue("n"))
		ghJSON(w, http.StatusOK, map[string]any{"number": n, "state": "open",
			"head": map[string]any{"sha": g.Head, "ref": "feature", "repo": repo},
			"base": map[string]any{"ref": "main", "repo": repo}})
	})
	mux.HandleFunc("GET /api/v3/repos/{owner}/{repo}/issues/{n}/comments", func(w http.ResponseWriter, r *http.Request) {
		ghPage(w, r, g.pr(r).issueComments)
	})
	mux.HandleFunc("POST /api/v3/repos/{owner}/{repo}/issues/{n}/comments", func(w http.ResponseWriter, r *http.Request) {
		body, ok := ghBody(w, r)
		if !ok {
			return
		}
		p := g.pr(r)
		cm := g.item(r, "github-actions[bot]", "Bot", body, "issuecomment-")
		p.issueComments = append(p.issueComments, cm)
		ghJSON(w, http.StatusCreated, cm)
	})
	mux.HandleFunc("POST /api/v3/repos/{owner}/{repo}/pulls/{n}/comments", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Body      *string `json:"body"`
			InReplyTo int64   `json:"in_reply_to"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			ghJSON(w, http.StatusBadRequest, map[string]string{"message": "Problems parsing JSON"})
			return
		}
		if in.Body == nil || *in.Body == "" || utf8.RuneCountInString(*in.Body) > 65536 || in.InReplyTo <= 0 {
			ghJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Validation Failed: a reply needs a body and in_reply_to"})
			return
		}
		p := g.pr(r)
		for _, c := range p.comments {
			if c["id"] == in.InReplyTo && c["in_reply_to_id"] == nil {
				reply := g.item(r, "github-actions[bot]", "Bot", *in.Body, "discussion_r")
				reply["in_reply_to_id"], reply["path"], reply["line"] = in.InReplyTo, c["path"], c["line"]
				p.comments = append(p.comments, reply)
				ghJSON(w, http.StatusCreated, reply)
				return
			}
		}
		ghJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found: in_reply_to is not a thread's first comment"})
	})
	// GET .../pulls/comments/{id} overlaps GET .../pulls/{n}/comments in
	// a ServeMux's patterns: it is answered before them.
	g.before = func(w http.ResponseWriter, r *http.Request) bool {
		m := ghCommentPath.FindStringSubmatch(r.URL.Path)
		if m == nil || r.Method != http.MethodGet {
			return false
		}
		id, _ := strconv.ParseInt(m[1], 10, 64)
		for _, p := range g.prs {
			for _, c := range p.comments {
				if c["id"] == id {
					ghJSON(w, http.StatusOK, c)
					return true
				}
			}
		}
		ghJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return true
	}
	mux.HandleFunc("POST /api/v3/repos/{owner}/{repo}/statuses/{sha}", func(w http.ResponseWriter, r *http.Request) {
		var st struct {
			State       string `json:"state"`
			Context     string `json:"context"`
			Description string `json:"description"`
			TargetURL   string `json:"target_url"`
		}
		if err := json.NewDecoder(r.Body).Decode(&st); err != nil {
			ghJSON(w, http.StatusBadRequest, map[string]string{"message": "Problems parsing JSON"})
			return
		}
		switch {
		case !ghSHA.MatchString(r.PathValue("sha")):
			ghJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "No commit found for SHA: " + r.PathValue("sha")})
			return
		case st.State != "success" && st.State != "failure" && st.State != "error" && st.State != "pending",
			utf8.RuneCountInString(st.Description) > 140:
			ghJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": fmt.Sprintf("Validation Failed: state %q, description of %d characters", st.State, utf8.RuneCountInString(st.Description))})
			return
		}
		out := map[string]any{"state": st.State, "context": st.Context, "description": st.Description, "sha": r.PathValue("sha")}
		g.statuses = append(g.statuses, out)
		ghJSON(w, http.StatusCreated, out)
	})
}

var ghCommentPath = regexp.MustCompile(`^/api/v3/repos/[^/]+/[^/]+/pulls/comments/(\d+)$`)

// ghBody reads the body of a comment being created: {"body": "..."},
// not empty, at most 65,536 characters, as GitHub accepts.
func ghBody(w http.ResponseWriter, r *http.Request) (string, bool) {
	var in struct {
		Body *string `json:"body"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		ghJSON(w, http.StatusBadRequest, map[string]string{"message": "Problems parsing JSON"})
		return "", false
	}
	if in.Body == nil || *in.Body == "" || utf8.RuneCountInString(*in.Body) > 65536 {
		ghJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Validation Failed: body is empty or too long"})
		return "", false
	}
	return *in.Body, true
}

// ghLedger is what people did in the review threads of the scripted
// GitHub server: threads resolved (by the REST ID of their first comment,
// with who resolved them) and reactions to review comments.
type ghLedger struct {
	resolved  map[int64]string
	reactions map[int64][]map[string]any
}

// routeLedger serves what the ledger of findings reads and does on
// GitHub: GET .../pulls/comments/{id}/reactions (filtered by ?content=,
// one of GitHub's eight), GET .../collaborators/{user}/permission (write
// for alice, bob and carol, read for anyone else), and the GraphQL API at /api/graphql (GitHub
// Enterprise's path next to /api/v3) for two operations only: a query of
// pullRequest.reviewThreads (variables owner, name, number, after; two
// threads a page) and the resolveReviewThread mutation (variable
// threadId). A GraphQL request of another shape gets GitHub's errors.
func (g *GitHub) routeLedger(mux *http.ServeMux) {
	g.ledger = ghLedger{resolved: map[int64]string{}, reactions: map[int64][]map[string]any{}}
	mux.HandleFunc("GET /api/v3/repos/{owner}/{repo}/pulls/comments/{id}/reactions", func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if g.comment(id) == nil {
			ghJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
			return
		}
		content := r.URL.Query().Get("content")
		switch content {
		case "", "+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes":
		default:
			ghJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Validation Failed: content " + content})
			return
		}
		var out []map[string]any
		for _, re := range g.ledger.reactions[id] {
			if content == "" || re["content"] == content {
				out = append(out, re)
			}
		}
		ghPage(w, r, out)
	})
	mux.HandleFunc("POST /api/graphql", g.graphQL)
	mux.HandleFunc("GET /api/v3/repos/{owner}/{repo}/collaborators/{user}/permission", func(w http.ResponseWriter, r *http.Request) {
		perm := "read" // anyone may read a public repository
		if ghWriters[r.PathValue("user")] {
			perm = "write"
		}
		ghJSON(w, http.StatusOK, map[string]any{"permission": perm, "role_name": perm, "user": map[string]any{"login": r.PathValue("user"), "type": "User"}})
	})
}

// ghWriters are the collaborators with write access on the scripted
// GitHub server; anyone else may only read.
var ghWriters = map[string]bool{"alice": true, "bob": true, "carol": true}

// comment finds a review comment by its ID.
func (g *GitHub) comment(id int64) map[string]any {
	for _, p := range g.prs {
		for _, c := range p.comments {
			if c["id"] == id {
				return c
			}
		}
	}
	return nil
}

var (
	ghThreadsQuery = regexp.MustCompile(`(?s)^query\(\$owner: String!, \$name: String!, \$number: Int!, \$after: String\) \{\s*repository\(owner: \$owner, name: \$name\) \{\s*pullRequest\(number: \$number\) \{\s*reviewThreads\(first: 100, after: \$after\)`)
	ghResolve      = regexp.MustCompile(`(?s)^mutation\(\$threadId: ID!\) \{\s*resolveReviewThread\(input: \{threadId: \$threadId\}\)`)
)

func (g *GitHub) graphQL(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		ghJSON(w, http.StatusBadRequest, map[string]string{"message": "Problems parsing JSON"})
		return
	}
	gqlError := func(msg string) {
		ghJSON(w, http.StatusOK, map[string]any{"data": nil, "errors": []map[string]any{{"message": msg}}})
	}
	switch {
	case ghThreadsQuery.MatchString(in.Query):
		owner, ok1 := in.Variables["owner"].(string)
		name, ok2 := in.Variables["name"].(string)
		number, ok3 := in.Variables["number"].(float64)
		after, hasAfter := in.Variables["after"]
		if !ok1 || !ok2 || !ok3 || !hasAfter {
			gqlError("Variable $owner, $name, $number or $after was not provided or is of the wrong type")
			return
		}
		p, ok := g.prs[fmt.Sprintf("%s/%s#%d", owner, name, int(number))]
		if !ok {
			ghJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"repository": map[string]any{"pullRequest": nil}}})
			return
		}
		var nodes []map[string]any
		for _, c := range p.comments {
			if c["in_reply_to_id"] != nil {
				continue
			}
			id := c["id"].(int64)
			t := map[string]any{"id": fmt.Sprintf("PRRT_%d", id), "isResolved": false, "isOutdated": false, "resolvedBy": nil,
				"comments": map[string]any{"nodes": []map[string]any{{"databaseId": id}}}}
			if who, ok := g.ledger.resolved[id]; ok {
				t["isResolved"], t["resolvedBy"] = true, map[string]any{"login": who}
			}
			nodes = append(nodes, t)
		}
		from := 0
		if s, ok := after.(string); ok {
			n, err := strconv.Atoi(s)
			if err != nil {
				gqlError("`" + s + "` does not appear to be a valid cursor.")
				return
			}
			from = n
		}
		from = min(from, len(nodes))
		to := min(from+ghPageSize, len(nodes))
		page := map[string]any{"pageInfo": map[string]any{"hasNextPage": to < len(nodes), "endCursor": strconv.Itoa(to)}, "nodes": append([]map[string]any{}, nodes[from:to]...)}
		ghJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"repository": map[string]any{"pullRequest": map[string]any{"reviewThreads": page}}}})
	case ghResolve.MatchString(in.Query):
		tid, _ := in.Variables["threadId"].(string)
		id, err := strconv.ParseInt(strings.TrimPrefix(tid, "PRRT_"), 10, 64)
		if c := g.comment(id); err != nil || !strings.HasPrefix(tid, "PRRT_") || c == nil || c["in_reply_to_id"] != nil {
			gqlError(fmt.Sprintf("Could not resolve to a node with the global id of '%s'", tid))
			return
		}
		if g.ReadOnly {
			gqlError("Resource not accessible by integration")
			return
		}
		g.ledger.resolved[id] = "github-actions"
		ghJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"resolveReviewThread": map[string]any{"thread": map[string]any{"id": tid, "isResolved": true}}}})
	default:
		gqlError("review's scripted GitHub answers only the review threads query and the resolveReviewThread mutation")
	}
}

// Threads returns the IDs of the first comments of the threads review
// started on pull request n, in the order posted.
func (g *GitHub) Threads(n string) []int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	var starts []int64
	for key, p := range g.prs {
		if !strings.HasSuffix(key, "#"+n) {
			continue
		}
		for _, c := range p.comments {
			if c["in_reply_to_id"] == nil && c["user"].(map[string]any)["type"] == "Bot" {
				starts = append(starts, c["id"].(int64))
			}
		}
	}
	return starts
}

// ResolvedBy is who resolved the thread whose first comment is id, or
// "open".
func (g *GitHub) ResolvedBy(id int64) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if who, ok := g.ledger.resolved[id]; ok {
		return who
	}
	return "open"
}

// Resolve resolves the thread whose first comment is id, as login; an
// empty login reopens it.
func (g *GitHub) Resolve(id int64, login string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if login == "" {
		delete(g.ledger.resolved, id)
		return
	}
	g.ledger.resolved[id] = login
}

// React adds login's reaction (one of GitHub's eight contents, "-1" for
// 👎) to the comment id.
func (g *GitHub) React(id int64, login, content string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.nextID++
	g.ledger.reactions[id] = append(g.ledger.reactions[id], map[string]any{"id": g.nextID, "content": content,
		"user": map[string]any{"login": login, "type": "User"}})
}
