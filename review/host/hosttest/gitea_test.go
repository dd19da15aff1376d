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
