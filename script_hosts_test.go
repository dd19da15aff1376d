package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/reviewdev/review/review/reviewtest"
)

// ghcomment writes the comment event GitHub Actions would put at
// $GITHUB_EVENT_PATH: an issue_comment on pull request n, or with -thread
// a pull_request_review_comment replying in the thread whose first
// comment has that ID (the event then carries the pull request's head, the
// current HEAD, and base main): `ghcomment [-assoc A] [-author L]
// [-thread ID] [-action created] file n body`.
func cmdGHComment(ts *testscript.TestScript, neg bool, args []string) {
	fl := flag.NewFlagSet("ghcomment", flag.ContinueOnError)
	assoc := fl.String("assoc", "COLLABORATOR", "the author's author_association")
	author := fl.String("author", "carol", "the author's login")
	thread := fl.Int64("thread", 0, "the review comment thread replied in")
	action := fl.String("action", "created", "the event's action")
	if neg || fl.Parse(args) != nil || fl.NArg() != 3 {
		ts.Fatalf("usage: ghcomment [-assoc A] [-author L] [-thread ID] [-action created] file n body")
	}
	n, err := strconv.Atoi(fl.Arg(1))
	ts.Check(err)
	comment := map[string]any{"id": 9000 + n, "body": fl.Arg(2), "author_association": *assoc,
		"user": map[string]any{"login": *author, "type": "User"}}
	ev := map[string]any{"action": *action, "comment": comment}
	if *thread > 0 {
		comment["in_reply_to_id"] = *thread
		head := strings.TrimSpace(git(ts, "rev-parse", "HEAD"))
		ev["pull_request"] = map[string]any{"number": n, "head": map[string]any{"sha": head}, "base": map[string]any{"ref": "main"}}
	} else {
		ev["issue"] = map[string]any{"number": n, "pull_request": map[string]any{"url": "https://api.github.example/repos/o/r/pulls/" + fl.Arg(1)}}
	}
	b, err := json.MarshalIndent(ev, "", "  ")
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(fl.Arg(0)), b, 0o644))
}

// routeConversation serves what review comment and the commit status use:
// GET .../pulls/{n} (the head given to githubserver, base main), the
// pull request's conversation comments (GET and POST
// .../issues/{n}/comments), replies in a review comment thread (POST
// .../pulls/{n}/comments with in_reply_to, only under a thread's first
// comment, as GitHub requires), GET .../pulls/comments/{id}, and POST
// .../statuses/{sha} in GitHub's documented shape.
func (g *ghServer) routeConversation(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v3/repos/{owner}/{repo}/pulls/{n}", func(w http.ResponseWriter, r *http.Request) {
		repo := map[string]any{"full_name": r.PathValue("owner") + "/" + r.PathValue("repo")}
		n, _ := strconv.Atoi(r.PathValue("n"))
		ghJSON(w, http.StatusOK, map[string]any{"number": n, "state": "open",
			"head": map[string]any{"sha": g.head, "ref": "feature", "repo": repo},
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

// glServers are the scripted GitLab servers, by script, for gldiscussion.
var glServers sync.Map // *testscript.TestScript → *reviewtest.GitLab

// glMembers reads gitlabserver's -members: id=level,...
func glMembers(ts *testscript.TestScript, spec string) map[int64]int {
	m := map[int64]int{}
	for _, kv := range strings.FieldsFunc(spec, func(r rune) bool { return r == ',' }) {
		k, v, ok := strings.Cut(kv, "=")
		id, err1 := strconv.ParseInt(k, 10, 64)
		level, err2 := strconv.Atoi(v)
		if !ok || err1 != nil || err2 != nil {
			ts.Fatalf("gitlabserver -members %q: want id=level,...", spec)
		}
		m[id] = level
	}
	return m
}

// gldiscussion sets $NAME to the ID of the nth discussion (1-based) of
// merge request project!iid on the script's GitLab server: `gldiscussion
// NAME project iid n`.
func cmdGLDiscussion(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: gldiscussion NAME project iid n")
	}
	v, ok := glServers.Load(ts)
	if !ok {
		ts.Fatalf("gldiscussion: no gitlabserver in this script")
	}
	iid, err := strconv.Atoi(args[2])
	ts.Check(err)
	n, err := strconv.Atoi(args[3])
	ts.Check(err)
	ids := v.(*reviewtest.GitLab).Discussions(args[1], iid)
	if n < 1 || n > len(ids) {
		ts.Fatalf("merge request %s!%d has %d discussions", args[1], iid, len(ids))
	}
	ts.Setenv(args[0], ids[n-1])
}

// glnote writes the note event GitLab's webhook sends for a comment on
// merge request iid of project 7, by user id, with the current HEAD as
// the merge request's last commit and main as its target; -discussion
// puts it in that discussion: `glnote [-user id] [-discussion ID] file iid body`.
func cmdGLNote(ts *testscript.TestScript, neg bool, args []string) {
	fl := flag.NewFlagSet("glnote", flag.ContinueOnError)
	user := fl.Int64("user", 5, "the author's user ID")
	discussion := fl.String("discussion", "", "the discussion the note is in")
	if neg || fl.Parse(args) != nil || fl.NArg() != 3 {
		ts.Fatalf("usage: glnote [-user id] [-discussion ID] file iid body")
	}
	iid, err := strconv.Atoi(fl.Arg(1))
	ts.Check(err)
	head := strings.TrimSpace(git(ts, "rev-parse", "HEAD"))
	attrs := map[string]any{"id": 4000 + iid, "note": fl.Arg(2), "noteable_type": "MergeRequest"}
	if *discussion != "" {
		attrs["discussion_id"] = *discussion
	}
	ev := map[string]any{
		"object_kind": "note", "event_type": "note",
		"user":              map[string]any{"id": *user, "username": fmt.Sprintf("user%d", *user)},
		"project_id":        7,
		"object_attributes": attrs,
		"merge_request": map[string]any{"iid": iid, "target_branch": "main", "source_branch": "feature",
			"last_commit": map[string]any{"id": head}},
	}
	b, err := json.MarshalIndent(ev, "", "  ")
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(fl.Arg(0)), b, 0o644))
}
