package hosttest

import (
	"reflect"
	"testing"
)

// TestAzureMentions holds the oracle to Azure DevOps' mention rule: the
// "@<ID>" the web client writes for a person picked after "@", wherever
// it is in the text, code included; a plain "@name" is text.
func TestAzureMentions(t *testing.T) {
	tests := []struct {
		body string
		want []string
	}{
		{"@<0b6d7f7e-1a2b-4c3d-8e9f-a0b1c2d3e4f5> please look", []string{"0b6d7f7e-1a2b-4c3d-8e9f-a0b1c2d3e4f5"}},
		{"cc @<A> and @<B>.", []string{"A", "B"}},
		{"`@<0b6d7f7e-1a2b-4c3d-8e9f-a0b1c2d3e4f5>` in code", []string{"0b6d7f7e-1a2b-4c3d-8e9f-a0b1c2d3e4f5"}},
		{"```\n@<x>\n```", []string{"x"}},
		{"@alice and @all", nil},
		{"@&lt;x>", nil},
		{"@\u2060<x>", nil},
		{"@< x>", nil},
		{"@<>", nil},
	}
	for _, tt := range tests {
		if got := AzureMentions(tt.body); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("AzureMentions(%q) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

// TestValidateAzure: the vendored definitions of the REST API 7.1 take
// what Azure DevOps sends and is sent, a null included, and refuse a body
// of another shape.
func TestValidateAzure(t *testing.T) {
	for _, tt := range []struct {
		def, body string
		ok        bool
	}{
		{"GitPullRequestCommentThread", `{"comments": [{"parentCommentId": 0, "content": "x", "commentType": "text"}], "status": "active", "threadContext": {"filePath": "/a.go", "rightFileStart": {"line": 7, "offset": 1}, "rightFileEnd": {"line": 7, "offset": 1}}}`, true},
		{"GitPullRequestCommentThread", `{"comments": [{"content": "x"}], "status": "resolved"}`, false},
		{"GitPullRequestCommentThread", `{"threadContext": {"rightFileStart": {"line": "seven"}}}`, false},
		{"GitPullRequestCommentThread", `{"id": 3, "threadContext": null, "comments": []}`, true},
		{"Comment", `{"content": "x", "parentCommentId": 1, "commentType": "text"}`, true},
		{"Comment", `{"content": 7}`, false},
		{"GitPullRequestStatus", `{"state": "succeeded", "context": {"name": "review"}, "description": "complete"}`, true},
		{"GitPullRequestStatus", `{"state": "success", "context": {"name": "review"}}`, false},
		{"[]GitPullRequestCommentThread", `[{"id": 1, "status": "wontFix"}]`, true},
		{"[]GitPullRequestCommentThread", `{"id": 1}`, false},
	} {
		if err := ValidateAzure(tt.def, []byte(tt.body)); (err == nil) != tt.ok {
			t.Errorf("%s %s: %v", tt.def, tt.body, err)
		}
	}
}
