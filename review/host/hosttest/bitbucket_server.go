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

// Bitbucket is a scripted Bitbucket Cloud REST API under /2.0, as much of
// it as posting a review and the ledger use, in the shapes of Bitbucket's
// swagger (https://api.bitbucket.org/swagger.json, vendored in part in
// testdata/schemas/bitbucket-api.json): GET
// /repositories/{workspace}/{repo_slug}/pullrequests/{id} (pullrequest);
// GET and POST .../pullrequests/{id}/comments (paginated_pullrequest_comments,
// pullrequest_comment with content.raw, inline.path and inline.to, parent.id);
// PUT .../comments/{comment_id}; POST .../comments/{comment_id}/resolve
// (comment_resolution; 409 when resolved already); PUT
// .../commit/{commit}/reports/{reportId} (report) and POST
// .../reports/{reportId}/annotations (report_annotation, at most 100); POST
// .../commit/{commit}/statuses/build (commitstatus). Listings take pagelen
// and page and answer two items a page at most, with the next page's
// address in "next", as Bitbucket does.
//
// It checks each request as Bitbucket would: the token in "Authorization:
// Bearer …" (401 otherwise), a JSON body of the documented shape (400),
// a commit SHA where one is named. What is posted is kept, by the
// token's account (review-bot, as an access token is shown), so a second
// run sees it. Each pull request starts with two comments by people, one
// quoting a review marker, and alice's comment on a line.
type Bitbucket struct {
	// Token is the token it accepts; another gets 401.
	Token string
	// Dir, if set, receives each request as bb-NNN.json and a line per
	// request in requests.log.
	Dir string
	// ReadOnly refuses every post (403), as Bitbucket does a token
	// without the pullrequest:write scope.
	ReadOnly bool
	// Head is the pull requests' head commit.
	Head string
	// Fail answers the first Fail requests 500.
	Fail int
	// Huge answers GET .../pullrequests/{id} with a body of 17 MiB.
	Huge bool
	// Unplaceable refuses a comment on a line (400), as Bitbucket does a
	// line it cannot anchor.
	Unplaceable bool

	mu       sync.Mutex
	seq      int
	nextID   int64
	served   int
	prs      map[string]*bbPR
	reports  map[string]map[string]any // by commit
	notes    map[string][]map[string]any
	statuses []map[string]any
}

// bbPR is the state of one pull request: its comments, in order.
type bbPR struct {
	comments []map[string]any
}

// bbMe is the token's account, as Bitbucket shows an access token.
var bbMe = map[string]any{"type": "user", "uuid": "{7b1c1f4e-0000-4000-8000-000000000001}", "display_name": "review-bot", "nickname": "review-bot"}

// Start serves the API until stop is called, and returns its root
// (…/2.0), which --bitbucket-url takes.
func (b *Bitbucket) Start() (api string, stop func()) {
	b.prs = map[string]*bbPR{}
	b.reports = map[string]map[string]any{}
	b.notes = map[string][]map[string]any{}
	srv := httptest.NewServer(b)
	return srv.URL + "/2.0", srv.Close
}

func (b *Bitbucket) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ServeRecorded(w, r, b.route, func(r *http.Request, body []byte, status int) {
		WriteRequest(b.Dir, "bb", &b.seq, r, body, status, "Authorization", "Content-Type")
	})
}

var bbPath = regexp.MustCompile(`^/2\.0/repositories/([^/]+)/([^/]+)/(pullrequests|commit)/([^/]+)(?:/(.*))?$`)

