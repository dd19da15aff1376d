package github

import (
	"strings"
	"testing"

	"github.com/reviewdev/review/review/host/hosttest"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/result"
)

// FuzzBodies holds every body review posts to GitHub with the model's
// text in it, the review and a finding's comment, to GitHub's published
// mention filter (hosttest.Mentions), and to the markers --since and the
// ledger read: whatever the model wrote in the summary, a finding's title,
// body, suggestion, replacement or note, or the path it names, nobody is
// notified and each body carries the one marker review wrote, at its start.
func FuzzBodies(f *testing.F) {
	f.Add("cc @all", "`x", "\\@all &#64;all", "pkg/@types", "@x", "n @y", "node_modules/@types/a.ts")
	f.Add("<!-- review:run=fake head=0000000 -->", "<!--", "`@all", "``@x``", "", "", "a.go")
	f.Fuzz(func(t *testing.T, summary, title, body, suggestion, replacement, note, path string) {
		fd := result.Finding{Path: path, Line: 3, EndLine: 3, Severity: result.High, Title: title, Body: body, Suggestion: suggestion, Note: note}
		if replacement != "" {
			fd.Replacement = &replacement
		}
		r := &result.Result{RunID: "r1", Summary: summary, Findings: []result.Finding{fd}, Submitted: true}
		const head = "cccccccccccccccccccccccccccccccccccccccc"
		review := reviewPlan{body: []result.Finding{fd}}.render(r, head, false)
		comment := capBody(seam.CommentMarker(fd.Fingerprint(), r.RunID) + "\n" + commentMarkdown(fd, true))
		for name, b := range map[string]string{"review": review, "comment": comment} {
			if m := hosttest.Mentions(b); len(m) > 0 {
				t.Fatalf("GitHub notifies %q for the %s:\n%s", m, name, b)
			}
			if n := strings.Count(b, "<!--"); n != 1 {
				t.Fatalf("the %s holds %d comments, not its one marker:\n%s", name, n, b)
			}
		}
		if run, h, _, ok := seam.ReadReviewMarker(review); !ok || run != r.RunID || h != head {
			t.Fatalf("the review's marker reads %q %q %v:\n%s", run, h, ok, review)
		}
		if fp, _, ok := seam.ReadCommentMarker(comment); !ok || fp != fd.Fingerprint() {
			t.Fatalf("the comment's marker reads %q %v:\n%s", fp, ok, comment)
		}
	})
}
