package hosttest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// TestBitbucketMentions holds the oracle to what Bitbucket notifies: a
// nickname or an account ID in braces after "@", as the page shows the
// text, never in code or an address.
func TestBitbucketMentions(t *testing.T) {
	for _, tt := range []struct {
		body string
		want []string
	}{
		{"@alice, what do you think?", []string{"alice"}},
		{"ask @{557058:0fe2-4c}", []string{"{557058:0fe2-4c}"}},
		{"mail@example.com", nil},
		{"`@alice` in code", nil},
		{"```\n@alice\n```", nil},
		{"[@alice](https://x.example)", []string{"alice"}},
		{"@\u2060alice", nil},
		{"**@alice**", []string{"alice"}},
		{"a\n@bob", []string{"bob"}},
		{"&#64;carol", []string{"carol"}},
		{"x_@dave", nil},
	} {
		if got := BitbucketMentions(tt.body); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("BitbucketMentions(%q) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

// TestValidateBitbucket: the vendored definitions of Bitbucket's swagger
// take what Bitbucket sends and is sent, a request without its "type"
// included, and refuse a body of another shape.
func TestValidateBitbucket(t *testing.T) {
	for _, tt := range []struct {
		def, body string
		request   bool
		ok        bool
	}{
		{"pullrequest_comment", `{"content": {"raw": "x"}, "inline": {"path": "a.go", "to": 7}}`, true, true},
		{"pullrequest_comment", `{"content": {"raw": "x"}, "inline": {"path": "a.go", "to": 0}}`, true, false},
		{"pullrequest_comment", `{"content": {"text": "x"}}`, true, false},
		{"pullrequest_comment", `{"content": {"raw": "x"}}`, false, false},
		{"[]report_annotation", `[{"external_id": "r-1", "annotation_type": "BUG", "severity": "HIGH", "summary": "s", "path": "a.go", "line": 3}]`, true, true},
		{"[]report_annotation", `[{"external_id": "r-1", "annotation_type": "BUG", "severity": "SEVERE"}]`, true, false},
		{"commitstatus", `{"key": "review", "state": "SUCCESSFUL", "url": "https://x.example", "description": "complete"}`, true, true},
		{"commitstatus", `{"key": "review", "state": "success"}`, true, false},
		{"report", `{"title": "review", "details": "d", "report_type": "BUG", "result": "PASSED", "data": [{"title": "Findings", "type": "NUMBER", "value": 2}]}`, true, true},
	} {
		if err := ValidateBitbucket(tt.def, []byte(tt.body), tt.request); (err == nil) != tt.ok {
			t.Errorf("%s %s: %v", tt.def, tt.body, err)
		}
	}
}

// TestBitbucketAnswers: every answer the scripted Bitbucket gives is one
// of its swagger's (bbAnswer answers 500 otherwise), and its listings
// page by "next".
func TestBitbucketAnswers(t *testing.T) {
	b := &Bitbucket{Token: "t", Head: strings.Repeat("a", 40)}
	api, stop := b.Start()
	defer stop()
	get := func(path string) map[string]any {
		req, _ := http.NewRequest(http.MethodGet, api+path, nil)
		req.Header.Set("Authorization", "Bearer t")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]any
		json.NewDecoder(resp.Body).Decode(&v)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %v", path, resp.StatusCode, v)
		}
		return v
	}
	get("/repositories/w/r/pullrequests/3")
	p1 := get("/repositories/w/r/pullrequests/3/comments?pagelen=100")
	if p1["next"] == nil || len(p1["values"].([]any)) != 2 {
		t.Fatalf("first page: %v", p1)
	}
	p2 := get("/repositories/w/r/pullrequests/3/comments?pagelen=100&page=2")
	if p2["next"] != nil || len(p2["values"].([]any)) != 1 {
		t.Fatalf("second page: %v", p2)
	}
	_ = httptest.NewRecorder
}
