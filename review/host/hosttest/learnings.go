package hosttest

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// repo is a repository's branches as the learnings proposals use them:
// each branch's commit and files. Only what a proposal reads and writes
// is kept: the files it was given and those committed.
type repo struct {
	branches map[string]*branch
	commits  int
}

type branch struct {
	sha   string
	files map[string]string
}

// newRepo starts a repository with its main branch holding files.
func newRepo(files map[string]string) *repo {
	r := &repo{branches: map[string]*branch{}}
	main := &branch{files: map[string]string{}}
	for k, v := range files {
		main.files[k] = v
	}
	main.sha = r.commit()
	r.branches["main"] = main
	return r
}

// commit names a new commit.
func (r *repo) commit() string {
	r.commits++
	h := sha1.Sum([]byte("commit " + strconv.Itoa(r.commits)))
	return hex.EncodeToString(h[:])
}

// blob is the git blob SHA of content, as hosts name a file's version.
func blob(content string) string {
	h := sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(content), content)))
	return hex.EncodeToString(h[:])
}

// File returns a file on a branch of the scripted GitHub's repository,
// as a proposal committed it; ok is false when there is none.
func (g *GitHub) File(branchName, path string) (string, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.repo.file(branchName, path)
}

// file is a file of a branch; ok is false when there is none.
func (r *repo) file(branchName, path string) (string, bool) {
	if r == nil || r.branches[branchName] == nil {
		return "", false
	}
	s, ok := r.branches[branchName].files[path]
	return s, ok
}

// Pulls returns the pull requests opened through the API, as GitHub lists
// them.
func (g *GitHub) Pulls() []map[string]any {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]map[string]any(nil), g.pulls...)
}

// routeLearnings serves what proposing a learning uses, in the shapes of
// GitHub's REST API description (github/rest-api-description,
// api.github.com.json): GET .../git/ref/heads/{branch}, POST .../git/refs
// (422 "Reference already exists" for a branch that does), PATCH
// .../git/refs/heads/{branch} (force), GET and PUT .../contents/{path}
// (the content base64; an update needs the blob SHA it replaces, 409 when
// it is stale, 422 when it is missing), and GET and POST .../pulls (open
// pull requests filtered by head owner:branch and base; 422 for a second
// one from the same head).
func (g *GitHub) routeLearnings(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v3/repos/{owner}/{repo}/git/ref/{ref...}", func(w http.ResponseWriter, r *http.Request) {
		name, ok := strings.CutPrefix(r.PathValue("ref"), "heads/")
		b := g.repo.branches[name]
		if !ok || b == nil {
			ghJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
			return
		}
		ghJSON(w, http.StatusOK, ghRef(name, b))
	})
	mux.HandleFunc("POST /api/v3/repos/{owner}/{repo}/git/refs", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Ref, SHA string }
		if json.NewDecoder(r.Body).Decode(&in) != nil || !strings.HasPrefix(in.Ref, "refs/heads/") || !ghSHA.MatchString(in.SHA) {
			ghJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Validation Failed: ref must start with refs/heads/ and sha be a commit"})
			return
		}
		name := strings.TrimPrefix(in.Ref, "refs/heads/")
		if g.repo.branches[name] != nil {
			ghJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Reference already exists"})
			return
		}
		from := g.repo.at(in.SHA)
		if from == nil {
			ghJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Object does not exist"})
			return
		}
		b := &branch{sha: in.SHA, files: copyFiles(from.files)}
		g.repo.branches[name] = b
		ghJSON(w, http.StatusCreated, ghRef(name, b))
	})
	mux.HandleFunc("PATCH /api/v3/repos/{owner}/{repo}/git/refs/{ref...}", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			SHA   string
			Force bool
		}
		name, ok := strings.CutPrefix(r.PathValue("ref"), "heads/")
		b := g.repo.branches[name]
		if json.NewDecoder(r.Body).Decode(&in) != nil || !ok || b == nil {
			ghJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Reference does not exist"})
			return
		}
		from := g.repo.at(in.SHA)
		if from == nil || !in.Force {
			ghJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Update is not a fast forward"})
			return
		}
		b.sha, b.files = in.SHA, copyFiles(from.files)
		ghJSON(w, http.StatusOK, ghRef(name, b))
	})
	mux.HandleFunc("GET /api/v3/repos/{owner}/{repo}/contents/{path...}", g.getContents)
	mux.HandleFunc("PUT /api/v3/repos/{owner}/{repo}/contents/{path...}", g.putContents)
	mux.HandleFunc("GET /api/v3/repos/{owner}/{repo}/pulls", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		var out []map[string]any
		for _, p := range g.pulls {
			head := p["head"].(map[string]any)
			base := p["base"].(map[string]any)
			if (q.Get("state") == "" || q.Get("state") == p["state"]) &&
				(q.Get("head") == "" || q.Get("head") == r.PathValue("owner")+":"+head["ref"].(string)) &&
				(q.Get("base") == "" || q.Get("base") == base["ref"]) {
				out = append(out, p)
			}
		}
		ghPage(w, r, out)
	})
	mux.HandleFunc("POST /api/v3/repos/{owner}/{repo}/pulls", g.createPull)
}

