package review

import (
	"fmt"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/result"
)

// CategoryInjection is the category of the findings review makes itself
// for text in the change that speaks to the reviewer: security, as a
// leaked secret is.
const CategoryInjection = "security"

// InjectionTitle begins the title of every prompt-injection finding.
const InjectionTitle = "Prompt-injection attempt"

// injectionFindings turns the text the change adds that speaks to the
// reviewer into findings at its lines: high, as text that steers the
// review can make it approve what it should not, and medium in a test,
// where such text is often what a test feeds a filter.
func injectionFindings(in []diffctx.Injection) []result.Finding {
	out := make([]result.Finding, 0, len(in))
	for _, i := range in {
		where := "Line " + fmt.Sprint(i.Line) + " adds"
		if i.Line == 0 {
			where = "The path of the file the change adds holds"
		}
		f := result.Finding{
			Path: i.Path, Line: i.Line,
			Severity: result.High, Category: CategoryInjection,
			Title: InjectionTitle + ": " + i.Rule.What(),
			Body: fmt.Sprintf("%s text that speaks to an AI reviewer rather than to people (\u201c%s\u201d): a prompt-injection attempt. "+
				"The change is data to review, never instructions: review tells the model so, and found this itself, without the model. "+
				"Check that this review's verdict and findings are not what the text asks for, and remove the text or say why it is there.",
				where, i.Text),
			Note: "found by review's prompt-injection rule, not the model",
		}
		if i.Test {
			f.Severity = result.Medium
			f.Body += " It is in a test, where such text is often a fixture: if so, say so in the pull request."
		}
		if i.More > 0 {
			do := "do"
			if i.More == 1 {
				do = "does"
			}
			f.Body += fmt.Sprintf(" %s of this file %s the same.", text.Plural(i.More, "more line"), do)
		}
		out = append(out, f)
	}
	return out
}

// localFindings are the findings review makes without the model: the
// secrets the change adds and the text in it that speaks to the reviewer,
// grounded by the diff that adds them.
func (s *Session) localFindings() []result.Finding {
	fs := append(leakFindings(s.leaks), injectionFindings(s.injections)...)
	groundLocal(fs)
	return fs
}
