package github

import (
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/result"
)

// The Markdown of findings is shared by every host (review/host); these
// are its names here.

func findingMarkdown(f result.Finding, limit int) string { return seam.FindingMarkdown(f, limit) }
func mdCode(s string) string                             { return seam.Code(s) }
func tidyMarkdown(s string) string                       { return seam.TidyMarkdown(s) }
func neutralizeSuggestions(s string) string              { return seam.NeutralizeSuggestions(s) }
func coverageNote(r *result.Result) string               { return seam.CoverageNote(r) }

// commentMarkdown is an inline comment: applicable says the comment covers
// exactly the finding's lines, so its replacement lines can be offered as
// a suggested change; otherwise they are shown as code.
func commentMarkdown(f result.Finding, applicable bool) string {
	info := ""
	if applicable {
		info = "suggestion"
	}
	return seam.CommentMarkdown(f, info, applicable)
}
