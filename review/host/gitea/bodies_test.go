package gitea

import (
	"strings"
	"testing"

	"github.com/reviewdev/review/review/host/hosttest"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/result"
)

const h1 = "cccccccccccccccccccccccccccccccccccccccc"

// FuzzBodies holds every body review posts to Gitea with the model's text
// in it, the summary comment, a finding's comment on its line and the
// review that carries it, to Gitea's mention rule (hosttest.GiteaMentions):
// whatever the model wrote in the summary, a finding's title, body,
// suggestion, replacement or note, or the path it names, nobody is
// notified, and each body keeps its marker at its start.
func FuzzBodies(f *testing.F) {
	f.Add("cc @all", "t @x", "ask @alice.", "(@org/team)", "@-x", "n", "a.go")
	f.Add("a ` b", "`x", "```\n@alice\n```", "[@x]", "", "@y's", "@z.go")
	f.Fuzz(func(t *testing.T, summary, title, body, suggestion, replacement, note, path string) {
		fd := result.Finding{Path: path, Line: 3, EndLine: 3, Severity: result.High, Title: title, Body: body, Suggestion: suggestion, Note: note}
		if replacement != "" {
			fd.Replacement = &replacement
		}
		r := &result.Result{RunID: "r1", Summary: summary, Findings: []result.Finding{fd}, Submitted: true}
		r.HeadSHA = h1
		var p Poster
		_, lines := p.plan(r, nil, nil, true)
		bodies := map[string]string{
			"summary": seam.Summary{Body: []result.Finding{fd}}.Write(r, []string{h1}, words),
			"comment": capBody(seam.CommentMarker(fd.Fingerprint(), r.RunID) + "\n" + seam.CommentMarkdown(fd, "", true)),
			"review":  reviewBody(r.RunID, h1, 1),
		}
		for _, l := range lines {
			bodies["line"] = l.Body
		}
		for name, b := range bodies {
			if m := hosttest.GiteaMentions(b); len(m) > 0 {
				t.Fatalf("Gitea notifies %q for the %s:\n%s", m, name, b)
			}
			if !strings.HasPrefix(b, "<!-- review:") {
				t.Fatalf("the %s lost its marker:\n%s", name, b)
			}
		}
	})
}
