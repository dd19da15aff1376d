package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/reviewdev/review/review/reviewtest"
)

// ghServers are the scripted GitHub servers, by script, for ghthread.
var ghServers sync.Map // *testscript.TestScript → *ghServer

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
func (g *ghServer) routeLedger(mux *http.ServeMux) {
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
func (g *ghServer) comment(id int64) map[string]any {
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

func (g *ghServer) graphQL(w http.ResponseWriter, r *http.Request) {
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
		if g.readOnly {
			gqlError("Resource not accessible by integration")
			return
		}
		g.ledger.resolved[id] = "github-actions"
		ghJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"resolveReviewThread": map[string]any{"thread": map[string]any{"id": tid, "isResolved": true}}}})
	default:
		gqlError("review's scripted GitHub answers only the review threads query and the resolveReviewThread mutation")
	}
}

// ghthread does, on the scripted GitHub server, what a person does in the
// nth thread (1-based) review started on pull request pr: resolve it, or
// react 👎 to its comment, as login; or sets $NAME to its first comment's
// ID: `ghthread resolve|thumbsdown pr n login` or `ghthread id NAME pr n`.
// `ghthread resolved pr n` prints who resolved it, or "open"; `ghthread
// reopen pr n` reopens it.
func cmdGHThread(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: ghthread resolve|thumbsdown pr n login | ghthread id NAME pr n | ghthread resolved|reopen pr n")
	}
	v, ok := ghServers.Load(ts)
	if !ok {
		ts.Fatalf("ghthread: no githubserver in this script")
	}
	g := v.(*ghServer)
	g.mu.Lock()
	defer g.mu.Unlock()
	op, rest := args[0], args[1:]
	name := ""
	if op == "id" {
		if len(rest) != 3 {
			ts.Fatalf("usage: ghthread id NAME pr n")
		}
		name, rest = rest[0], rest[1:]
	}
	pr, n := rest[0], 0
	n, err := strconv.Atoi(rest[1])
	ts.Check(err)
	var p *ghPR
	for key, q := range g.prs {
		if strings.HasSuffix(key, "#"+pr) {
			p = q
		}
	}
	if p == nil {
		ts.Fatalf("ghthread: no pull request #%s", pr)
	}
	var starts []int64
	for _, c := range p.comments {
		if c["in_reply_to_id"] == nil && c["user"].(map[string]any)["type"] == "Bot" {
			starts = append(starts, c["id"].(int64))
		}
	}
	if n < 1 || n > len(starts) {
		ts.Fatalf("ghthread: pull request #%s has %d threads review started", pr, len(starts))
	}
	id := starts[n-1]
	switch op {
	case "id":
		ts.Setenv(name, strconv.FormatInt(id, 10))
	case "resolved":
		who, ok := g.ledger.resolved[id]
		if !ok {
			who = "open"
		}
		fmt.Fprintln(ts.Stdout(), who)
	case "reopen":
		delete(g.ledger.resolved, id)
	case "resolve", "thumbsdown":
		if len(rest) != 3 {
			ts.Fatalf("usage: ghthread %s pr n login", op)
		}
		if op == "resolve" {
			g.ledger.resolved[id] = rest[2]
			return
		}
		g.nextID++
		g.ledger.reactions[id] = append(g.ledger.reactions[id], map[string]any{"id": g.nextID, "content": "-1",
			"user": map[string]any{"login": rest[2], "type": "User"}})
	default:
		ts.Fatalf("ghthread: unknown %q", op)
	}
}

// glthread does, on the scripted GitLab server, what a person does in the
// nth discussion (1-based) of merge request project!iid: resolve it, or
// award 👎 to its first note, as user id; `glthread resolved project iid
// n` prints who resolved it, or "open": `glthread resolve|thumbsdown
// project iid n user`.
func cmdGLThread(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 4 {
		ts.Fatalf("usage: glthread resolve|thumbsdown project iid n user | glthread resolved project iid n")
	}
	v, ok := glServers.Load(ts)
	if !ok {
		ts.Fatalf("glthread: no gitlabserver in this script")
	}
	g := v.(*reviewtest.GitLab)
	iid, err := strconv.Atoi(args[2])
	ts.Check(err)
	n, err := strconv.Atoi(args[3])
	ts.Check(err)
	ids := g.Discussions(args[1], iid)
	if n < 1 || n > len(ids) {
		ts.Fatalf("merge request %s!%d has %d discussions", args[1], iid, len(ids))
	}
	switch args[0] {
	case "resolved":
		fmt.Fprintln(ts.Stdout(), g.ResolvedBy(args[1], iid, ids[n-1]))
	case "resolve", "thumbsdown":
		if len(args) != 5 {
			ts.Fatalf("usage: glthread %s project iid n user", args[0])
		}
		user, err := strconv.ParseInt(args[4], 10, 64)
		ts.Check(err)
		if args[0] == "resolve" {
			g.Resolve(args[1], iid, ids[n-1], user)
		} else {
			g.Award(args[1], iid, ids[n-1], user, "thumbsdown")
		}
	default:
		ts.Fatalf("glthread: unknown %q", args[0])
	}
}
