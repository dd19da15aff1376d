package hosttest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
)

// File returns a file on a branch of the scripted GitLab's repository, as
// a proposal committed it; ok is false when there is none.
func (g *GitLab) File(branchName, path string) (string, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.repo.file(branchName, path)
}

// MergeRequests returns the merge requests opened through the API.
func (g *GitLab) MergeRequests() []map[string]any {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]map[string]any(nil), g.opened...)
}

var (
	glMRList    = regexp.MustCompile(`^/api/v4/projects/([^/]+)/merge_requests$`)
	glBranches  = regexp.MustCompile(`^/api/v4/projects/([^/]+)/repository/branches(?:/([^/]+))?$`)
	glFilesPath = regexp.MustCompile(`^/api/v4/projects/([^/]+)/repository/files/([^/]+)$`)
)

// routeLearnings serves what proposing a learning uses, in the shapes of
// GitLab's REST API documentation (doc/api/merge_requests.md, branches.md,
// repository_files.md): GET and POST /projects/:id/merge_requests (the
// open ones filtered by source and target branch; 409 for a second open
// one from the same source), POST /projects/:id/repository/branches
// (400 "Branch already exists") and DELETE .../branches/:branch, GET,
// POST and PUT /projects/:id/repository/files/:file_path (base64 content
// on GET; POST of a file that exists and PUT of one that does not are
// 400, as GitLab answers them). It reports whether it answered.
func (g *GitLab) routeLearnings(w http.ResponseWriter, r *http.Request) bool {
	p := r.URL.EscapedPath()
	if g.repo == nil {
		g.repo = newRepo(g.Files)
	}
	switch {
	case glMRList.MatchString(p):
		g.mergeRequests(w, r)
	case glBranches.MatchString(p):
		g.branches(w, r, glBranches.FindStringSubmatch(p)[2])
	case glFilesPath.MatchString(p):
		path, _ := url.PathUnescape(glFilesPath.FindStringSubmatch(p)[2])
		g.files(w, r, path)
	default:
		return false
	}
	return true
}

func (g *GitLab) mergeRequests(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		q := r.URL.Query()
		out := []map[string]any{}
		for _, m := range g.opened {
			if (q.Get("state") == "" || q.Get("state") == m["state"]) && (q.Get("source_branch") == "" || q.Get("source_branch") == m["source_branch"]) &&
				(q.Get("target_branch") == "" || q.Get("target_branch") == m["target_branch"]) {
				out = append(out, m)
			}
		}
		glJSON(w, http.StatusOK, out)
		return
	}
	var in struct {
		SourceBranch string `json:"source_branch"`
		TargetBranch string `json:"target_branch"`
		Title        string `json:"title"`
		Description  string `json:"description"`
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil || in.Title == "" || g.repo.branches[in.SourceBranch] == nil || g.repo.branches[in.TargetBranch] == nil {
		glJSON(w, http.StatusBadRequest, map[string]string{"message": "400 Bad request - source_branch, target_branch and title are required and must exist"})
		return
	}
	for _, m := range g.opened {
		if m["state"] == "opened" && m["source_branch"] == in.SourceBranch {
			glJSON(w, http.StatusConflict, map[string]any{"message": []string{"Another open merge request already exists for this source branch"}})
			return
		}
	}
	iid := 100 + len(g.opened) + 1
	m := map[string]any{"id": 9000 + iid, "iid": iid, "state": "opened", "title": in.Title, "description": in.Description,
		"source_branch": in.SourceBranch, "target_branch": in.TargetBranch,
		"web_url": fmt.Sprintf("https://gitlab.example/group/proj/-/merge_requests/%d", iid)}
	g.opened = append(g.opened, m)
	glJSON(w, http.StatusCreated, m)
}

func (g *GitLab) branches(w http.ResponseWriter, r *http.Request, escaped string) {
	switch {
	case r.Method == http.MethodPost && escaped == "":
		q := r.URL.Query()
		name, ref := q.Get("branch"), q.Get("ref")
		from := g.repo.branches[ref]
		switch {
		case name == "" || from == nil:
			glJSON(w, http.StatusBadRequest, map[string]string{"message": "Invalid reference name"})
		case g.repo.branches[name] != nil:
			glJSON(w, http.StatusBadRequest, map[string]string{"message": "Branch already exists"})
		default:
			b := &branch{sha: from.sha, files: copyFiles(from.files)}
			g.repo.branches[name] = b
			glJSON(w, http.StatusCreated, map[string]any{"name": name, "commit": map[string]any{"id": b.sha}})
		}
	case r.Method == http.MethodDelete && escaped != "":
		name, _ := url.PathUnescape(escaped)
		if g.repo.branches[name] == nil {
			glJSON(w, http.StatusNotFound, map[string]string{"message": "404 Branch Not Found"})
			return
		}
		delete(g.repo.branches, name)
		w.WriteHeader(http.StatusNoContent)
	default:
		glJSON(w, http.StatusNotFound, map[string]string{"message": "404 Not Found"})
	}
}

func (g *GitLab) files(w http.ResponseWriter, r *http.Request, path string) {
	if r.Method == http.MethodGet {
		b := g.repo.branches[r.URL.Query().Get("ref")]
		content, ok := "", false
		if b != nil {
			content, ok = b.files[path]
		}
		if !ok {
			glJSON(w, http.StatusNotFound, map[string]string{"message": "404 File Not Found"})
			return
		}
		glJSON(w, http.StatusOK, map[string]any{"file_path": path, "size": len(content), "encoding": "base64", "blob_id": blob(content),
			"content": base64.StdEncoding.EncodeToString([]byte(content)), "ref": r.URL.Query().Get("ref")})
		return
	}
	var in struct {
		Branch        string `json:"branch"`
		Content       string `json:"content"`
		CommitMessage string `json:"commit_message"`
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil || in.Branch == "" || in.CommitMessage == "" {
		glJSON(w, http.StatusBadRequest, map[string]string{"message": "branch, content and commit_message are required"})
		return
	}
	b := g.repo.branches[in.Branch]
	if b == nil {
		glJSON(w, http.StatusBadRequest, map[string]string{"message": "You can only create or edit files when you are on a branch"})
		return
	}
	_, exists := b.files[path]
	switch {
	case r.Method == http.MethodPost && exists:
		glJSON(w, http.StatusBadRequest, map[string]string{"message": "A file with this name already exists"})
		return
	case r.Method == http.MethodPut && !exists:
		glJSON(w, http.StatusBadRequest, map[string]string{"message": "A file with this name doesn't exist"})
		return
	case r.Method != http.MethodPost && r.Method != http.MethodPut:
		glJSON(w, http.StatusNotFound, map[string]string{"message": "404 Not Found"})
		return
	}
	b.files[path] = in.Content
	b.sha = g.repo.commit()
	status := http.StatusOK
	if !exists {
		status = http.StatusCreated
	}
	glJSON(w, status, map[string]any{"file_path": path, "branch": in.Branch})
}
