package azure

import (
	"strings"
	"testing"

	"github.com/reviewdev/review/review/host/hosttest"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/result"
)

const h1 = "cccccccccccccccccccccccccccccccccccccccc"

// FuzzBodies holds every body review posts to Azure DevOps with the
// model's text in it, the summary thread, a finding's thread and a reply,
// to Azure DevOps' mention rule (hosttest.AzureMentions): whatever the
// model wrote in the summary, a finding's title, body, suggestion,
// replacement or note, or the path it names, nobody is notified, and each
// body keeps its marker at its start.
func FuzzBodies(f *testing.F) {
	f.Add("cc @<0b6d7f7e-1a2b-4c3d-8e9f-a0b1c2d3e4f5>", "t @<x>", "`@<a>`", "```\n@<b>\n```", "@@<c>", "n", "a@<d>.go")
	f.Add("a ` b", "`x", "@&lt;x>", "[@<x>](https://x.example)", "", "@<y>'s", "@z.go")
	f.Fuzz(func(t *testing.T, summary, title, body, suggestion, replacement, note, path string) {
		fd := result.Finding{Path: path, Line: 3, EndLine: 3, Severity: result.High, Title: title, Body: body, Suggestion: suggestion, Note: note}
		if replacement != "" {
			fd.Replacement = &replacement
		}
		r := &result.Result{RunID: "r1", Summary: summary, Findings: []result.Finding{fd}, Submitted: true}
		r.HeadSHA = h1
		bodies := map[string]string{
			"summary": inert(seam.Summary{Body: []result.Finding{fd}}.Write(r, []string{h1}, words)),
			"thread":  findingThread(r.RunID, fd, nil).Comments[0].Content,
			"reply":   capBody(inert(seam.DismissMarker(fd.Fingerprint(), "x") + "\n" + seam.Neutralize(body))),
		}
		for name, b := range bodies {
			if m := hosttest.AzureMentions(b); len(m) > 0 {
				t.Fatalf("Azure DevOps notifies %q for the %s:\n%s", m, name, b)
			}
			if !strings.HasPrefix(b, "<!-- review:") {
				t.Fatalf("the %s lost its marker:\n%s", name, b)
			}
		}
	})
}

// FuzzNeutralizeAzure holds seam.Neutralize with inert to Azure DevOps'
// mention rule: no text the model writes mentions anyone once
// neutralised, alone or inside what a body puts around it (an odd
// backtick before it, a list item, a quote).
func FuzzNeutralizeAzure(f *testing.F) {
	for _, s := range []string{"@<x>", "`@<x>`", "```\n@<x>\n```", "@@<x>", "@<<x>>", "\\@<x>", "@\r<x>", "~~~\n@<x>\n~~~", "    @<x>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := inert(seam.Neutralize(s))
		for _, around := range []string{"%s", "%s>", "a ` b\n%s\n` c", "> %s", "- %s"} {
			page := strings.Replace(around, "%s", out, 1)
			if m := hosttest.AzureMentions(page); len(m) > 0 {
				t.Fatalf("Azure DevOps notifies %q for %q (from %q)", m, page, s)
			}
		}
	})
}
