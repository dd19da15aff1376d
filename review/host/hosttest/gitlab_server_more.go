package hosttest

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
)

var (
	glStatusPath     = regexp.MustCompile(`^/api/v4/projects/([^/]+)/statuses/([0-9a-f]{40})$`)
	glMemberPath     = regexp.MustCompile(`^/api/v4/projects/([^/]+)/members/all/(\d+)$`)
	glReplyPath      = regexp.MustCompile(`^/discussions/([0-9a-f]{40})/notes$`)
	glDiscussionPath = regexp.MustCompile(`^/discussions/([0-9a-f]{40})$`)
)

// routeMore answers what is not about one merge request: POST
// /projects/:id/statuses/:sha, a commit status as GitLab documents it
// (state pending, running, success, failed or canceled; name; description
// of at most 255 characters).
func (g *GitLab) routeMore(w http.ResponseWriter, r *http.Request) bool {
	if m := glMemberPath.FindStringSubmatch(r.URL.EscapedPath()); m != nil && r.Method == http.MethodGet {
		id, _ := strconv.ParseInt(m[2], 10, 64)
		level, ok := g.Members[id]
		if !ok {
			glJSON(w, http.StatusNotFound, map[string]string{"message": "404 Not found"})
			return true
		}
		glJSON(w, http.StatusOK, map[string]any{"id": id, "username": fmt.Sprintf("user%d", id), "access_level": level})
		return true
	}
	m := glStatusPath.FindStringSubmatch(r.URL.EscapedPath())
	if m == nil || r.Method != http.MethodPost {
		return false
	}
	if g.ReadOnly {
		glJSON(w, http.StatusForbidden, map[string]string{"message": "403 Forbidden"})
		return true
	}
	var in struct {
		State       string `json:"state"`
		Name        string `json:"name"`
		Description string `json:"description"`
		TargetURL   string `json:"target_url"`
	}
	if !glDecode(w, r, &in) {
		return true
	}
	switch in.State {
	case "pending", "running", "success", "failed", "canceled":
	default:
		glJSON(w, http.StatusBadRequest, map[string]string{"error": fmt.Sprintf("state does not have a valid value: %q", in.State)})
		return true
	}
	if len([]rune(in.Description)) > 255 {
		glJSON(w, http.StatusBadRequest, map[string]string{"error": "description is too long"})
		return true
	}
	st := map[string]any{"sha": m[2], "status": in.State, "name": in.Name, "description": in.Description}
	g.Statuses = append(g.Statuses, st)
	glJSON(w, http.StatusCreated, st)
	return true
}

// postReply adds a note to a discussion a merge request has, or answers
// 404 as GitLab does for one it does not.
func (g *GitLab) postReply(w http.ResponseWriter, r *http.Request, mr *glMR, discussion string) {
	body, ok := g.noteBody(w, r)
	if !ok {
		return
	}
	for _, n := range mr.notes {
		if n["discussion_id"] == discussion {
			reply := g.note(GitLabUserID, "project_7_bot_0123", body, nil)
			reply["discussion_id"] = discussion
			mr.notes = append(mr.notes, reply)
			glJSON(w, http.StatusCreated, reply)
			return
		}
	}
	glJSON(w, http.StatusNotFound, map[string]string{"message": "404 Discussion Not Found"})
}

// getDiscussion answers a discussion of the merge request with its notes.
func (g *GitLab) getDiscussion(w http.ResponseWriter, mr *glMR, id string) {
	var notes []map[string]any
	for _, n := range mr.notes {
		if n["discussion_id"] == id {
			notes = append(notes, n)
		}
	}
	if len(notes) == 0 {
		glJSON(w, http.StatusNotFound, map[string]string{"message": "404 Discussion Not Found"})
		return
	}
	glJSON(w, http.StatusOK, map[string]any{"id": id, "individual_note": false, "notes": notes})
}

// Discussions returns the IDs of the discussions of merge request
// project!iid, oldest first.
func (g *GitLab) Discussions(project string, iid int) []string {
	var ids []string
	seen := map[string]bool{}
	for _, n := range g.Notes(project, iid) {
		if id, ok := n["discussion_id"].(string); ok && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids
}

// routeThreads answers GET .../discussions/:id and POST
// .../discussions/:id/notes of a merge request.
func (g *GitLab) routeThreads(w http.ResponseWriter, r *http.Request, mr *glMR, rest string) bool {
	switch {
	case glDiscussionPath.MatchString(rest) && r.Method == http.MethodGet:
		g.getDiscussion(w, mr, glDiscussionPath.FindStringSubmatch(rest)[1])
	case glReplyPath.MatchString(rest) && r.Method == http.MethodPost:
		g.postReply(w, r, mr, glReplyPath.FindStringSubmatch(rest)[1])
	default:
		return false
	}
	return true
}
