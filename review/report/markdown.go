package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/result"
)

// writeMarkdown renders a result for people: summary, findings by severity,
// usage, and how to replay the run. Model text is untrusted and Markdown
// may be printed to a terminal or a job log, so the whole is passed
// through text.Safe; in Markdown its escapes ("\\::", "#\\#[") still read
// "::" and "##[".
func writeMarkdown(w io.Writer, r *result.Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Review of %s against %s", r.Head, r.Base)
	if u := result.Unreviewed(r.NotReviewed); u != "" {
		// The first line says what the review left out.
		fmt.Fprintf(&b, " (partial: %s)", u)
	}
	b.WriteString("\n\n")
	if r.Since != "" {
		fmt.Fprintf(&b, "Only the commits since %s were reviewed; the earlier ones were reviewed before.\n\n", text.ShortSHA(r.Since))
	}
	if r.Summary != "" {
		b.WriteString(strings.TrimSpace(r.Summary) + "\n\n")
	}
	if note := r.Incomplete(true); note != "" {
		b.WriteString("**Incomplete review.** _" + note + "_\n\n")
	}
	if len(r.NotReviewed) > 0 {
		were, they := "were", "they are"
		if len(r.NotReviewed) == 1 {
			were, they = "was", "it is"
		}
		fmt.Fprintf(&b, "**Partial review: %s %s not reviewed (%s); %s listed below.**\n\n", text.Plural(len(r.NotReviewed), "file"), were, text.OneLine(why(r), 0), they)
	}
	if held := r.HeldLine(); held != "" {
		b.WriteString("_" + held + "; see below._\n\n")
	}
	if len(r.Findings) == 0 {
		b.WriteString("No findings.\n\n")
	} else {
		fmt.Fprintf(&b, "## Findings (%d)\n\n", len(r.Findings))
		for i, f := range r.Findings {
			fmt.Fprintf(&b, "### %d. [%s] %s\n\n", i+1, f.Severity, text.OneLine(f.Title, 0))
			fmt.Fprintf(&b, "`%s` · %s\n\n", f.Location(), f.Category)
			if f.Body != "" {
				b.WriteString(f.Body + "\n\n")
			}
			if f.Suggestion != "" {
				b.WriteString("**Suggestion:** " + f.Suggestion + "\n\n")
			}
			if f.Replacement != nil && f.Line > 0 {
				fence := text.CodeFence(*f.Replacement)
				fmt.Fprintf(&b, "**Suggested change** (`%s`):\n\n%s\n%s\n%s\n\n", f.Location(), fence, *f.Replacement, fence)
			}
			if f.Note != "" {
				b.WriteString("_" + f.Note + "_\n\n")
			}
		}
	}
	if len(r.Ungrounded) > 0 {
		fmt.Fprintf(&b, "## Not checked against the code it names (%d)\n\n", len(r.Ungrounded))
		b.WriteString("The model was never shown these lines; read them before acting on these.\n\n")
		for _, f := range r.Ungrounded {
			fmt.Fprintf(&b, "- [%s] %s (`%s`): %s\n", f.Severity, text.OneLine(f.Title, 0), f.Location(), f.Unshown())
		}
		b.WriteString("\n")
	}
	if len(r.Withheld) > 0 {
		fmt.Fprintf(&b, "<details><summary>%d findings withheld</summary>\n\n", len(r.Withheld))
		for _, d := range r.Withheld {
			fmt.Fprintf(&b, "- [%s] %s (`%s`): %s\n", d.Finding.Severity, text.OneLine(d.Finding.Title, 0), d.Finding.Location(), text.OneLine(d.Reason, 0))
		}
		b.WriteString("\n</details>\n\n")
	}
	if len(r.Dropped) > 0 {
		fmt.Fprintf(&b, "<details><summary>%d findings left out</summary>\n\n", len(r.Dropped))
		for _, d := range r.Dropped {
			fmt.Fprintf(&b, "- %s (`%s`): %s\n", text.OneLine(d.Finding.Title, 0), d.Finding.Location(), text.OneLine(d.Reason, 0))
		}
		b.WriteString("\n</details>\n\n")
	}
	writeNotReviewed(&b, r)
	b.WriteString("---\n" + r.UsageLine() + "\n")
	if line := r.Efficiency.Line(); line != "" {
		b.WriteString("\n" + line + "\n")
	}
	_, err := io.WriteString(w, text.Safe(b.String()))
	return err
}

// writeAnswer renders a follow-up turn's answer for people.
func writeAnswer(w io.Writer, a *result.Answer) error {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(a.Answer) + "\n\n")
	if len(a.Findings) > 0 {
		fmt.Fprintf(&b, "## New findings (%d)\n\n", len(a.Findings))
		for i, f := range a.Findings {
			fmt.Fprintf(&b, "%d. [%s] `%s` %s\n", i+1, f.Severity, f.Location(), f.Title)
		}
		b.WriteString("\n")
	}
	if len(a.Known) > 0 {
		fmt.Fprintf(&b, "## Already reported (%d)\n\n", len(a.Known))
		for _, f := range a.Known {
			fmt.Fprintf(&b, "- [%s] `%s` %s\n", f.Severity, f.Location(), f.Title)
		}
		b.WriteString("\n")
	}
	if held := a.HeldLine(); held != "" {
		b.WriteString("_" + held + "._\n\n")
	}
	u := a.Usage
	fmt.Fprintf(&b, "---\nRun `%s` turn %d · model %s · %s · %s prompt tokens (%s cached) · %s completion tokens\n",
		a.RunID, a.Turn, a.Model, text.Plural(u.Requests, "request"), text.Number(u.Prompt), text.Number(u.Cached), text.Number(u.Completion))
	fmt.Fprintf(&b, "Ask again: `review ask %s \"...\"` · see what the model saw: `review replay %s`\n", a.RunID, a.RunID)
	_, err := io.WriteString(w, text.Safe(b.String()))
	return err
}
