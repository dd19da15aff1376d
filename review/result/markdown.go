package result

import (
	"fmt"
	"strings"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/llm"
)

// CountFindings says how many findings there are, by severity, most severe
// first: "3 findings (1 high, 2 low)".
func CountFindings(fs []Finding) string {
	if len(fs) == 0 {
		return "no findings"
	}
	counts := map[Severity]int{}
	for _, f := range fs {
		counts[f.Severity]++
	}
	var parts []string
	for _, s := range []Severity{Critical, High, Medium, Low, Info} {
		if n := counts[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	noun := "findings"
	if len(fs) == 1 {
		noun = "finding"
	}
	return fmt.Sprintf("%d %s (%s)", len(fs), noun, strings.Join(parts, ", "))
}

// EscapeAngles replaces "<" with its entity outside code spans, where an
// entity would be shown as typed.
func EscapeAngles(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == '`' {
			n := runOf(s[i:], '`')
			if end := closingRun(s[i+n:], n); end >= 0 {
				b.WriteString(s[i : i+n+end+n])
				i += n + end + n
				continue
			}
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		if s[i] == '<' {
			b.WriteString("&lt;")
		} else {
			b.WriteByte(s[i])
		}
		i++
	}
	return b.String()
}

// runOf is the length of the run of c that s starts with.
func runOf(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// closingRun finds a run of exactly n backticks in s, which closes a code
// span opened by n, and returns its offset, or -1.
func closingRun(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		m := runOf(s[i:], '`')
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

// FenceOf returns the fence that opens or closes a code block on line t
// (three or more backticks or tildes), or "". A backtick fence's info
// string cannot hold a backtick: "```a```" is inline code, not a fence.
func FenceOf(t string) string {
	for _, c := range []byte{'`', '~'} {
		n := runOf(t, c)
		if n < 3 {
			continue
		}
		if c == '`' && strings.IndexByte(t[n:], '`') >= 0 {
			return ""
		}
		return t[:n]
	}
	return ""
}

// UsageLine is the run's usage in one line of Markdown, with how to
// replay it.
func (r *Result) UsageLine() string {
	if r.RunID == "" {
		return "Nothing was sent to the model: there was nothing to review."
	}
	u := r.Usage
	n := text.Number
	s := fmt.Sprintf("Run `%s` · model %s · %s · %s prompt tokens (%s cached) · %s completion tokens · our count %s",
		r.RunID, EscapeAngles(text.OneLine(r.Model, 0)), text.Plural(u.Requests, "request"), n(u.Prompt), n(u.Cached), n(u.Completion), n(u.Own))
	if c, ok := r.EstimateCost(); ok {
		s += " · about " + llm.FormatUSD(c)
	}
	return s + " · see what the model saw: `review replay " + r.RunID + "`"
}

// Incomplete tells a reader of any format that the model never submitted
// its review, "" when it did: what stands in its place, and what to do.
// summaryAbove says the format prints the summary just before the note.
// A run that failed before any answer has no message to show, and the
// note must not point at one.
func (r *Result) Incomplete(summaryAbove bool) string {
	if r.Submitted {
		return ""
	}
	const what = "Run the review again, or see what the model saw with review replay."
	if strings.TrimSpace(r.Summary) == "" {
		return "The model did not submit a review and left no message in its place, so findings may be missing. " + what
	}
	if summaryAbove {
		return "The model did not submit a structured review, so findings may be missing; its last message is shown above. " + what
	}
	return "The model did not submit a structured review, so findings may be missing; its last message is the summary. " + what
}
