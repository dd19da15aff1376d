package review

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteGitHub writes one GitHub Actions workflow command per finding, which
// the runner turns into an annotation on the file and lines: ::error for
// critical and high findings, ::warning for medium, ::notice for low and
// info. A file-level finding names the file without a line. Text is escaped
// as the runner expects, so a finding can never end its command early or
// start another one. A last plain line says how to replay the run.
//
// GitHub shows a limited number of annotations per step; findings come most
// severe first, and the step summary (github.WriteStepSummary in
// review/github) lists them all.
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

// oneLineText joins the lines of s with spaces.
func oneLineText(s string) string {
	return strings.Join(strings.Fields(s), " ")
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

// plural is "1 request", "2 requests".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
