package report

import (
	"fmt"
	"io"

	ctext "github.com/reviewdev/review/internal/text"

	"github.com/reviewdev/review/review/result"
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
		// RelatedLocations are the finding's evidence: the lines of it
		// the model was shown, and where.
		RelatedLocations []rdRelated `json:"related_locations,omitempty"`
		// OriginalOutput is the finding as one line, path:line: message,
		// which reviewdog's local reporter prints.
		OriginalOutput string `json:"original_output,omitempty"`
	}
	rdRelated struct {
		Message  string     `json:"message"`
		Location rdLocation `json:"location"`
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

// writeRDJSON writes the result in reviewdog's rdjson format, for
// `reviewdog -f=rdjson` to post: one diagnostic per finding with its path,
// line range, severity (ERROR, WARNING or INFO, as levelOf decides for
// SARIF too) and category as its code, and the finding in one
// line as its original_output. A finding's replacement lines (or a
// suggestion that is one ```suggestion block) become a reviewdog
// suggestion for its range; any other suggestion is advice and stays in
// the message. A file-level finding has no range. The finding's evidence
// is its related locations.
//
// rdjson has no place for usage; the other formats carry it.
func writeRDJSON(w io.Writer, r *result.Result) error {
	out := rdResult{
		Source:      rdSource{Name: "review", URL: informationURI},
		Diagnostics: make([]rdDiagnostic, 0, len(r.Findings)),
	}
	top := result.Severity("")
	for _, f := range r.Findings {
		if f.Severity.Rank() > top.Rank() {
			top = f.Severity
		}
		d := rdDiagnostic{
			Location: rdLocation{Path: ctext.JSONPath(f.Path)},
			Severity: rdSeverity(f.Severity, r.FailOn),
			Code:     rdCode{Value: f.RuleID()},
		}
		advice := f.Suggestion
		if f.Line > 0 {
			rg := rdRange{Start: rdPosition{f.Line}, End: rdPosition{max(f.EndLine, f.Line)}}
			d.Location.Range = &rg
			if code, prose, ok := f.Change(); ok {
				d.Suggestions = []rdSuggestion{{Range: rg, Text: code}}
				advice = prose
			}
		}
		for _, e := range f.Evidence {
			d.RelatedLocations = append(d.RelatedLocations, rdRelated{Message: evidenceText(e),
				Location: rdLocation{Path: ctext.JSONPath(e.Path), Range: &rdRange{Start: rdPosition{e.StartLine}, End: rdPosition{e.EndLine}}}})
		}
		g := f
		g.Suggestion, g.Replacement = advice, nil
		d.Message = plainMessage(g, true)
		d.OriginalOutput = fmt.Sprintf("%s: [%s] %s (%s)", f.Location(), f.Severity, ctext.OneLine(f.Title, 0), f.RuleID())
		out.Diagnostics = append(out.Diagnostics, d)
	}
	if line := notReviewedLine(r); line != "" {
		// rdjson has no place for a note on the run: one diagnostic on
		// the first file not reviewed says it, without a line.
		out.Diagnostics = append(out.Diagnostics, rdDiagnostic{
			Message:  "review: " + line,
			Location: rdLocation{Path: ctext.JSONPath(r.NotReviewed[0].Path)},
			Severity: "INFO",
			Code:     rdCode{Value: "not-reviewed"},
		})
	}
	if top != "" {
		out.Severity = rdSeverity(top, r.FailOn)
	}
	return WriteJSON(w, out)
}

// rdSeverity is a finding's reviewdog severity (levelOf).
func rdSeverity(s, failOn result.Severity) string {
	return [...]string{levelNote: "INFO", levelWarning: "WARNING", levelError: "ERROR"}[levelOf(s, failOn)]
}
