package hosttest

import (
	"encoding/json"
	"fmt"
)

// The event files the hosts' CI hands a job, in the shapes their
// documentation gives, for the scripts that run review as CI would.

// GitHubPREvent is the pull_request event GitHub Actions puts at
// $GITHUB_EVENT_PATH for pull request n with head commit head, from
// branch feature into main.
func GitHubPREvent(n int, head string) []byte {
	return indent(map[string]any{
		"action": "synchronize",
		"number": n,
		"pull_request": map[string]any{
			"number": n,
			"head":   map[string]any{"sha": head, "ref": "feature"},
			"base":   map[string]any{"ref": "main"},
		},
	})
}

// GitHubComment is a comment on a pull request, as its event says.
type GitHubComment struct {
	PR     int
	Body   string
	Author string // the login
	Assoc  string // author_association
	Action string // created, edited, deleted
	// Thread, when not 0, makes it a pull_request_review_comment replying
	// in the thread whose first comment has that ID, on a pull request
	// whose head is Head and base main; else an issue_comment.
	Thread int64
	Head   string
}

// Event is the comment's event as GitHub Actions puts it at
// $GITHUB_EVENT_PATH.
func (c GitHubComment) Event() []byte {
	comment := map[string]any{"id": 9000 + c.PR, "body": c.Body, "author_association": c.Assoc,
		"user": map[string]any{"login": c.Author, "type": "User"}}
	ev := map[string]any{"action": c.Action, "comment": comment}
	if c.Thread > 0 {
		comment["in_reply_to_id"] = c.Thread
		ev["pull_request"] = map[string]any{"number": c.PR, "head": map[string]any{"sha": c.Head}, "base": map[string]any{"ref": "main"}}
	} else {
		ev["issue"] = map[string]any{"number": c.PR, "pull_request": map[string]any{"url": fmt.Sprintf("https://api.github.example/repos/o/r/pulls/%d", c.PR)}}
	}
	return indent(ev)
}

// GitLabNoteEvent is the note event GitLab's webhook sends for a comment
// on merge request iid of project 7, by user, with head as the merge
// request's last commit and main as its target; in discussion when it is
// not "".
func GitLabNoteEvent(iid int, user int64, discussion, body, head string) []byte {
	attrs := map[string]any{"id": 4000 + iid, "note": body, "noteable_type": "MergeRequest"}
	if discussion != "" {
		attrs["discussion_id"] = discussion
	}
	return indent(map[string]any{
		"object_kind": "note", "event_type": "note",
		"user":              map[string]any{"id": user, "username": fmt.Sprintf("user%d", user)},
		"project_id":        7,
		"object_attributes": attrs,
		"merge_request": map[string]any{"iid": iid, "target_branch": "main", "source_branch": "feature",
			"last_commit": map[string]any{"id": head}},
	})
}

func indent(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err) // maps of strings and numbers always encode
	}
	return b
}

// GiteaCommentEvent is the issue_comment event Gitea and Forgejo Actions
// put at $GITHUB_EVENT_PATH for a comment on pull request n by login (its
// IssueCommentPayload: no author association, is_pull set).
func GiteaCommentEvent(n int, login, action, body string) []byte {
	return indent(map[string]any{
		"action":  action,
		"is_pull": true,
		"issue": map[string]any{"number": n, "pull_request": map[string]any{"merged": false},
			"html_url": fmt.Sprintf("https://gitea.example/o/r/pulls/%d", n)},
		"comment": map[string]any{"id": 7000 + n, "body": body, "user": map[string]any{"id": len(login) * 100, "login": login}},
	})
}
