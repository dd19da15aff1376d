package bitbucket

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/result"
)

// The Code Insights report review puts on the head commit (swagger
// report and report_annotation; PUT .../commit/{commit}/reports/{id} and
// POST .../reports/{id}/annotations): Bitbucket shows it in the pull
// request's Reports panel, and each annotation beside its line of the
// diff. The model's words in it are neutralised as in a comment
// (seam.NeutralLine, seam.Neutralize): whether Bitbucket shows them as
// text or as Markdown, no mention, link or HTML in them acts.

// ReportID is the report's external ID: one report "review" a commit,
// replaced by a later review of the same commit.
const ReportID = "review"

// Bitbucket's bounds on a report (developer.atlassian.com, "Code
// Insights"): 100 annotations a request, 1,000 a report, and the lengths
// of their texts.
const (
	annotationsPerRequest = 100
	maxAnnotations        = 1000
	maxSummary            = 450
	maxDetails            = 2000
	maxReportDetails      = 2000
)

// reportBody is the report (swagger report): a review's findings, and
// FAILED when it has any, so that a merge check on the report fails with
// them; the build status carries --fail-on's gate.
func reportBody(r *result.Result) map[string]any {
	res := "PASSED"
	if len(r.Findings) > 0 {
		res = "FAILED"
	}
	details := seam.NeutralLine(strings.TrimSpace(text.OneLine(r.Summary, 0)))
	if details == "" {
		details = result.CountFindings(r.Findings)
	}
	state := r.State
	if state == "" {
		state = "complete"
	}
	return map[string]any{
		"title": "review", "reporter": "review", "report_type": "BUG", "result": res,
		"details": text.Truncate(details, maxReportDetails),
		"data": []map[string]any{
			{"title": "Findings", "type": "NUMBER", "value": len(r.Findings)},
			{"title": "Review state", "type": "TEXT", "value": state},
			{"title": "Run", "type": "TEXT", "value": text.OneLine(r.RunID, 100)},
		},
	}
}

// severities maps a finding's severity to an annotation's.
var severities = map[result.Severity]string{
	result.Critical: "CRITICAL", result.High: "HIGH", result.Medium: "MEDIUM", result.Low: "LOW", result.Info: "LOW",
}

// annotation is a finding as an annotation of the report (swagger
// report_annotation), known by its fingerprint.
func annotation(f result.Finding) map[string]any {
	kind := "CODE_SMELL"
	switch strings.ToLower(f.Category) {
	case "security":
		kind = "VULNERABILITY"
	case "bug", "correctness":
		kind = "BUG"
	}
	sev := severities[f.Severity]
	if sev == "" {
		sev = "LOW"
	}
	a := map[string]any{
		"external_id":     "review-" + f.Fingerprint(),
		"annotation_type": kind, "severity": sev, "result": "FAILED",
		"summary": text.Truncate(seam.NeutralLine(text.OneLine(fmt.Sprintf("[%s] %s", f.Severity, f.Title), 0)), maxSummary),
	}
	if seam.Nameable(f.Path) && f.Path != "" {
		a["path"] = f.Path
	}
	if f.Line > 0 {
		a["line"] = f.Line
	}
	if d := strings.TrimSpace(f.Body); d != "" {
		a["details"] = seam.CloseFences(text.Truncate(seam.Neutralize(d), maxDetails))
	}
	return a
}

// putReport puts the report on the head, then its annotations, a hundred
// a request, at most a thousand (a report holds no more; the summary
// comment lists every finding). Putting a report again replaces it, and
// its annotations with it.
func (c *client) putReport(ctx context.Context, r *result.Result) error {
	path := c.repoPath + "/commit/" + c.head + "/reports/" + ReportID
	if _, err := c.Call(ctx, seam.Request{Op: "putting the Code Insights report on " + text.ShortSHA(c.head), Method: http.MethodPut, Path: path, Body: reportBody(r)}); err != nil {
		return err
	}
	var all []map[string]any
	seen := map[string]bool{}
	for _, f := range r.Findings {
		if fp := f.Fingerprint(); !seen[fp] && len(all) < maxAnnotations {
			seen[fp] = true
			all = append(all, annotation(f))
		}
	}
	for len(all) > 0 {
		n := min(len(all), annotationsPerRequest)
		// Annotations are put by their external IDs: sending a batch
		// again after a failure replaces it, never adds it twice.
		if _, err := c.Call(ctx, seam.Request{Op: "annotating the Code Insights report on " + text.ShortSHA(c.head), Method: http.MethodPost, Path: path + "/annotations", Body: all[:n]}); err != nil {
			return err
		}
		all = all[n:]
	}
	return nil
}
