package seam

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestWebURL: an answer's web address is kept only as an http(s) URL on one
// line, of a bounded length.
func TestWebURL(t *testing.T) {
	for in, want := range map[string]WebURL{
		`"https://gitea.example/o/r/pulls/5#issuecomment-7"`: "https://gitea.example/o/r/pulls/5#issuecomment-7",
		`"https://x.example/a\n::error::pwned"`:              "",
		`"javascript:alert(1)"`:                              "",
		`"/o/r/pulls/5"`:                                     "",
		`null`:                                               "",
		`"https://x.example/` + strings.Repeat("a", 3000) + `"`: "",
	} {
		var l WebURL
		if err := json.Unmarshal([]byte(in), &l); err != nil || l != want {
			t.Errorf("%.60s: %q, %v; want %q", in, l, err, want)
		}
	}
	var l WebURL
	if err := json.Unmarshal([]byte(`7`), &l); err == nil {
		t.Error("a number is a link")
	}
}
