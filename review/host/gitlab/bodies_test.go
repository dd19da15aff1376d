package gitlab

import (
	"strings"
	"testing"

	"github.com/reviewdev/review/review/host/hosttest"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/result"
)

// FuzzBodies holds every body review posts to GitLab with the model's
// text in it, the summary note and a finding's discussion, to GitLab's own
// grammar in both of its generations (hosttest.Commands): whatever the
// model wrote in the summary, a finding's title, body, suggestion,
// replacement or note, or the path it names, no quick action runs.
func FuzzBodies(f *testing.F) {
	f.Add("note\n\r/merge", "t", "~~~\n/merge\n~~~", "/close", "/approve\n", "n", "a.go")
	f.Add("a ` b", "`x", "```js\nconst s = `x\n/merge now\n```", "    ```\n/merge\n    ```", "", "", "a\n/merge.go")
	f.Add("", "/title", "- item\n/merge", "```\n/merge\n```", "x\r\n\r/merge", "/note", "/x.go")
	f.Fuzz(func(t *testing.T, summary, title, body, suggestion, replacement, note, path string) {
		fd := result.Finding{Path: path, Line: 3, EndLine: 3, Severity: result.High, Title: title, Body: body, Suggestion: suggestion, Note: note}
		if replacement != "" {
			fd.Replacement = &replacement
		}
		r := &result.Result{RunID: "r1", Summary: summary, Findings: []result.Finding{fd}, Submitted: true}
		bodies := map[string]string{
			"summary":    seam.Summary{Body: []result.Finding{fd}}.Write(r, []string{h1}, words),
			"discussion": capBody(seam.CommentMarker(fd.Fingerprint(), r.RunID) + "\n" + seam.CommentMarkdown(fd, "suggestion:-0+0", true)),
		}
		for name, b := range bodies {
			if cmds := hosttest.Commands(b); len(cmds) > 0 {
				t.Fatalf("GitLab runs %+v in the %s:\n%s", cmds, name, b)
			}
			if !strings.HasPrefix(b, "<!-- review:") {
				t.Fatalf("the %s lost its marker:\n%s", name, b)
			}
		}
	})
}
