package hosttest

import (
	"reflect"
	"testing"
)

// TestMentions holds the oracle to GitHub's published mention filter.
func TestMentions(t *testing.T) {
	tests := []struct {
		body string
		want []string
	}{
		{"cc @all", []string{"all"}},
		{"@Mallory, look", []string{"mallory"}},
		{"a@b.example", nil},
		{"`@all`", nil},
		{"```\n@all\n```", nil},
		{"[@all](https://example.com)", nil},
		{"see pkg/@types", []string{"types"}},
		{`\@all`, []string{"all"}},
		{"&#64;all", []string{"all"}},
		{"&commat;all", []string{"all"}},
		{"**@all**", []string{"all"}},
		{"@org/team", []string{"org/team"}},
		{"@all_x", nil},
		{"@all.", []string{"all"}},
		{"@all.com", nil},
		{"@-x", nil},
		{"https://example.com/@all", nil},
		{"@\u2060all", nil},
	}
	for _, tt := range tests {
		if got := Mentions(tt.body); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Mentions(%q) = %q, want %q", tt.body, got, tt.want)
		}
	}
}