// at is the branch whose head is sha.
func (r *repo) at(sha string) *branch {
	for _, b := range r.branches {
		if b.sha == sha {
			return b
		}
	}
	return nil
}

func copyFiles(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func ghRef(name string, b *branch) map[string]any {
	return map[string]any{"ref": "refs/heads/" + name, "node_id": "REF_" + name, "url": "https://api.github.example/refs/heads/" + name,
		"object": map[string]any{"sha": b.sha, "type": "commit", "url": "https://api.github.example/commits/" + b.sha}}
}

func (g *GitHub) getContents(w http.ResponseWriter, r *http.Request) {
	ref := r.URL.Query().Get("ref")
	if ref == "" {
		ref = "main"
	}
	b := g.repo.branches[ref]
	path := r.PathValue("path")
	content, ok := "", false
	if b != nil {
		content, ok = b.files[path]
	}
	if !ok {
		ghJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return
	}
	ghJSON(w, http.StatusOK, map[string]any{"type": "file", "encoding": "base64", "size": len(content), "name": path[strings.LastIndexByte(path, '/')+1:],
		"path": path, "sha": blob(content), "content": base64.StdEncoding.EncodeToString([]byte(content))})
}

func (g *GitHub) putContents(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Message, Content, SHA, Branch string
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		ghJSON(w, http.StatusBadRequest, map[string]string{"message": "Problems parsing JSON"})
		return
	}
	data, err := base64.StdEncoding.DecodeString(in.Content)
	b := g.repo.branches[in.Branch]
	switch {
	case err != nil || in.Message == "" || in.Branch == "":
		ghJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Validation Failed: message, base64 content and branch are required"})
		return
	case b == nil:
		ghJSON(w, http.StatusNotFound, map[string]string{"message": "Branch " + in.Branch + " not found"})
		return
	}
	path := r.PathValue("path")
	old, exists := b.files[path]
	switch {
	case exists && in.SHA == "":
		ghJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": `Invalid request. "sha" wasn't supplied.`})
		return
	case exists && in.SHA != blob(old):
		ghJSON(w, http.StatusConflict, map[string]string{"message": path + " does not match " + in.SHA})
		return
	}
	b.files[path] = string(data)
	b.sha = g.repo.commit()
	status := http.StatusOK
	if !exists {
		status = http.StatusCreated
	}
	ghJSON(w, status, map[string]any{"content": map[string]any{"path": path, "sha": blob(string(data)), "type": "file"},
		"commit": map[string]any{"sha": b.sha, "message": in.Message}})
}

func (g *GitHub) createPull(w http.ResponseWriter, r *http.Request) {
	var in struct{ Title, Head, Base, Body string }
	if json.NewDecoder(r.Body).Decode(&in) != nil || in.Title == "" || g.repo.branches[in.Head] == nil || g.repo.branches[in.Base] == nil {
		ghJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Validation Failed: title, and head and base branches that exist"})
		return
	}
	for _, p := range g.pulls {
		if p["state"] == "open" && p["head"].(map[string]any)["ref"] == in.Head {
			ghJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "A pull request already exists for " + r.PathValue("owner") + ":" + in.Head + "."})
			return
		}
	}
	n := 100 + len(g.pulls) + 1
	p := map[string]any{"number": n, "state": "open", "title": in.Title, "body": in.Body,
		"html_url": fmt.Sprintf("https://github.example/%s/%s/pull/%d", r.PathValue("owner"), r.PathValue("repo"), n),
		"head":     map[string]any{"ref": in.Head, "sha": g.repo.branches[in.Head].sha},
		"base":     map[string]any{"ref": in.Base, "sha": g.repo.branches[in.Base].sha}}
	g.pulls = append(g.pulls, p)
	ghJSON(w, http.StatusCreated, p)
}
