// Package resulttest holds the review results the output formats and the
// hosts are tested with.
package resulttest

import "github.com/reviewdev/review/review/result"

// Hostile is a result whose findings carry the text that breaks formats:
// line breaks, percent signs, the workflow command separators, Markdown
// table and HTML syntax, fences, and non-ASCII paths. Its --fail-on is
// high.
func Hostile() *result.Result {
	return &result.Result{
		RunID: "r7k2m9", Model: "gpt-4o-mini", FailOn: result.High,
		Revisions: result.Revisions{Base: "main", Head: "feature|x",
			HeadSHA: "0123456789abcdef0123456789abcdef01234567", BaseSHA: "fedcba9876543210fedcba9876543210fedcba98"},
		Summary:   "Adds a cache.\n\n```go\nunclosed fence",
		Submitted: true, Steps: 3,
		Usage: result.RunUsage{Requests: 3, Prompt: 12000, Completion: 800, Cached: 4000, Own: 11800},
		Findings: []result.Finding{
			{Path: "cache/lru.go", Line: 42, EndLine: 45, Severity: result.Critical, Category: "concurrency",
				Title: "Data race on map at line 42", Body: "50% of calls\r\nrace: the map is written\nwithout the lock.",
				Suggestion: "```suggestion\n\tc.mu.Lock()\n\tdefer c.mu.Unlock()\n```"},
			{Path: "dir with space/weird:name,1.go", Line: 7, Severity: result.High, Category: "security",
				Title: "::error::injected, title: yes", Body: "::warning file=x::boom\n::stop-commands::tok", Suggestion: "Escape it."},
			{Path: "src/ünï/日本.go", Line: 3, Severity: result.Medium, Category: "error-handling",
				Title: "Ignored error | pipe <!-- hidden --> `a < b`", Body: "unicode ✓ 🚀 and %0A already escaped and %25"},
			{Path: "README.md", Severity: result.Low, Category: "docs", Title: "File-level <b>note</b>", Body: "", Note: "reported at line 900, outside the changed hunks; kept for the file"},
			{Path: "x.go", Line: 1, Severity: result.Info, Category: "", Title: "Trailing\nnewline\r", Body: "body"},
		},
	}
}
