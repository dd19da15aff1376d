package hosttest

import (
	"reflect"
	"testing"
)

// TestGiteaMentions holds the oracle to Gitea's mention rule: the cases of
// Gitea's own tests of FindAllMentionsMarkdown and FindAllMentionsBytes,
// and Markdown it strips.
func TestGiteaMentions(t *testing.T) {
	tests := []struct {
		body string
		want []string
	}{
		{"@Unknwon, what do you think?", []string{"Unknwon"}},
		{"This is for @mike-nightly.", []string{"mike-nightly"}},
		{"@user1 @user2", []string{"user1", "user2"}},
		{"(@org/team)", []string{"org/team"}},
		{"mail@example.com", nil},
		{"`@alice` in code", nil},
		{"```\n@alice\n```", nil},
		{"[@alice](https://x.example)", nil},
		{"@\u2060alice", nil},
		{"ask @alice's view", []string{"alice"}},
		{"**@alice**", []string{"alice"}},
	}
	for _, tt := range tests {
		if got := GiteaMentions(tt.body); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("GiteaMentions(%q) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

// TestValidateGitea: the vendored definitions of Gitea's swagger take what
// Gitea sends and is sent, a nil pointer's null included, and refuse a
// body of another shape.
func TestValidateGitea(t *testing.T) {
	for _, tt := range []struct {
		def, body string
		ok        bool
	}{
		{"CreatePullReviewOptions", `{"commit_id": "c", "event": "COMMENT", "body": "b", "comments": [{"path": "a.go", "new_position": 7, "body": "x"}]}`, true},
		{"CreatePullReviewOptions", `{"comments": [{"path": "a.go", "new_position": "seven"}]}`, false},
		{"CreateIssueCommentOption", `{"body": "x"}`, true},
		{"CreateIssueCommentOption", `{"text": "x"}`, false},
		{"CreateStatusOption", `{"state": "success", "context": "review", "description": "complete"}`, true},
		{"PullReviewComment", `{"id": 3, "position": 7, "resolver": null, "user": {"id": -2, "login": "gitea-actions"}}`, true},
		{"PullReviewComment", `{"id": "3"}`, false},
		{"[]Reaction", `[{"content": "-1", "user": {"login": "bob"}}]`, true},
		{"[]Reaction", `{"content": "-1"}`, false},
	} {
		if err := ValidateGitea(tt.def, []byte(tt.body)); (err == nil) != tt.ok {
			t.Errorf("%s %s: %v", tt.def, tt.body, err)
		}
	}
}
