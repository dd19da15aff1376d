package report

import (
	"fmt"
	"strings"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/result"
)

// Every format says which files a review did not cover, when a cap on
// units, tokens or cost left some out: a reader must never take a partial
// review for a whole one.

// listNotReviewed bounds the files a one-line note names.
const listNotReviewed = 20

// notReviewedLine says in one line how many files were not reviewed, why,
// and names the first of them.
func notReviewedLine(r *result.Result) string {
	nr := r.NotReviewed
	if len(nr) == 0 {
		return ""
	}
	names := make([]string, 0, min(len(nr), listNotReviewed))
	for _, n := range nr[:min(len(nr), listNotReviewed)] {
		names = append(names, n.Path+partly(n))
	}
	s := fmt.Sprintf("%s not reviewed (%s): %s", text.Plural(len(nr), "file"), why(r), strings.Join(names, ", "))
	if len(nr) > listNotReviewed {
		s += fmt.Sprintf(", and %d more", len(nr)-listNotReviewed)
	}
	return s
}

// why names the cap that left files out.
func why(r *result.Result) string {
	if len(r.NotReviewed) == 0 {
		return ""
	}
	var parts []string
	seen := map[string]bool{}
	for _, n := range r.NotReviewed {
		if !seen[n.Reason] && n.Reason != result.ReasonUnitFailed {
			parts = append(parts, "past "+result.CapFlag(n.Reason))
		}
		seen[n.Reason] = true
	}
	if len(parts) > 1 {
		parts = parts[:1] // the first cap says it; the others follow from it
	}
	if r.Stopped != "" {
		parts = append(parts, r.Stopped)
	}
	for _, f := range r.FailedUnits {
		parts = append(parts, fmt.Sprintf("unit %d failed: %s", f.Unit, f.Error))
	}
	return strings.Join(parts, "; ")
}

// writeNotReviewed writes the Markdown section naming every file not
// reviewed.
func writeNotReviewed(b *strings.Builder, r *result.Result) {
	nr := r.NotReviewed
	if len(nr) == 0 {
		return
	}
	fmt.Fprintf(b, "## Not reviewed (%s)\n\n", text.Plural(len(nr), "file"))
	fmt.Fprintf(b, "The review covered only part of the change (%s). The hunks of these files were not reviewed:\n\n", text.OneLine(why(r), 0))
	fmt.Fprintf(b, "<details><summary>%s</summary>\n\n", text.Plural(len(nr), "file"))
	for _, n := range nr {
		fmt.Fprintf(b, "- %s%s\n", codeSpanText(n.Path), partly(n))
	}
	b.WriteString("\n</details>\n\n")
}

// codeSpanText wraps s in a Markdown code span that no backtick in it
// can end.
func codeSpanText(s string) string {
	s = text.OneLine(s, 0)
	ticks := "`"
	for strings.Contains(s, ticks) {
		ticks += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return ticks + " " + s + " " + ticks
	}
	return ticks + s + ticks
}
