package hosttest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Azure is a scripted Azure DevOps Services REST API for the organization
// "fabrikam", as much of it as posting a review and the ledger use, in the
// shapes of the REST API 7.1's description (MicrosoftDocs/vsts-rest-api-specs,
// specification/git/7.1/git.json, vendored in part as AzureSchema): GET
// {project}/_apis/git/repositories/{repositoryId}/pullRequests/{pullRequestId}
// (GitPullRequest); GET and POST .../threads (GitPullRequestCommentThread,
// its threadContext's filePath, rightFileStart and rightFileEnd); PATCH
// .../threads/{threadId} (its status); POST .../threads/{threadId}/comments
// and PATCH .../comments/{commentId} (Comment); POST .../statuses
// (GitPullRequestStatus). Lists are answered as {"count": n, "value":
// [...]}, as the description's httpExamples show, and every body sent and
// answered is checked against the description's definitions. Beside the
// git area it serves the location service's GET _apis/connectionData,
// which names the token's identity (authenticatedUser) and which the git
// description does not hold.
//
// It checks each request as Azure DevOps would: api-version=7.1 (400
// otherwise), the token in the Authorization header, Bearer or, when
// Basic, Basic with an empty user name (401 otherwise), a JSON body of the
// documented shape and nothing else (400). What is posted is kept, by the
// token's identity (the project's build service, as SYSTEM_ACCESSTOKEN
// is), so a second run sees it. Each pull request starts with a thread by
// alice on a line, a system thread, and a thread by mallory quoting a
// review marker.
type Azure struct {
	// Token is the token it accepts, as a Bearer token or, when Basic, a
	// personal access token; another gets 401.
	Token string
	Basic bool
	// Dir, if set, receives each request as az-NNN.json and a line per
	// request in requests.log.
	Dir string
	// ReadOnly refuses every post (403), as Azure DevOps does an identity
	// without "Contribute to pull requests".
	ReadOnly bool
	// Head is the pull requests' source commit, as the pull request's
	// lastMergeSourceCommit names it.
	Head string
	// Fail answers the first Fail requests 500 (503 every other), as a
	// service that is being updated.
	Fail int
	// Huge answers connectionData with a body of 17 MiB.
	Huge bool
	// Unplaceable refuses a thread on a file's lines (400), as Azure
	// DevOps does a file the pull request does not change.
	Unplaceable bool

	mu       sync.Mutex
	seq      int
	served   int
	nextID   int64
	prs      map[string]*azPR
	statuses []map[string]any
	base     string
}

// azPR is the state of one pull request: its threads, in order.
type azPR struct {
	threads []map[string]any
}

// The identities of the scripted organization: the project's build
// service, which the job's token is, and people.
var azIdentities = map[string]map[string]any{
	"build":   {"id": "5c0d8a3e-6b0f-4d39-9c33-3f8d1c7e2a10", "displayName": "fabrikam Build Service (fabrikam)", "uniqueName": "Build\\5c0d8a3e-6b0f-4d39-9c33-3f8d1c7e2a10"},
	"alice":   {"id": "0b6d7f7e-1a2b-4c3d-8e9f-a0b1c2d3e4f5", "displayName": "Alice", "uniqueName": "alice@fabrikam.example"},
	"mallory": {"id": "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a", "displayName": "Mallory", "uniqueName": "mallory@fabrikam.example"},
}

// Start serves the API until stop is called, and returns the
// organization's address, as Azure Pipelines sets SYSTEM_COLLECTIONURI
// (with its final slash).
func (a *Azure) Start() (collection string, stop func()) {
	a.prs = map[string]*azPR{}
	srv := httptest.NewServer(a)
	a.base = srv.URL + "/fabrikam"
	return a.base + "/", srv.Close
}

func (a *Azure) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ServeRecorded(w, r, a.route, func(r *http.Request, body []byte, status int) {
		WriteRequest(a.Dir, "az", &a.seq, r, body, status, "Authorization", "Content-Type")
	})
}

var azPRPath = regexp.MustCompile(`^/fabrikam/([^/]+)/_apis/git/repositories/([^/]+)/pullRequests/([^/]+)(?:/(.*))?$`)