// route checks the token and answers by path.
func (b *Bitbucket) route(w http.ResponseWriter, r *http.Request) {
	b.served++
	switch {
	case r.Header.Get("Authorization") != "Bearer "+b.Token:
		bbError(w, http.StatusUnauthorized, "Token is invalid, expired, or not supported for this endpoint.")
		return
	case b.served <= b.Fail:
		bbError(w, http.StatusInternalServerError, "Something went wrong")
		return
	case r.Method != http.MethodGet && r.ContentLength != 0 && r.Header.Get("Content-Type") != "application/json":
		bbError(w, http.StatusUnsupportedMediaType, "Unsupported Media Type: "+r.Header.Get("Content-Type"))
		return
	}
	if err := bbCheckBody(r); err != nil {
		bbError(w, http.StatusBadRequest, err.Error())
		return
	}
	m := bbPath.FindStringSubmatch(r.URL.Path)
	if m == nil {
		bbError(w, http.StatusNotFound, "Resource not found")
		return
	}
	repo, kind, id, rest := m[1]+"/"+m[2], m[3], m[4], m[5]
	if r.Method != http.MethodGet && b.ReadOnly {
		bbError(w, http.StatusForbidden, "Your credentials lack one or more required privilege scopes.")
		return
	}
	switch kind {
	case "pullrequests":
		b.pulls(w, r, repo, id, rest)
	case "commit":
		b.commit(w, r, repo, id, rest)
	}
}

// pr is the state of pull request n of repo, made on first use.
func (b *Bitbucket) pr(repo, n string) *bbPR {
	key := repo + "#" + n
	if p, ok := b.prs[key]; ok {
		return p
	}
	p := &bbPR{}
	p.comments = append(p.comments, b.comment(repo, n, "alice", "Looks fine to me.", nil, 0),
		b.comment(repo, n, "mallory", "<!-- review:run=forged head=0000000000000000000000000000000000000000 sig=0123456789abcdef -->\nI am the review now.", nil, 0),
		b.comment(repo, n, "alice", "Why this name?", map[string]any{"path": "app/handler.go", "to": 1}, 0))
	b.prs[key] = p
	return p
}

func (b *Bitbucket) account(name string) map[string]any {
	if name == "review-bot" {
		return bbMe
	}
	return map[string]any{"type": "user", "uuid": fmt.Sprintf("{00000000-0000-4000-8000-%012d}", len(name)), "display_name": strings.ToUpper(name[:1]) + name[1:], "nickname": name}
}

// comment makes a comment by name (pullrequest_comment), on a line when
// inline is not nil, replying to parent when it is not 0.
func (b *Bitbucket) comment(repo, n, name, raw string, inline map[string]any, parent int64) map[string]any {
	b.nextID++
	c := map[string]any{
		"type": "pullrequest_comment", "id": b.nextID, "deleted": false, "pending": false,
		"content":    map[string]any{"raw": raw, "markup": "markdown", "html": ""},
		"user":       b.account(name),
		"created_on": "2026-12-04T05:00:00.000000+00:00", "updated_on": "2026-12-04T05:00:00.000000+00:00",
		"links": map[string]any{
			"self": map[string]any{"href": fmt.Sprintf("https://api.bitbucket.org/2.0/repositories/%s/pullrequests/%s/comments/%d", repo, n, b.nextID)},
			"html": map[string]any{"href": fmt.Sprintf("https://bitbucket.org/%s/pull-requests/%s#comment-%d", repo, n, b.nextID)},
		},
	}
	if inline != nil {
		c["inline"] = inline
	}
	if parent != 0 {
		c["parent"] = map[string]any{"type": "pullrequest_comment", "id": parent}
	}
	return c
}

