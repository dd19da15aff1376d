package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"

	ctext "github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/result"
)

// The Code Quality objects follow GitLab's report format ("Code Quality
// report format" in GitLab's CI documentation), a subset of Code Climate's
// issue: GitLab reads only these fields.
type (
	cqIssue struct {
		Description string     `json:"description"`
		CheckName   string     `json:"check_name"`
		Fingerprint string     `json:"fingerprint"`
		Severity    string     `json:"severity"`
		Location    cqLocation `json:"location"`
	}
	cqLocation struct {
		Path  string  `json:"path"`
		Lines cqLines `json:"lines"`
	}
	cqLines struct {
		Begin int `json:"begin"`
	}
)

// writeCodeQuality writes the result as GitLab's Code Quality report, the
// artifact a job declares under artifacts:reports:codequality: one issue per
// finding, with its title as the description, its category as the check,
// and a fingerprint that is the same in every run that finds it on the same
// line (see codeQualityFingerprint), which is how GitLab's merge-request
// widget tells new findings from resolved ones. A file-level finding is on
// line 1: the format requires a line.
//
// Files a cap left out are one info issue on the first of them, as rdjson
// does; the format has no place for usage.
func writeCodeQuality(w io.Writer, r *result.Result) error {
	out := make([]cqIssue, 0, len(r.Findings)+1)
	for _, f := range r.Findings {
		out = append(out, cqIssue{
			Description: codeQualityDescription(f),
			CheckName:   f.RuleID(),
			Fingerprint: codeQualityFingerprint(f),
			Severity:    codeQualitySeverity(f.Severity),
			Location:    cqLocation{Path: ctext.JSONPath(f.Path), Lines: cqLines{Begin: max(f.Line, 1)}},
		})
	}
	if line := notReviewedLine(r); line != "" {
		nr := result.Finding{Path: r.NotReviewed[0].Path, Category: "not-reviewed", Title: "review: " + line}
		out = append(out, cqIssue{
			Description: nr.Title,
			CheckName:   nr.Category,
			Fingerprint: codeQualityFingerprint(nr),
			Severity:    "info",
			Location:    cqLocation{Path: ctext.JSONPath(nr.Path), Lines: cqLines{Begin: 1}},
		})
	}
	return WriteJSON(w, out)
}

// codeQualityDescription is a finding in one line: its severity, title and
// where it ends when it spans lines. GitLab shows it as the issue's text.
func codeQualityDescription(f result.Finding) string {
	s := fmt.Sprintf("[%s] %s", f.Severity, ctext.OneLine(f.Title, 0))
	if f.EndLine > f.Line && f.Line > 0 {
		s += " (lines " + strconv.Itoa(f.Line) + "-" + strconv.Itoa(f.EndLine) + ")"
	}
	return s
}

// codeQualityFingerprint identifies a finding in the report: a hash of the
// finding's own fingerprint (its path, category and title, normalised as
// result.Finding.Fingerprint does) and its line. It holds nothing of the
// run, so two runs that find the same thing on the same line give the same
// fingerprint, and two findings alike on two lines of one file stay two
// issues (GitLab shows issues with one fingerprint as one).
func codeQualityFingerprint(f result.Finding) string {
	sum := sha256.Sum256([]byte(f.Fingerprint() + "\x00" + strconv.Itoa(f.Line)))
	return hex.EncodeToString(sum[:16])
}

// codeQualitySeverity maps a severity to GitLab's five: info, minor,
// major, critical, blocker.
func codeQualitySeverity(s result.Severity) string {
	switch s {
	case result.Critical:
		return "blocker"
	case result.High:
		return "critical"
	case result.Medium:
		return "major"
	case result.Low:
		return "minor"
	}
	return "info"
}
