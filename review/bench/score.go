package bench

import (
	"strings"

	"github.com/reviewdev/review/review/result"
)

// DefaultSlack is how many lines an expected range is widened by on each
// side before findings are matched against it.
const DefaultSlack = 3

// Unrated is the severity key of expected issues the corpus gives no
// severity (those a revert_of case derives from its hunks).
const Unrated = "unrated"

// Scored is a finding as it was scored.
type Scored struct {
	Path     string          `json:"path"`
	Line     int             `json:"line"`
	EndLine  int             `json:"end_line,omitempty"`
	Severity result.Severity `json:"severity"`
	Title    string          `json:"title"`
	// Match is the index of the expected issue the finding was matched
	// to, or -1: a false positive.
	Match int `json:"match"`
	// Described is the judge's word on a matched finding: whether it
	// describes the defect, not only its place. Nil when not judged.
	Described *bool `json:"described,omitempty"`
	// Judge is what the judge answered, on one line.
	Judge string `json:"judge,omitempty"`
}

// Matches reports whether a finding on path, lines line to end (end 0:
// line alone), lies on e widened by slack lines on each side. A finding
// about a whole file (line 0) names no line and matches nothing.
func Matches(e Expected, path string, line, end, slack int) bool {
	if line <= 0 || path != e.Path {
		return false
	}
	end = max(end, line)
	return line <= e.EndLine+slack && end >= e.StartLine-slack
}

// Score matches a review's findings to the expected issues, one to one:
// each expected issue is found by at most one finding and each finding
// finds at most one issue, as many issues as can be (a maximum matching),
// so that two findings of one issue are one true and one false positive,
// and a finding between two issues never counts twice. dropped are the
// findings the review left out; those it could not place on a changed
// line count as unplaced, like the findings it kept at file level.
func Score(expected []Expected, findings []result.Finding, dropped []result.Dropped, slack int) RunScore {
	s := RunScore{Findings: make([]Scored, len(findings))}
	// Kuhn's augmenting paths: a few findings and issues a case.
	owner := make([]int, len(expected)) // expected -> finding, or -1
	for i := range owner {
		owner[i] = -1
	}
	var try func(f int, seen []bool) bool
	try = func(f int, seen []bool) bool {
		for e := range expected {
			if seen[e] || !Matches(expected[e], findings[f].Path, findings[f].Line, findings[f].EndLine, slack) {
				continue
			}
			seen[e] = true
			if owner[e] < 0 || try(owner[e], seen) {
				owner[e] = f
				return true
			}
		}
		return false
	}
	for f := range findings {
		try(f, make([]bool, len(expected)))
	}
	for i, f := range findings {
		s.Findings[i] = Scored{Path: f.Path, Line: f.Line, EndLine: f.EndLine, Severity: f.Severity, Title: f.Title, Match: -1}
		if f.Line <= 0 {
			s.Unplaced++
		}
	}
	for _, d := range dropped {
		if !strings.HasPrefix(d.Reason, "merged into") {
			s.Unplaced++
		}
	}
	s.RecallBySeverity = map[string]*SeverityRecall{}
	s.PrecisionBySeverity = map[string]*SeverityPrecision{}
	for e, f := range owner {
		key := severityKey(expected[e].Severity)
		r := s.RecallBySeverity[key]
		if r == nil {
			r = &SeverityRecall{}
			s.RecallBySeverity[key] = r
		}
		r.Expected++
		if f >= 0 {
			r.Found++
			s.TP++
			s.Findings[f].Match = e
		}
	}
	for _, f := range s.Findings {
		key := severityKey(f.Severity)
		p := s.PrecisionBySeverity[key]
		if p == nil {
			p = &SeverityPrecision{}
			s.PrecisionBySeverity[key] = p
		}
		p.Findings++
		if f.Match >= 0 {
			p.Matched++
		}
	}
	s.FP = len(findings) - s.TP
	s.FN = len(expected) - s.TP
	s.finish()
	return s
}

func severityKey(s result.Severity) string {
	if s == "" {
		return Unrated
	}
	return string(s)
}

// ratio is n/d, or nil when d is 0: a rate of nothing is not known, and
// is never shown as 0 or 1.
func ratio(n, d int) *float64 {
	if d == 0 {
		return nil
	}
	r := float64(n) / float64(d)
	return &r
}

// f1 is the harmonic mean of precision and recall, 2tp/(2tp+fp+fn): 0
// when nothing was found, nil when there was nothing to find and nothing
// was reported.
func f1(tp, fp, fn int) *float64 { return ratio(2*tp, 2*tp+fp+fn) }
