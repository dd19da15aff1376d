package github

import (
	"strings"
	"testing"

	"github.com/reviewdev/review/review/result"
)

// The head GitHub names (the event's pull_request.head.sha) becomes every
// comment's commit_id: only a whole commit SHA is taken, and an error
// about another quotes no more than a line of it.
func TestHeadSHA(t *testing.T) {
	o := PostOptions{APIURL: "http://127.0.0.1:1/api/v3", Token: "ghp_x", Repo: "o/r", PR: 7}
	for head, ok := range map[string]bool{
		strings.Repeat("a", 40):      true,
		strings.Repeat("B", 64):      true,
		"abc1234":                    false,
		strings.Repeat("a", 41):      false,
		strings.Repeat("a", 100_040): false,
		strings.Repeat("g", 40):      false,
	} {
		o.HeadSHA = head
		_, err := newClient(o, &result.Result{})
		if (err == nil) != ok {
			t.Errorf("head of %d characters: error %v, want ok %v", len(head), err, ok)
		}
		if err != nil && len(err.Error()) > 400 {
			t.Errorf("head of %d characters: an error of %d characters", len(head), len(err.Error()))
		}
	}
}
