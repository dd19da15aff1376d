package review

import (
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"
)

// maxSummaryBody bounds the body of one finding in the step summary:
// GitHub refuses a step summary over 1 MiB, and a table of titles with
// pages of prose under each is no longer a summary.
const maxSummaryBody = 4000

// WriteGitHub writes one GitHub Actions workflow command per finding, which
// the runner turns into an annotation on the file and lines: ::error for
// critical and high findings, ::warning for medium, ::notice for low and
// info. A file-level finding names the file without a line. Text is escaped
// as the runner expects, so a finding can never end its command early or
// start another one. A last plain line says how to replay the run.
//
// GitHub shows a limited number of annotations per step; findings come most
// severe first, and the step summary (WriteStepSummary) lists them all.
func WriteGitHub(w io.Writer, r *Result) error {
	var b strings.Builder
	for _, f := range r.Findings {
		b.WriteString("::" + annotationLevel(f.Severity) + " ")
		b.WriteString("file=" + escapeProperty(f.Path))
		if f.Line > 0 {
			b.WriteString(",line=" + strconv.Itoa(f.Line))
			if f.EndLine > f.Line {
				b.WriteString(",endLine=" + strconv.Itoa(f.EndLine))
			}
		}
		b.WriteString(",title=" + escapeProperty(annotationTitle(f)))
		b.WriteString("::" + escapeData(plainMessage(f, false)) + "\n")
	}
	fmt.Fprintf(&b, "review: %s · run %s · see what the model saw: review replay %s\n",
		CountFindings(r.Findings), r.RunID, r.RunID)
	_, err := io.WriteString(w, b.String())
	return err
}

// annotationLevel is the workflow command for a severity.
func annotationLevel(s Severity) string {
	switch s {
	case Critical, High:
		return "error"
	case Medium:
		return "warning"
	}
	return "notice"
}

// annotationTitle heads an annotation: severity, title and category.
func annotationTitle(f Finding) string {
	return fmt.Sprintf("[%s] %s (%s)", f.Severity, f.Title, f.RuleID())
}

// escapeData escapes a workflow command's message as the runner's
// unescaping expects (actions/toolkit's escapeData): the percent sign, so
// that text such as "%0A" is not read as an escape, and the line breaks
// that would end the command.
func escapeData(s string) string { return escapeCommand(s, false) }

// escapeProperty escapes a workflow command's property value: as data, and
// also the colon and comma that separate properties and end the list.
func escapeProperty(s string) string { return escapeCommand(s, true) }

func escapeCommand(s string, property bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%':
			b.WriteString("%25")
		case c == '\r':
			b.WriteString("%0D")
		case c == '\n':
			b.WriteString("%0A")
		case property && c == ':':
			b.WriteString("%3A")
		case property && c == ',':
			b.WriteString("%2C")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// WriteStepSummary writes the result as Markdown for a job's summary page
// ($GITHUB_STEP_SUMMARY): the model's summary, a table of findings with
// each finding's details folded under it, the run's usage and estimated
// cost, and how to replay it.
func WriteStepSummary(w io.Writer, r *Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## review: %s\n\n", CountFindings(r.Findings))
	fmt.Fprintf(&b, "Reviewed %s against %s.\n\n", mdCode(r.Head), mdCode(r.Base))
	if s := strings.TrimSpace(r.Summary); s != "" {
		b.WriteString(tidyMarkdown(s) + "\n\n")
	}
	if !r.Submitted {
		b.WriteString("_The model did not submit a structured review; its last message is shown above._\n\n")
	}
	if len(r.Findings) > 0 {
		b.WriteString("| Severity | Location | Category | Finding |\n|---|---|---|---|\n")
		for _, f := range r.Findings {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n",
				f.Severity, codeCell(f.Location()), mdCell(f.RuleID()), mdCell(f.Title))
		}
		b.WriteString("\n")
		for i, f := range r.Findings {
			fmt.Fprintf(&b, "<details><summary>%d. %s</summary>\n\n", i+1, html.EscapeString(oneLineText(f.Title)))
			b.WriteString(findingMarkdown(f, maxSummaryBody) + "\n\n</details>\n\n")
		}
	}
	if len(r.Dropped) > 0 {
		fmt.Fprintf(&b, "<details><summary>%d left out</summary>\n\n", len(r.Dropped))
		for _, d := range r.Dropped {
			fmt.Fprintf(&b, "- %s (%s): %s\n", escapeAngles(oneLineText(d.Finding.Title)), mdCode(d.Finding.Location()), escapeAngles(oneLineText(d.Reason)))
		}
		b.WriteString("\n</details>\n\n")
	}
	b.WriteString(usageTable(r))
	fmt.Fprintf(&b, "\nRun `%s` · model %s · see what the model saw: `review replay %s`\n", r.RunID, mdCell(r.Model), r.RunID)
	_, err := io.WriteString(w, b.String())
	return err
}