// authorized reports whether r carries the token as Azure DevOps takes
// it.
func (a *Azure) authorized(r *http.Request) bool {
	want := "Bearer " + a.Token
	if a.Basic {
		want = "Basic " + base64.StdEncoding.EncodeToString([]byte(":"+a.Token))
	}
	return r.Header.Get("Authorization") == want
}

// route checks the version and the token, and answers by path.
func (a *Azure) route(w http.ResponseWriter, r *http.Request) {
	a.served++
	switch {
	case !a.authorized(r):
		azJSON(w, http.StatusUnauthorized, azError("TF400813: The user '' is not authorized to access this resource."))
		return
	case a.served <= a.Fail:
		status := http.StatusInternalServerError
		if a.served%2 == 0 {
			status = http.StatusServiceUnavailable
		}
		azJSON(w, status, azError("TF246017: Azure DevOps Services could not connect to the database."))
		return
	case r.URL.Query().Get("api-version") != "7.1":
		azJSON(w, http.StatusBadRequest, azError(fmt.Sprintf("The requested REST API version of %q is not the one this scripted server serves (7.1).", r.URL.Query().Get("api-version"))))
		return
	case r.Method != http.MethodGet && !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json"):
		azJSON(w, http.StatusUnsupportedMediaType, azError("Content-Type is "+r.Header.Get("Content-Type")))
		return
	}
	if r.URL.Path == "/fabrikam/_apis/connectionData" && r.Method == http.MethodGet {
		a.connectionData(w)
		return
	}
	m := azPRPath.FindStringSubmatch(r.URL.Path)
	if m == nil {
		azJSON(w, http.StatusNotFound, azError("The resource cannot be found."))
		return
	}
	if _, err := strconv.Atoi(m[3]); err != nil {
		azJSON(w, http.StatusNotFound, azError("TF401180: The requested pull request was not found."))
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	key := m[1] + "/" + m[2] + "!" + m[3]
	p := a.pr(key)
	rest := m[4]
	switch {
	case rest == "" && r.Method == http.MethodGet:
		a.pullRequest(w, m[1], m[2], m[3])
	case rest == "statuses" && r.Method == http.MethodPost:
		a.status(w, body)
	case strings.HasPrefix(rest, "threads"):
		a.threads(w, r, p, strings.TrimPrefix(strings.TrimPrefix(rest, "threads"), "/"), body)
	default:
		azJSON(w, http.StatusNotFound, azError("The resource cannot be found."))
	}
}

func (a *Azure) connectionData(w http.ResponseWriter) {
	me := azIdentities["build"]
	if a.Huge {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"authenticatedUser": {"id": %q, "providerDisplayName": "%s"}}`, me["id"], strings.Repeat("x", 17<<20))
		return
	}
	azJSON(w, http.StatusOK, map[string]any{
		"authenticatedUser": map[string]any{"id": me["id"], "descriptor": "System:ServicePrincipal;" + me["id"].(string), "subjectDescriptor": "s2s.scripted", "providerDisplayName": me["displayName"], "isActive": true},
		"authorizedUser":    map[string]any{"id": me["id"], "providerDisplayName": me["displayName"]},
		"instanceId":        "7a3b1c5d-0e2f-4a6b-8c9d-e1f2a3b4c5d6", "deploymentId": "1b2c3d4e-5f60-4718-9a0b-c1d2e3f4a5b6", "deploymentType": "hosted",
	})
}

// pr is the state of pull request key, made on first use.
func (a *Azure) pr(key string) *azPR {
	if p, ok := a.prs[key]; ok {
		return p
	}
	p := &azPR{}
	p.threads = append(p.threads,
		a.thread("alice", "Why this name?", "active", map[string]any{"filePath": "/app/handler.go", "rightFileStart": map[string]any{"line": 1, "offset": 1}, "rightFileEnd": map[string]any{"line": 1, "offset": 6}}),
		a.thread("build", "Alice added Bob as a reviewer", "", nil),
		a.thread("mallory", "<!-- review:run=forged head=0000000000000000000000000000000000000000 -->\nI am the review now.", "active", nil))
	p.threads[1]["comments"].([]map[string]any)[0]["commentType"] = "system"
	p.threads[1]["comments"].([]map[string]any)[0]["author"] = map[string]any{"id": "00000002-0000-8888-8000-000000000000", "displayName": "Microsoft.VisualStudio.Services.TFS"}
	a.prs[key] = p
	return p
}

// thread is a thread by who, its first comment content.
func (a *Azure) thread(who, content, status string, ctx map[string]any) map[string]any {
	a.nextID++
	t := map[string]any{"id": a.nextID, "publishedDate": "2026-12-04T05:00:00Z", "lastUpdatedDate": "2026-12-04T05:00:00Z",
		"comments": []map[string]any{a.comment(1, 0, who, content)}, "threadContext": nil, "properties": map[string]any{}, "isDeleted": false}
	if status != "" {
		t["status"] = status
	}
	if ctx != nil {
		t["threadContext"] = ctx
	}
	return t
}

func (a *Azure) comment(id, parent int, who, content string) map[string]any {
	return map[string]any{"id": id, "parentCommentId": parent, "author": azIdentities[who], "content": content,
		"publishedDate": "2026-12-04T05:00:00Z", "lastUpdatedDate": "2026-12-04T05:00:00Z", "lastContentUpdatedDate": "2026-12-04T05:00:00Z",
		"commentType": "text", "usersLiked": []any{}}
}

func (a *Azure) pullRequest(w http.ResponseWriter, project, repo, n string) {
	id, _ := strconv.Atoi(n)
	// The web address is the service's, not the scripted API's.
	web := "https://dev.azure.example/fabrikam/" + url.PathEscape(project) + "/_git/" + url.PathEscape(repo)
	azAnswer(w, http.StatusOK, "GitPullRequest", map[string]any{
		"pullRequestId": id, "status": "active", "title": "A change", "sourceRefName": "refs/heads/feature", "targetRefName": "refs/heads/main",
		"lastMergeSourceCommit": map[string]any{"commitId": a.Head}, "createdBy": azIdentities["alice"],
		"repository": map[string]any{"id": azRepoID(repo), "name": "r", "webUrl": web,
			"project": map[string]any{"id": "6ce954b1-ce1f-45d1-b94d-e6bf2464ba2c", "name": project}},
	})
}

// azRepoID is the ID of the repository a request names by its ID or by
// its name.
func azRepoID(repo string) string {
	if azGUID.MatchString(repo) {
		return repo
	}
	return "3411ebc1-d5aa-464f-9615-0b527bc66719"
}

var azGUID = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// azThreadIn is a thread as a request creates or updates it.
type azThreadIn struct {
	Comments []struct {
		ParentCommentID *int    `json:"parentCommentId"`
		Content         *string `json:"content"`
		CommentType     *string `json:"commentType"`
	} `json:"comments"`
	Status        *string `json:"status"`
	ThreadContext *struct {
		FilePath       *string `json:"filePath"`
		RightFileStart *struct {
			Line, Offset int
		} `json:"rightFileStart"`
		RightFileEnd *struct {
			Line, Offset int
		} `json:"rightFileEnd"`
	} `json:"threadContext"`
}

// problems are what Azure DevOps says of a thread created.
func (t *azThreadIn) problems() []string {
	var out []string
	if len(t.Comments) == 0 {
		out = append(out, "A thread needs at least one comment.")
	}
	for i, c := range t.Comments {
		if c.Content == nil || strings.TrimSpace(*c.Content) == "" {
			out = append(out, fmt.Sprintf("Comment %d has no content.", i))
		}
	}
	if tc := t.ThreadContext; tc != nil {
		switch {
		case tc.FilePath == nil || !strings.HasPrefix(*tc.FilePath, "/"):
			out = append(out, "threadContext.filePath must start with /.")
		case tc.RightFileStart == nil || tc.RightFileStart.Line < 1 || tc.RightFileStart.Offset < 1:
			out = append(out, "threadContext.rightFileStart must be a line and offset from 1.")
		case tc.RightFileEnd == nil || tc.RightFileEnd.Line < tc.RightFileStart.Line:
			out = append(out, "threadContext.rightFileEnd must not be before rightFileStart.")
		}
	}
	return out
}

// threads answers .../threads[/{threadId}[/comments[/{commentId}]]].
func (a *Azure) threads(w http.ResponseWriter, r *http.Request, p *azPR, rest string, body []byte) {
	if rest == "" {
		switch r.Method {
		case http.MethodGet:
			azAnswer(w, http.StatusOK, "[]GitPullRequestCommentThread", p.threads)
		case http.MethodPost:
			a.createThread(w, p, body)
		default:
			azJSON(w, http.StatusMethodNotAllowed, azError("The requested resource does not support http method '"+r.Method+"'."))
		}
		return
	}
	idText, sub, _ := strings.Cut(rest, "/")
	id, _ := strconv.ParseInt(idText, 10, 64)
	var t map[string]any
	for _, x := range p.threads {
		if x["id"] == id {
			t = x
		}
	}
	if t == nil {
		azJSON(w, http.StatusNotFound, azError("TF401192: Could not find the thread with ID "+idText+"."))
		return
	}
	if a.ReadOnly {
		azJSON(w, http.StatusForbidden, azError("TF401027: You need the Git 'PullRequestContribute' permission to perform this action."))
		return
	}
	switch {
	case sub == "" && r.Method == http.MethodPatch:
		var in struct {
			Status *string `json:"status"`
		}
		if !azDecode(w, "GitPullRequestCommentThread", body, &in) {
			return
		}
		if in.Status != nil {
			t["status"] = *in.Status
		}
		azAnswer(w, http.StatusOK, "GitPullRequestCommentThread", t)
	case sub == "comments" && r.Method == http.MethodPost:
		var in struct {
			ParentCommentID int     `json:"parentCommentId"`
			Content         *string `json:"content"`
			CommentType     string  `json:"commentType"`
		}
		if !azDecode(w, "Comment", body, &in) {
			return
		}
		if in.Content == nil || *in.Content == "" {
			azJSON(w, http.StatusBadRequest, azError("The comment has no content."))
			return
		}
		cs := t["comments"].([]map[string]any)
		c := a.comment(len(cs)+1, in.ParentCommentID, "build", *in.Content)
		t["comments"] = append(cs, c)
		azAnswer(w, http.StatusOK, "Comment", c)
	case strings.HasPrefix(sub, "comments/") && r.Method == http.MethodPatch:
		cid, _ := strconv.Atoi(strings.TrimPrefix(sub, "comments/"))
		var in struct {
			Content *string `json:"content"`
		}
		if !azDecode(w, "Comment", body, &in) {
			return
		}
		for _, c := range t["comments"].([]map[string]any) {
			if c["id"] == cid {
				if c["author"].(map[string]any)["id"] != azIdentities["build"]["id"] {
					azJSON(w, http.StatusForbidden, azError("TF401181: Only the author of a comment may edit it."))
					return
				}
				if in.Content != nil {
					c["content"] = *in.Content
				}
				azAnswer(w, http.StatusOK, "Comment", c)
				return
			}
		}
		azJSON(w, http.StatusNotFound, azError("TF401193: Could not find the comment with ID "+strconv.Itoa(cid)+"."))
	default:
		azJSON(w, http.StatusNotFound, azError("The resource cannot be found."))
	}
}

func (a *Azure) createThread(w http.ResponseWriter, p *azPR, body []byte) {
	var in azThreadIn
	if !azDecode(w, "GitPullRequestCommentThread", body, &in) {
		return
	}
	if ps := in.problems(); len(ps) > 0 {
		azJSON(w, http.StatusBadRequest, azError(strings.Join(ps, " ")))
		return
	}
	if a.ReadOnly {
		azJSON(w, http.StatusForbidden, azError("TF401027: You need the Git 'PullRequestContribute' permission to perform this action."))
		return
	}
	if a.Unplaceable && in.ThreadContext != nil {
		azJSON(w, http.StatusBadRequest, azError("TF401175: The item "+*in.ThreadContext.FilePath+" could not be found in the pull request."))
		return
	}
	status := ""
	if in.Status != nil {
		status = *in.Status
	}
	var ctx map[string]any
	if in.ThreadContext != nil {
		ctx = map[string]any{"filePath": *in.ThreadContext.FilePath,
			"rightFileStart": map[string]any{"line": in.ThreadContext.RightFileStart.Line, "offset": in.ThreadContext.RightFileStart.Offset},
			"rightFileEnd":   map[string]any{"line": in.ThreadContext.RightFileEnd.Line, "offset": in.ThreadContext.RightFileEnd.Offset}}
	}
	t := a.thread("build", *in.Comments[0].Content, status, ctx)
	p.threads = append(p.threads, t)
	azAnswer(w, http.StatusOK, "GitPullRequestCommentThread", t)
}

// status answers POST .../statuses (GitPullRequestStatus).
func (a *Azure) status(w http.ResponseWriter, body []byte) {
	var in struct {
		State       string `json:"state"`
		Description string `json:"description"`
		TargetURL   string `json:"targetUrl"`
		Context     *struct {
			Name  string `json:"name"`
			Genre string `json:"genre"`
		} `json:"context"`
	}
	if !azDecode(w, "GitPullRequestStatus", body, &in) {
		return
	}
	switch {
	case a.ReadOnly:
		azJSON(w, http.StatusForbidden, azError("TF401027: You need the Git 'PullRequestContribute' permission to perform this action."))
	case in.Context == nil || in.Context.Name == "":
		azJSON(w, http.StatusBadRequest, azError("The status context name cannot be null or empty."))
	default:
		out := map[string]any{"id": len(a.statuses) + 1, "state": in.State, "description": in.Description,
			"context": map[string]any{"name": in.Context.Name, "genre": in.Context.Genre}, "createdBy": azIdentities["build"]}
		if in.TargetURL != "" {
			out["targetUrl"] = in.TargetURL
		}
		a.statuses = append(a.statuses, out)
		azAnswer(w, http.StatusOK, "GitPullRequestStatus", out)
	}
}

// azDecode checks body against definition def and reads it into v,
// refusing fields v does not know (400), as the service's model binder
// refuses what it cannot bind.
func azDecode(w http.ResponseWriter, def string, body []byte, v any) bool {
	if err := ValidateAzure(def, body); err != nil {
		azJSON(w, http.StatusBadRequest, azError("The body is not a "+def+": "+strings.Join(strings.Fields(err.Error()), " ")))
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		azJSON(w, http.StatusBadRequest, azError("The body is not a "+def+": "+err.Error()))
		return false
	}
	return true
}

// Threads returns the IDs of the threads review started for findings on
// pull request n (their first comment starts with a finding's marker), in
// the order started.
func (a *Azure) Threads(n string) []int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	var ids []int64
	for key, p := range a.prs {
		if !strings.HasSuffix(key, "!"+n) {
			continue
		}
		for _, t := range p.threads {
			c := t["comments"].([]map[string]any)[0]
			if c["author"].(map[string]any)["id"] == azIdentities["build"]["id"] && strings.HasPrefix(c["content"].(string), "<!-- review:fp=") {
				ids = append(ids, t["id"].(int64))
			}
		}
	}
	return ids
}

// find finds thread id of any pull request.
func (a *Azure) find(id int64) map[string]any {
	for _, p := range a.prs {
		for _, t := range p.threads {
			if t["id"] == id {
				return t
			}
		}
	}
	return nil
}

// SetThreadStatus sets thread id's status, as a person does on the pull
// request's page (fixed is "Resolved" there).
func (a *Azure) SetThreadStatus(id int64, status string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if t := a.find(id); t != nil {
		t["status"] = status
	}
}

// ThreadStatus is thread id's status.
func (a *Azure) ThreadStatus(id int64) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if t := a.find(id); t != nil {
		s, _ := t["status"].(string)
		return s
	}
	return ""
}

// Replies returns the contents of the comments after the first of thread
// id.
func (a *Azure) Replies(id int64) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.find(id)
	if t == nil {
		return nil
	}
	var out []string
	for _, c := range t["comments"].([]map[string]any)[1:] {
		out = append(out, c["content"].(string))
	}
	return out
}

// Statuses returns the pull-request statuses set, in order.
func (a *Azure) Statuses() []map[string]any {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]map[string]any(nil), a.statuses...)
}
