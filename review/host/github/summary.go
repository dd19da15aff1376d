package github

import (
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
)

// maxSummaryBody bounds the body of one finding in the step summary:
// GitHub refuses a step summary over 1 MiB, and a table of titles with
// pages of prose under each is no longer a summary.
const maxSummaryBody = 4000

// WriteStepSummary writes the result as Markdown for a job's summary page
// ($GITHUB_STEP_SUMMARY): the model's summary, a table of findings with
// each finding's details folded under it, the run's usage and estimated
// cost, and how to replay it.
func WriteStepSummary(w io.Writer, r *result.Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## review: %s", result.CountFindings(r.Findings))
	if u := result.Unreviewed(r.NotReviewed); u != "" {
		fmt.Fprintf(&b, "; partial: %s", u)
	}
	if n := len(r.Withheld); n > 0 {
		fmt.Fprintf(&b, "; %d withheld", n)
	}
	if n := len(r.Ungrounded); n > 0 {
		fmt.Fprintf(&b, "; %d not checked against the code", n)
	}
	b.WriteString("\n\n")
	fmt.Fprintf(&b, "Reviewed %s against %s", mdCode(r.Head), mdCode(r.Base))
	if r.Since != "" {
		fmt.Fprintf(&b, ", the commits since %s only", mdCode(text.ShortSHA(r.Since)))
	}
	b.WriteString(".\n\n")
	if s := strings.TrimSpace(r.Summary); s != "" {
		b.WriteString(seam.Neutralize(s) + "\n\n")
	}
	if note := r.Incomplete(true); note != "" {
		b.WriteString("**Incomplete review.** _" + note + "_\n\n")
	}
	if n := len(r.NotReviewed); n > 0 {
		fmt.Fprintf(&b, "**Partial review:** %s not reviewed (past %s); every file is listed in the json output.\n\n",
			text.Plural(n, "file"), result.CapFlag(r.NotReviewed[0].Reason))
	}
	if len(r.Findings) > 0 {
		b.WriteString("| Severity | Location | Category | Finding |\n|---|---|---|---|\n")
		for _, f := range r.Findings {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n",
				f.Severity, codeCell(f.Location()), mdCell(f.RuleID()), mdCell(f.Title))
		}
		b.WriteString("\n")
		for i, f := range r.Findings {
			fmt.Fprintf(&b, "<details><summary>%d. %s</summary>\n\n", i+1, html.EscapeString(text.OneLine(f.Title, 0)))
			b.WriteString(findingMarkdown(f, maxSummaryBody) + "\n\n</details>\n\n")
		}
	}
	b.WriteString(seam.HeldMarkdown(r))
	if len(r.Dropped) > 0 {
		fmt.Fprintf(&b, "<details><summary>%d left out</summary>\n\n", len(r.Dropped))
		for _, d := range r.Dropped {
			fmt.Fprintf(&b, "- %s (%s): %s\n", seam.NeutralLine(text.OneLine(d.Finding.Title, 0)), mdCode(d.Finding.Location()), seam.NeutralLine(text.OneLine(d.Reason, 0)))
		}
		b.WriteString("\n</details>\n\n")
	}
	b.WriteString(usageTable(r))
	if line := r.Efficiency.Line(); line != "" {
		b.WriteString("\n" + line + ".\n")
	}
	if r.Config != "" {
		fmt.Fprintf(&b, "\nConfiguration: %s.\n", mdCode(r.Config))
	}
	if r.RunID != "" {
		fmt.Fprintf(&b, "\nRun `%s` · model %s · see what the model saw: `review replay %s`\n", r.RunID, mdCell(r.Model), r.RunID)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// usageTable renders the run's usage and, when the model's price is known,
// its estimated cost.
func usageTable(r *result.Result) string {
	u := r.Usage
	cost := "unknown price"
	if c, ok := r.EstimateCost(); ok {
		cost = llm.FormatUSD(c)
	}
	return fmt.Sprintf("| Requests | Prompt tokens | Cached | Completion tokens | Our prompt count | Estimated cost |\n"+
		"|---:|---:|---:|---:|---:|---:|\n| %d | %d | %d | %d | %d | %s |\n",
		u.Requests, u.Prompt, u.Cached, u.Completion, u.Own, cost)
}

// mdCell makes Markdown text safe inside a table cell: one line, pipes
// escaped (GitHub honours the escape inside code spans too), and no "<"
// outside code spans that could open an HTML element or comment.
func mdCell(s string) string {
	return strings.ReplaceAll(seam.NeutralLine(text.OneLine(s, 0)), "|", `\|`)
}

// codeCell is s as a code span inside a table cell.
func codeCell(s string) string {
	return strings.ReplaceAll(mdCode(text.OneLine(s, 0)), "|", `\|`)
}
