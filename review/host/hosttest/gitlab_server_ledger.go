package hosttest

import (
	"fmt"
	"net/http"
	"regexp"
)

// What the ledger of findings reads and does on GitLab: the merge
// request's discussions (GET .../discussions, two a page, each note as the
// notes listing has it), a discussion resolved (PUT
// .../discussions/:id?resolved=true|false, as GitLab documents it: the
// parameter in the query, only for a discussion with resolvable notes)
// and a note's award emoji (GET .../notes/:note_id/award_emoji).

var (
	glAwardPath = regexp.MustCompile(`^/notes/(\d+)/award_emoji$`)
)

// routeLedger answers the ledger's requests about merge request mr (rest is
// the path after it); false when the request is none of them.
func (g *GitLab) routeLedger(w http.ResponseWriter, r *http.Request, mr *glMR, rest string) bool {
	switch {
	case rest == "/discussions" && r.Method == http.MethodGet:
		glPage(w, r, g.discussions(mr))
	case glDiscussionPath.MatchString(rest) && r.Method == http.MethodPut:
		g.resolveDiscussion(w, r, mr, glDiscussionPath.FindStringSubmatch(rest)[1])
	case glAwardPath.MatchString(rest) && r.Method == http.MethodGet:
		id := glAwardPath.FindStringSubmatch(rest)[1]
		for _, n := range mr.notes {
			if fmt.Sprint(n["id"]) == id {
				glPage(w, r, g.awards[id])
				return true
			}
		}
		glJSON(w, http.StatusNotFound, map[string]string{"message": "404 Note Not Found"})
	default:
		return false
	}
	return true
}

// discussions groups the notes into discussions, oldest first; a note in
// none is a discussion of its own (individual_note), as GitLab lists it.
func (g *GitLab) discussions(mr *glMR) []map[string]any {
	var out []map[string]any
	at := map[string]int{}
	for _, n := range mr.notes {
		id, ok := n["discussion_id"].(string)
		if !ok {
			out = append(out, map[string]any{"id": fmt.Sprintf("%040x", n["id"]), "individual_note": true, "notes": []map[string]any{n}})
			continue
		}
		if i, ok := at[id]; ok {
			out[i]["notes"] = append(out[i]["notes"].([]map[string]any), n)
			continue
		}
		at[id] = len(out)
		out = append(out, map[string]any{"id": id, "individual_note": false, "notes": []map[string]any{n}})
	}
	return out
}

func (g *GitLab) resolveDiscussion(w http.ResponseWriter, r *http.Request, mr *glMR, id string) {
	if g.ReadOnly {
		glJSON(w, http.StatusForbidden, map[string]string{"message": "403 Forbidden"})
		return
	}
	v := r.URL.Query().Get("resolved")
	if v != "true" && v != "false" {
		glJSON(w, http.StatusBadRequest, map[string]string{"error": "resolved is missing"})
		return
	}
	if !g.setResolved(mr, id, v == "true", GitLabUserID, "project_7_bot_0123") {
		glJSON(w, http.StatusNotFound, map[string]string{"message": "404 Discussion Not Found"})
		return
	}
	for _, d := range g.discussions(mr) {
		if d["id"] == id {
			glJSON(w, http.StatusOK, d)
			return
		}
	}
}

// setResolved resolves (or reopens) the resolvable notes of a discussion,
// as user; false when the merge request has no such discussion.
func (g *GitLab) setResolved(mr *glMR, id string, resolved bool, user int64, name string) bool {
	found := false
	for _, n := range mr.notes {
		if n["discussion_id"] != id {
			continue
		}
		found = true
		if n["resolvable"] == true {
			n["resolved"] = resolved
			n["resolved_by"] = nil
			if resolved {
				n["resolved_by"] = map[string]any{"id": user, "username": name}
			}
		}
	}
	return found
}

// Resolve resolves a discussion of merge request project!iid as user, as
// a person does in GitLab's page.
func (g *GitLab) Resolve(project string, iid int, discussion string, user int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.setResolved(g.mr(fmt.Sprintf("%s!%d", project, iid)), discussion, true, user, fmt.Sprintf("user%d", user))
}

// Award awards an emoji (GitLab's name, "thumbsdown") to the first note
// of a discussion of merge request project!iid, as user.
func (g *GitLab) Award(project string, iid int, discussion string, user int64, name string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, n := range g.mr(fmt.Sprintf("%s!%d", project, iid)).notes {
		if n["discussion_id"] == discussion {
			id := fmt.Sprint(n["id"])
			if g.awards == nil {
				g.awards = map[string][]map[string]any{}
			}
			g.nextID++
			g.awards[id] = append(g.awards[id], map[string]any{"id": g.nextID, "name": name,
				"user": map[string]any{"id": user, "username": fmt.Sprintf("user%d", user)}, "awardable_id": n["id"], "awardable_type": "Note"})
			return
		}
	}
}

// ResolvedBy says who resolved a discussion of merge request project!iid
// (a username), or "open".
func (g *GitLab) ResolvedBy(project string, iid int, discussion string) string {
	for _, n := range g.Notes(project, iid) {
		if n["discussion_id"] == discussion && n["resolved"] == true {
			if by, ok := n["resolved_by"].(map[string]any); ok {
				return fmt.Sprint(by["username"])
			}
			return "someone"
		}
	}
	return "open"
}
