package bitbucket

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/reviewdev/review/review/host/hosttest"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/result"
)

const h1 = "cccccccccccccccccccccccccccccccccccccccc"

// FuzzBodies holds every text review posts to Bitbucket with the model's
// words in it, the summary comment, a finding's comment on its line, the
// Code Insights report and its annotation, to Bitbucket's mention rule
// (hosttest.BitbucketMentions): whatever the model wrote in the summary,
// a finding's title, body, suggestion, replacement or note, or the path it
// names, nobody is notified, and each comment keeps its signed marker at
// its start, sent as a link reference definition and read back as it was.
func FuzzBodies(f *testing.F) {
	f.Add("cc @all", "t @x", "ask @{557058:abc}.", "(@org/team)", "@-x", "n", "a.go")
	f.Add("a ` b", "`x", "```\n@alice\n```", "[@x]", "", "@{y}'s", "@z.go")
	f.Fuzz(func(t *testing.T, summary, title, body, suggestion, replacement, note, path string) {
		fd := result.Finding{Path: path, Line: 3, EndLine: 3, Severity: result.High, Category: "security", Title: title, Body: body, Suggestion: suggestion, Note: note}
		if replacement != "" {
			fd.Replacement = &replacement
		}
		r := &result.Result{RunID: "r1", Summary: summary, Findings: []result.Finding{fd}, Submitted: true}
		r.HeadSHA = h1
		c := &client{key: signKey("t")}
		comments := map[string]string{
			"summary": c.signed(seam.Summary{Body: []result.Finding{fd}}.Write(r, []string{h1}, words)),
			"line":    c.lineBody(r.RunID, fd, "1-0123456789abcdef"),
		}
		for name, b := range comments {
			wire := wireMarkers(b)
			if m := hosttest.BitbucketMentions(wire); len(m) > 0 {
				t.Fatalf("Bitbucket notifies %q for the %s:\n%s", m, name, wire)
			}
			if strings.HasPrefix(wire, "<!--") || readMarkers(wire) != b {
				t.Fatalf("the %s's markers are not written and read back as link reference definitions:\n%s", name, wire)
			}
			if !strings.HasPrefix(b, "<!-- review:") || !c.verified(b) {
				t.Fatalf("the %s lost its signed marker:\n%s", name, b)
			}
		}
		report, _ := json.Marshal(reportBody(r))
		ann, _ := json.Marshal(annotation(fd))
		for name, b := range map[string][]byte{"report": report, "annotation": ann} {
			var v map[string]any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"details", "summary"} {
				if s, ok := v[k].(string); ok {
					if m := hosttest.BitbucketMentions(s); len(m) > 0 {
						t.Fatalf("Bitbucket notifies %q for the %s's %s: %q", m, name, k, s)
					}
				}
			}
		}
	})
}
