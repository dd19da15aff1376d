package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	ctext "github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/result"
)

// writeGitHub writes one GitHub Actions workflow command per finding, which
// the runner turns into an annotation on the file and lines: ::error for
// critical and high findings, ::warning for medium, ::notice for low and
// info. A file-level finding names the file without a line. Text is escaped
// as the runner expects, so a finding can never end its command early or
// start another one, and cleaned of what a terminal would act on. A review
// the model never submitted gets a ::warning saying it is incomplete. A
// last plain line says how to replay the run.
//
// GitHub shows a limited number of annotations per step; findings come most
// severe first, and the step summary lists them all.
func writeGitHub(w io.Writer, r *result.Result) error {
	var b strings.Builder
	for _, f := range r.Findings {
		b.WriteString("::" + annotationLevel(f.Severity) + " ")
		title := annotationTitle(f)
		if utf8.ValidString(f.Path) {
			b.WriteString("file=" + escapeProperty(f.Path) + ",")
			if f.Line > 0 {
				b.WriteString("line=" + strconv.Itoa(f.Line) + ",")
				if f.EndLine > f.Line {
					b.WriteString("endLine=" + strconv.Itoa(f.EndLine) + ",")
				}
			}
		} else {
			// The runner reads its log as UTF-8, so a name that is not
			// names no file: the annotation goes on the run, and its
			// title says where, the name quoted.
			title = f.Location() + ": " + title
		}
		b.WriteString("title=" + escapeProperty(title))
		b.WriteString("::" + escapeData(plainMessage(f, false)) + "\n")
	}
	if note := r.Incomplete(false); note != "" {
		b.WriteString("::warning title=" + escapeProperty("Incomplete review") + "::" + escapeData(note) + "\n")
	}
	if line := notReviewedLine(r); line != "" {
		// No file: the runner shows it on the run, not on a line.
		b.WriteString("::warning title=" + escapeProperty("review: partial review") + "::" + escapeData(line+" (every file is listed in the json output)") + "\n")
	}
	if r.RunID == "" {
		b.WriteString("review: " + r.Summary + "\n")
	} else {
		count := result.CountFindings(r.Findings)
		if held := r.HeldLine(); held != "" {
			count += "; " + held
		}
		fmt.Fprintf(&b, "review: %s · run %s · see what the model saw: review replay %s\n",
			count, r.RunID, r.RunID)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// annotationLevel is the workflow command for a severity.
func annotationLevel(s result.Severity) string {
	switch s {
	case result.Critical, result.High:
		return "error"
	case result.Medium:
		return "warning"
	}
	return "notice"
}

// annotationTitle heads an annotation: severity, title and category.
func annotationTitle(f result.Finding) string {
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
	s = ctext.Clean(s)
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
