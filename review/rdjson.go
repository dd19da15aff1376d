package review

import (
	"encoding/json"
	"io"
	"strings"
)

// The rdjson objects follow reviewdog's DiagnosticResult schema
// (proto/rdf/jsonschema/DiagnosticResult.json in reviewdog).
type (
	rdResult struct {
		Source      rdSource       `json:"source"`
		Severity    string         `json:"severity,omitempty"`
		Diagnostics []rdDiagnostic `json:"diagnostics"`
	}
	rdSource struct {
		Name string `json:"name"`
		URL  string `json:"url,omitempty"`
	}
	rdDiagnostic struct {
		Message     string         `json:"message"`
		Location    rdLocation     `json:"location"`
		Severity    string         `json:"severity"`
		Code        rdCode         `json:"code"`
		Suggestions []rdSuggestion `json:"suggestions,omitempty"`
	}
	rdLocation struct {
		Path  string   `json:"path"`
		Range *rdRange `json:"range,omitempty"`
	}
	// rdRange without columns is line-wise: it covers the end line whole.
	rdRange struct {
		Start rdPosition `json:"start"`
		End   rdPosition `json:"end"`
	}
	rdPosition struct {
		Line int `json:"line"`
	}
	rdCode struct {
		Value string `json:"value"`
	}
	rdSuggestion struct {
		Range rdRange `json:"range"`
		Text  string  `json:"text"`
	}
)

// WriteRDJSON writes the result in reviewdog's rdjson format, for
// `reviewdog -f=rdjson` to post: one diagnostic per finding with its path,
// line range, severity (ERROR for critical and high, WARNING for medium,
// INFO for low and info) and category as its code. A suggestion becomes a
// reviewdog suggestion only when it is a literal replacement of the
// finding's lines (a ```suggestion block); any other suggestion is advice
// and stays in the message. A file-level finding has no range.
//
// rdjson has no place for usage; the other formats carry it.
func WriteRDJSON(w io.Writer, r *Result) error {
	out := rdResult{
		Source:      rdSource{Name: "review", URL: informationURI},
		Diagnostics: make([]rdDiagnostic, 0, len(r.Findings)),
	}
	top := Severity("")
	for _, f := range r.Findings {
		if f.Severity.Rank() > top.Rank() {
			top = f.Severity
		}
		d := rdDiagnostic{
			Location: rdLocation{Path: f.Path},
			Severity: rdSeverity(f.Severity),
			Code:     rdCode{Value: f.RuleID()},
		}
		advice := f.Suggestion
		if f.Line > 0 {
			rg := rdRange{Start: rdPosition{f.Line}, End: rdPosition{max(f.EndLine, f.Line)}}
			d.Location.Range = &rg
			if code, prose, ok := LiteralSuggestion(f.Suggestion); ok {
				d.Suggestions = []rdSuggestion{{Range: rg, Text: code}}
				advice = prose
			}
		}
		g := f
		g.Suggestion = advice
		d.Message = plainMessage(g, true)
		out.Diagnostics = append(out.Diagnostics, d)
	}
	if top != "" {
		out.Severity = rdSeverity(top)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// rdSeverity maps a severity to reviewdog's.
func rdSeverity(s Severity) string {
	switch s {
	case Critical, High:
		return "ERROR"
	case Medium:
		return "WARNING"
	}
	return "INFO"
}

// LiteralSuggestion finds the replacement text in a suggestion written as
// GitHub's suggested change: exactly one fenced block whose info string is
// "suggestion", holding the new text of the finding's lines. It returns
// that text, whatever prose surrounds the block, and whether there was
// such a block. Nothing else in a suggestion says which lines it replaces.
func LiteralSuggestion(s string) (code, prose string, ok bool) {
	lines := strings.Split(s, "\n")
	start, end := -1, -1
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		fence := FenceOf(t)
		if fence == "" {
			continue
		}
		info := strings.TrimSpace(t[len(fence):])
		// The block runs to a closing fence: the same character, at least
		// as long, with no info string.
		j := i + 1
		for ; j < len(lines); j++ {
			c := strings.TrimSpace(lines[j])
			if f := FenceOf(c); f != "" && f[0] == fence[0] && len(f) >= len(fence) && len(c) == len(f) {
				break
			}
		}
		if j == len(lines) {
			return "", "", false // unclosed: the text is not certain
		}
		if info == "suggestion" {
			if start >= 0 {
				return "", "", false // two replacements for the same lines
			}
			start, end = i, j
		}
		i = j
	}
	if start < 0 {
		return "", "", false
	}
	// Content lines lose as many leading spaces as the opening fence
	// was indented by, as CommonMark reads them.
	indent := len(lines[start]) - len(strings.TrimLeft(lines[start], " "))
	body := make([]string, 0, end-start-1)
	for _, l := range lines[start+1 : end] {
		n := min(indent, len(l)-len(strings.TrimLeft(l, " ")))
		body = append(body, l[n:])
	}
	code = strings.Join(body, "\n")
	rest := append(append([]string(nil), lines[:start]...), lines[end+1:]...)
	return code, strings.TrimSpace(strings.Join(rest, "\n")), true
}