// findingMarkdown is a finding's body, suggestion and note as Markdown,
// the body cut to limit runes (0: no limit). Fences the model left open are
// closed so they cannot swallow what follows.
func findingMarkdown(f Finding, limit int) string {
	var parts []string
	if f.Body != "" {
		body := f.Body
		if limit > 0 {
			body = truncateRunes(body, limit)
		}
		parts = append(parts, tidyMarkdown(body))
	}
	if f.Suggestion != "" {
		parts = append(parts, labelled("Suggestion", tidyMarkdown(f.Suggestion)))
	}
	if f.Note != "" {
		parts = append(parts, "_"+oneLineText(f.Note)+"_")
	}
	return strings.Join(parts, "\n\n")
}

// labelled puts a bold label before Markdown text: on the same line for a
// line of prose, on a line of its own before anything longer, where a
// fence must start a line to be one.
func labelled(label, md string) string {
	if strings.Contains(md, "\n") || FenceOf(md) != "" {
		return "**" + label + ":**\n\n" + md
	}
	return "**" + label + ":** " + md
}

// usageTable renders the run's usage and, when the model's price is known,
// its estimated cost.
func usageTable(r *Result) string {
	u := r.Usage
	cost := "unknown price"
	if c, ok := r.EstimateCost(); ok {
		cost = FormatUSD(c)
	}
	return fmt.Sprintf("| Requests | Prompt tokens | Cached | Completion tokens | Our prompt count | Estimated cost |\n"+
		"|---:|---:|---:|---:|---:|---:|\n| %d | %d | %d | %d | %d | %s |\n",
		u.Requests, u.Prompt, u.Cached, u.Completion, u.Own, cost)
}

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

// mdCell makes Markdown text safe inside a table cell: one line, pipes
// escaped (GitHub honours the escape inside code spans too), and no "<"
// outside code spans that could open an HTML element or comment.
func mdCell(s string) string {
	return strings.ReplaceAll(escapeAngles(oneLineText(s)), "|", `\|`)
}

// codeCell is s as a code span inside a table cell.
func codeCell(s string) string {
	return strings.ReplaceAll(mdCode(oneLineText(s)), "|", `\|`)
}

// escapeAngles replaces "<" with its entity outside code spans, where an
// entity would be shown as typed.
func escapeAngles(s string) string {
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

// mdCode is s as a Markdown code span, with a fence longer than any run of
// backticks inside it.
func mdCode(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// oneLineText joins the lines of s with spaces.
func oneLineText(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// tidyMarkdown keeps a model's Markdown from spilling into what follows
// it: a fenced code block left open is closed, and an HTML comment opened
// outside code, which would hide the rest of the page, is shown as text.
func tidyMarkdown(s string) string { return tidy(s, true) }

// closeFences closes a fenced code block left open at the end of s.
func closeFences(s string) string { return tidy(s, false) }

func tidy(s string, comments bool) string {
	lines := strings.Split(s, "\n")
	open := ""
	for i, line := range lines {
		t := strings.TrimSpace(line)
		fence := FenceOf(t)
		switch {
		case fence != "" && open == "":
			open = fence
		case fence != "" && fence[0] == open[0] && len(fence) >= len(open) && len(t) == len(fence):
			// A closing fence: the opening character, at least as many,
			// and no info string.
			open = ""
		case open == "" && comments:
			lines[i] = strings.ReplaceAll(line, "<!--", "&lt;!--")
		}
	}
	s = strings.Join(lines, "\n")
	if open != "" {
		s += "\n" + open
	}
	return s
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