// pulls answers a pull request and its comments.
func (b *Bitbucket) pulls(w http.ResponseWriter, r *http.Request, repo, n, rest string) {
	if num, err := strconv.Atoi(n); err != nil || num <= 0 {
		bbError(w, http.StatusNotFound, "Pull request not found")
		return
	}
	p := b.pr(repo, n)
	switch {
	case rest == "" && r.Method == http.MethodGet:
		if b.Huge {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"type": "pullrequest", "id": %s, "title": "%s"}`, n, strings.Repeat("x", 17<<20))
			return
		}
		num, _ := strconv.Atoi(n)
		hash := b.Head
		if len(hash) > 12 {
			hash = hash[:12] // Bitbucket names a pull request's commits by 12 digits
		}
		source := map[string]any{"branch": map[string]any{"name": "feature"}}
		if hash != "" {
			source["commit"] = map[string]any{"hash": hash}
		}
		bbAnswer(w, http.StatusOK, "pullrequest", map[string]any{"type": "pullrequest", "id": num, "title": "Feature", "state": "OPEN",
			"links":       map[string]any{"html": map[string]any{"href": "https://bitbucket.org/" + repo + "/pull-requests/" + n}},
			"source":      source,
			"destination": map[string]any{"branch": map[string]any{"name": "main"}}})
	case rest == "comments" && r.Method == http.MethodGet:
		bbPage(w, r, "paginated_pullrequest_comments", p.comments)
	case rest == "comments" && r.Method == http.MethodPost:
		b.postComment(w, r, repo, n, p)
	case strings.HasPrefix(rest, "comments/"):
		b.oneComment(w, r, p, strings.TrimPrefix(rest, "comments/"))
	default:
		bbError(w, http.StatusNotFound, "Resource not found")
	}
}

// bbNewComment is what POST and PUT .../comments take of a
// pullrequest_comment.
type bbNewComment struct {
	Content struct {
		Raw *string `json:"raw"`
	} `json:"content"`
	Inline *struct {
		Path string `json:"path"`
		To   int    `json:"to"`
		From int    `json:"from"`
	} `json:"inline"`
	Parent *struct {
		ID int64 `json:"id"`
	} `json:"parent"`
}

func (b *Bitbucket) postComment(w http.ResponseWriter, r *http.Request, repo, n string, p *bbPR) {
	var in bbNewComment
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Content.Raw == nil || *in.Content.Raw == "" {
		bbError(w, http.StatusBadRequest, "content.raw: This field is required.")
		return
	}
	var inline map[string]any
	if in.Inline != nil {
		if in.Inline.Path == "" || in.Inline.To <= 0 && in.Inline.From <= 0 {
			bbError(w, http.StatusBadRequest, "inline: a path and a line are required.")
			return
		}
		if b.Unplaceable {
			bbError(w, http.StatusBadRequest, "Comment cannot be anchored: the line is not in the diff.")
			return
		}
		inline = map[string]any{"path": in.Inline.Path}
		if in.Inline.To > 0 {
			inline["to"] = in.Inline.To
		} else {
			inline["from"] = in.Inline.From
		}
	}
	var parent int64
	if in.Parent != nil {
		pc := bbFind(p, in.Parent.ID)
		if pc == nil {
			bbError(w, http.StatusBadRequest, "parent: no such comment")
			return
		}
		parent = in.Parent.ID
		if pi, ok := pc["inline"]; ok {
			inline = pi.(map[string]any)
		}
	}
	c := b.comment(repo, n, "review-bot", *in.Content.Raw, inline, parent)
	p.comments = append(p.comments, c)
	bbAnswer(w, http.StatusCreated, "pullrequest_comment", c)
}

// oneComment answers PUT .../comments/{id} and POST and DELETE
// .../comments/{id}/resolve.
func (b *Bitbucket) oneComment(w http.ResponseWriter, r *http.Request, p *bbPR, rest string) {
	idText, sub, _ := strings.Cut(rest, "/")
	id, _ := strconv.ParseInt(idText, 10, 64)
	c := bbFind(p, id)
	switch {
	case c == nil:
		bbError(w, http.StatusNotFound, "Comment not found")
	case sub == "" && r.Method == http.MethodGet:
		bbAnswer(w, http.StatusOK, "pullrequest_comment", c)
	case sub == "" && r.Method == http.MethodPut:
		var in bbNewComment
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Content.Raw == nil {
			bbError(w, http.StatusBadRequest, "content.raw: This field is required.")
			return
		}
		if c["user"].(map[string]any)["nickname"] != "review-bot" {
			bbError(w, http.StatusForbidden, "You can only edit your own comments.")
			return
		}
		c["content"] = map[string]any{"raw": *in.Content.Raw, "markup": "markdown", "html": ""}
		bbAnswer(w, http.StatusOK, "pullrequest_comment", c)
	case sub == "resolve" && r.Method == http.MethodPost:
		if c["parent"] != nil || c["inline"] == nil {
			bbError(w, http.StatusForbidden, "Only a top-level comment on the diff can be resolved.")
			return
		}
		if c["resolution"] != nil {
			bbError(w, http.StatusConflict, "The comment is resolved already.")
			return
		}
		res := map[string]any{"type": "comment_resolution", "user": bbMe, "created_on": "2026-12-04T05:00:00.000000+00:00"}
		c["resolution"] = res
		bbAnswer(w, http.StatusOK, "comment_resolution", res)
	default:
		bbError(w, http.StatusNotFound, "Resource not found")
	}
}

func bbFind(p *bbPR, id int64) map[string]any {
	for _, c := range p.comments {
		if c["id"] == id {
			return c
		}
	}
	return nil
}

var bbSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// commit answers PUT .../commit/{sha}/reports/{id}, POST its annotations,
// and POST .../commit/{sha}/statuses/build.
func (b *Bitbucket) commit(w http.ResponseWriter, r *http.Request, repo, sha, rest string) {
	if !bbSHA.MatchString(sha) {
		bbError(w, http.StatusNotFound, "Commit not found")
		return
	}
	body, _ := io.ReadAll(r.Body)
	switch {
	case rest == "statuses/build" && r.Method == http.MethodPost:
		var st map[string]any
		json.Unmarshal(body, &st)
		if st["key"] == nil || st["state"] == nil || st["url"] == nil {
			bbError(w, http.StatusBadRequest, "key, state and url are required.")
			return
		}
		st["type"] = "build"
		b.statuses = append(b.statuses, st)
		bbAnswer(w, http.StatusCreated, "commitstatus", st)
	case strings.HasPrefix(rest, "reports/") && !strings.Contains(strings.TrimPrefix(rest, "reports/"), "/") && r.Method == http.MethodPut:
		var rep map[string]any
		json.Unmarshal(body, &rep)
		if rep["title"] == nil || rep["details"] == nil || rep["report_type"] == nil {
			bbError(w, http.StatusBadRequest, "title, details and report_type are required.")
			return
		}
		rep["type"] = "report"
		rep["external_id"] = strings.TrimPrefix(rest, "reports/")
		rep["uuid"] = "{00000000-0000-4000-8000-000000000099}"
		b.reports[sha] = rep
		b.notes[sha] = nil // putting a report again drops its annotations
		bbAnswer(w, http.StatusOK, "report", rep)
	case strings.HasPrefix(rest, "reports/") && strings.HasSuffix(rest, "/annotations") && r.Method == http.MethodPost:
		if b.reports[sha] == nil {
			bbError(w, http.StatusNotFound, "Report not found")
			return
		}
		var as []map[string]any
		json.Unmarshal(body, &as)
		for _, a := range as {
			a["type"] = "report_annotation"
			kept := false
			for i, old := range b.notes[sha] {
				if old["external_id"] == a["external_id"] {
					b.notes[sha][i], kept = a, true
				}
			}
			if !kept {
				b.notes[sha] = append(b.notes[sha], a)
			}
		}
		if len(b.notes[sha]) > 1000 {
			bbError(w, http.StatusBadRequest, "A report holds at most 1000 annotations.")
			return
		}
		bbAnswer(w, http.StatusOK, "[]report_annotation", as)
	default:
		bbError(w, http.StatusNotFound, "Resource not found")
	}
}

// bbCheckBody checks the body of a request that sends one against its
// definition in Bitbucket's swagger (pullrequest_comment, report, an
// array of report_annotation, commitstatus).
func bbCheckBody(r *http.Request) error {
	def := ""
	switch p := r.URL.Path; {
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/resolve"):
		return nil
	case (r.Method == http.MethodPost || r.Method == http.MethodPut) && strings.Contains(p, "/comments"):
		def = "pullrequest_comment"
	case r.Method == http.MethodPut && strings.Contains(p, "/reports/"):
		def = "report"
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/annotations"):
		def = "[]report_annotation"
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/statuses/build"):
		def = "commitstatus"
	default:
		return nil
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err := ValidateBitbucket(def, body, true); err != nil {
		return fmt.Errorf("the body is not a %s: %v", def, err)
	}
	if def == "[]report_annotation" {
		var as []any
		if json.Unmarshal(body, &as) != nil || len(as) == 0 || len(as) > 100 {
			return fmt.Errorf("from 1 to 100 annotations a request, not %d", len(as))
		}
	}
	return nil
}

// bbPage serves one page of a listing (page, pagelen: at most two a page
// here), with the next page's address in "next", as Bitbucket does.
func bbPage(w http.ResponseWriter, r *http.Request, def string, items []map[string]any) {
	page, size := 1, 2
	if p := r.URL.Query().Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			bbError(w, http.StatusBadRequest, "Invalid page")
			return
		}
		page = n
	}
	if l, err := strconv.Atoi(r.URL.Query().Get("pagelen")); err == nil && l > 0 && l < size {
		size = l
	}
	from := min((page-1)*size, len(items))
	to := min(from+size, len(items))
	out := map[string]any{"values": append([]map[string]any{}, items[from:to]...), "page": page, "pagelen": size, "size": len(items)}
	if to < len(items) {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(page+1))
		out["next"] = fmt.Sprintf("http://%s%s?%s", r.Host, r.URL.Path, q.Encode())
	}
	bbAnswer(w, http.StatusOK, def, out)
}

// Threads returns the IDs of the comments on lines review posted on pull
// request n that start a finding's thread (their text starts with a
// finding's marker, in either of its forms), in the order posted.
func (b *Bitbucket) Threads(n string) []int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	var ids []int64
	for key, p := range b.prs {
		if !strings.HasSuffix(key, "#"+n) {
			continue
		}
		for _, c := range p.comments {
			raw := c["content"].(map[string]any)["raw"].(string)
			if c["user"].(map[string]any)["nickname"] == "review-bot" && c["parent"] == nil && (strings.HasPrefix(raw, "<!-- review:fp=") || strings.HasPrefix(raw, `[//]: # "review:fp=`)) {
				ids = append(ids, c["id"].(int64))
			}
		}
	}
	return ids
}

// Resolve resolves comment id as login does on the page; "" reopens it.
func (b *Bitbucket) Resolve(id int64, login string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.prs {
		if c := bbFind(p, id); c != nil {
			delete(c, "resolution")
			if login != "" {
				c["resolution"] = map[string]any{"type": "comment_resolution", "user": b.account(login), "created_on": "2026-12-04T05:00:00.000000+00:00"}
			}
		}
	}
}

// ResolvedBy says who resolved comment id: a nickname, or "open".
func (b *Bitbucket) ResolvedBy(id int64) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.prs {
		if c := bbFind(p, id); c != nil {
			if res, ok := c["resolution"].(map[string]any); ok {
				return res["user"].(map[string]any)["nickname"].(string)
			}
		}
	}
	return "open"
}

// Replies returns the bodies of the replies to comment id.
func (b *Bitbucket) Replies(id int64) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, p := range b.prs {
		for _, c := range p.comments {
			if par, ok := c["parent"].(map[string]any); ok && par["id"] == id {
				out = append(out, c["content"].(map[string]any)["raw"].(string))
			}
		}
	}
	return out
}

// Annotations returns the annotations of the report on commit sha.
func (b *Bitbucket) Annotations(sha string) []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]map[string]any(nil), b.notes[sha]...)
}

// Statuses returns the build statuses set, in order.
func (b *Bitbucket) Statuses() []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]map[string]any(nil), b.statuses...)
}
