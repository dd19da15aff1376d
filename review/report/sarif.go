package report

import (
	"fmt"
	"io"
	"math"
	"net/url"
	"sort"
	"strings"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/result"
)

// SARIF describes the log format writeSARIF writes.
const (
	sarifVersion = "2.1.0"
	sarifSchema  = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	// srcRoot is the base every artifact URI is relative to: the
	// repository's top level. Code scanning resolves it to the checkout.
	srcRoot = "%SRCROOT%"
	// fingerprintKey names our partial fingerprint. The version suffix
	// lets the hash change meaning later without matching old results.
	fingerprintKey = "reviewFinding/v1"
	// informationURI is where people learn what produced the results.
	informationURI = "https://github.com/reviewdev/review"
	// automationCategory is the code scanning category of our runs: the
	// part of automationDetails.id before its last slash. It stays the same
	// from run to run so each analysis replaces the previous one.
	automationCategory = "review"
)

// The SARIF objects below hold the subset of SARIF 2.1.0 that code scanning
// reads, in the schema's property names. Field order is the output order.
//
// They are written here rather than taken from go-sarif, which would change
// the log: its v2 types put "version" before "$schema" and a result's
// properties before its ruleId, and hold properties in maps, sorted by key;
// its v3 types also write every optional array and defaults such as
// "rank": -1, "charOffset": -1 and "kind": "fail" that the log does not
// mean.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool sarifTool `json:"tool"`
		// Invocations is set only for an incomplete or partial review.
		Invocations        []sarifInvocation            `json:"invocations,omitempty"`
		AutomationDetails  sarifAutomation              `json:"automationDetails"`
		OriginalURIBaseIDs map[string]sarifArtifactBase `json:"originalUriBaseIds"`
		Results            []sarifResult                `json:"results"`
		Properties         sarifRunProperties           `json:"properties"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	// sarifInvocation says that the model never submitted its review, or
	// that files were not reviewed, as tool execution notifications (the
	// latter with the files' locations).
	sarifInvocation struct {
		ExecutionSuccessful        bool                `json:"executionSuccessful"`
		ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications"`
	}
	sarifNotification struct {
		Level     string          `json:"level"`
		Message   sarifText       `json:"message"`
		Locations []sarifLocation `json:"locations,omitempty"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string             `json:"id"`
		Name                 string             `json:"name"`
		ShortDescription     sarifText          `json:"shortDescription"`
		FullDescription      sarifText          `json:"fullDescription"`
		Help                 sarifHelp          `json:"help"`
		DefaultConfiguration sarifConfiguration `json:"defaultConfiguration"`
		Properties           sarifRuleProps     `json:"properties"`
	}
	// sarifHelp is a rule's help, as code scanning shows it on an alert.
	sarifHelp struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown"`
	}
	sarifConfiguration struct {
		Level string `json:"level"`
	}
	sarifRuleProps struct {
		Tags []string `json:"tags"`
		// SecuritySeverity is code scanning's score (0.0–10.0) of the
		// security rule, from its most severe finding that reaches
		// --fail-on; without one, none, so no security alert fails the
		// check.
		SecuritySeverity string `json:"security-severity,omitempty"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifAutomation struct {
		ID string `json:"id"`
	}
	sarifArtifactBase struct {
		Description sarifText `json:"description"`
	}
	sarifResult struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           int               `json:"ruleIndex"`
		Level               string            `json:"level"`
		Message             sarifText         `json:"message"`
		Locations           []sarifLocation   `json:"locations"`
		RelatedLocations    []sarifRelated    `json:"relatedLocations,omitempty"`
		PartialFingerprints map[string]string `json:"partialFingerprints"`
		Properties          sarifResultProps  `json:"properties"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysical `json:"physicalLocation"`
	}
	// sarifRelated is a run of lines the model was shown of what the
	// finding cites: its evidence.
	sarifRelated struct {
		ID               int           `json:"id"`
		PhysicalLocation sarifPhysical `json:"physicalLocation"`
		Message          sarifText     `json:"message"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           sarifRegion   `json:"region"`
	}
	sarifArtifact struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId"`
	}
	sarifRegion struct {
		StartLine int `json:"startLine"`
		EndLine   int `json:"endLine,omitempty"`
	}
	sarifResultProps struct {
		Severity result.Severity `json:"severity"`
		RunID    string          `json:"runId"`
		// FileLevel marks a finding about a whole file, anchored at line 1
		// because code scanning requires a start line.
		FileLevel bool   `json:"fileLevel,omitempty"`
		Note      string `json:"note,omitempty"`
		// Grounded is set when every line the finding cites was shown
		// to the model; its relatedLocations say where.
		Grounded bool `json:"grounded"`
	}
	sarifRunProperties struct {
		RunID     string          `json:"runId"`
		Model     string          `json:"model"`
		Base      string          `json:"base"`
		Head      string          `json:"head"`
		BaseSHA   string          `json:"baseSha,omitempty"`
		HeadSHA   string          `json:"headSha,omitempty"`
		MergeBase string          `json:"mergeBase,omitempty"`
		Summary   string          `json:"summary,omitempty"`
		Submitted bool            `json:"submitted"`
		Steps     int             `json:"steps"`
		Usage     result.RunUsage `json:"usage"`
		// EstimatedCostUSD is absent when the model's price is unknown.
		EstimatedCostUSD *float64 `json:"estimatedCostUsd,omitempty"`
		Replay           string   `json:"replay"`
	}
)

// sarifEvidence is a finding's evidence as related locations, each
// saying where the model was shown the lines.
func sarifEvidence(f result.Finding) []sarifRelated {
	var out []sarifRelated
	for i, e := range f.Evidence {
		region := sarifRegion{StartLine: e.StartLine}
		if e.EndLine > e.StartLine {
			region.EndLine = e.EndLine
		}
		out = append(out, sarifRelated{
			ID: i + 1,
			PhysicalLocation: sarifPhysical{
				ArtifactLocation: sarifArtifact{URI: artifactURI(e.Path), URIBaseID: srcRoot},
				Region:           region,
			},
			Message: sarifText{Text: evidenceText(e)},
		})
	}
	return out
}

// evidenceText says where the model was shown a finding's lines.
func evidenceText(e result.Evidence) string {
	switch {
	case e.Source == result.SourceDiff && e.Unit > 0:
		return fmt.Sprintf("shown to the model in the diff context of unit %d", e.Unit)
	case e.Source == result.SourceDiff:
		return "shown to the model in the diff context"
	case e.Tool != "":
		return fmt.Sprintf("shown to the model in the output of %s, stored as %s (review memory show %s)", e.Tool, e.Source, e.Source)
	}
	return fmt.Sprintf("shown to the model in tool output %s (review memory show %s)", e.Source, e.Source)
}

// writeSARIF writes the result as a SARIF 2.1.0 log that GitHub code
// scanning accepts: one rule per finding category, one result per finding
// with a repository-relative location, and a partial fingerprint that does
// not depend on the line, so a finding keeps its alert when unrelated lines
// move. version is the tool's version; empty leaves it out. The output is
// deterministic for a given result.
//
// A finding about a whole file (Line 0) is placed at line 1 and marked
// fileLevel in its properties: code scanning rejects a result without a
// start line.
//
// A review the model never submitted is an analysis that did not finish:
// the run's invocation says executionSuccessful false, with a notification
// saying why, so a consumer does not take the missing findings for fixed
// ones.
func writeSARIF(w io.Writer, r *result.Result, version string) error {
	// SARIF wants a version that starts with a number (the multitool's
	// SARIF2005): a release's tag v1.4.0 is 1.4.0.
	if len(version) > 1 && version[0] == 'v' && version[1] >= '0' && version[1] <= '9' {
		version = version[1:]
	}
	rules, index := sarifRules(r.Findings, r.FailOn)
	results := make([]sarifResult, 0, len(r.Findings))
	for _, f := range r.Findings {
		region := sarifRegion{StartLine: f.Line}
		if f.Line <= 0 {
			region.StartLine = 1
		} else if f.EndLine > f.Line {
			region.EndLine = f.EndLine
		}
		results = append(results, sarifResult{
			RuleID:    f.RuleID(),
			RuleIndex: index[f.RuleID()],
			Level:     sarifLevel(f.Severity, r.FailOn),
			Message:   sarifText{Text: plainMessage(f, true)},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{
				ArtifactLocation: sarifArtifact{URI: artifactURI(f.Path), URIBaseID: srcRoot},
				Region:           region,
			}}},
			// primaryLocationLineHash is the one code scanning matches
			// alerts by; ours is stable across edits of other lines.
			PartialFingerprints: map[string]string{fingerprintKey: f.Fingerprint(), "primaryLocationLineHash": f.Fingerprint()},
			RelatedLocations:    sarifEvidence(f),
			Properties: sarifResultProps{
				Severity: f.Severity, RunID: r.RunID, FileLevel: f.Line <= 0, Note: f.Note, Grounded: f.Grounded,
			},
		})
	}
	props := sarifRunProperties{
		RunID: r.RunID, Model: r.Model, Base: r.Base, Head: r.Head,
		BaseSHA: r.BaseSHA, HeadSHA: r.HeadSHA, MergeBase: r.MergeBase,
		Summary: r.Summary, Submitted: r.Submitted, Steps: r.Steps, Usage: r.Usage,
		Replay: replayCommand(r.RunID),
	}
	if c, ok := r.EstimateCost(); ok {
		// Millionths of a dollar are below any price's precision; rounding
		// keeps float noise out of the log.
		c = math.Round(c*1e6) / 1e6
		props.EstimatedCostUSD = &c
	}
	// One invocation: it failed when the model never submitted, and says
	// which files were not reviewed when caps left some out.
	var invocations []sarifInvocation
	inv := sarifInvocation{ExecutionSuccessful: r.Submitted, ToolExecutionNotifications: []sarifNotification{}}
	if !r.Submitted {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{Level: "error", Message: sarifText{Text: r.Incomplete(false)}})
	}
	if line := notReviewedLine(r); line != "" {
		n := sarifNotification{Level: "warning", Message: sarifText{Text: "review: " + line}}
		for _, f := range r.NotReviewed {
			n.Locations = append(n.Locations, sarifLocation{PhysicalLocation: sarifPhysical{
				ArtifactLocation: sarifArtifact{URI: artifactURI(f.Path), URIBaseID: srcRoot},
				Region:           sarifRegion{StartLine: 1},
			}})
		}
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, n)
	}
	if len(inv.ToolExecutionNotifications) > 0 {
		invocations = []sarifInvocation{inv}
	}
	log := sarifLog{
		Schema:  sarifSchema,
		Version: sarifVersion,
		Runs: []sarifRun{{
			Tool: sarifTool{Driver: sarifDriver{
				Name: "review", Version: version, InformationURI: informationURI, Rules: rules,
			}},
			Invocations:       invocations,
			AutomationDetails: sarifAutomation{ID: automationCategory + "/" + r.RunID},
			OriginalURIBaseIDs: map[string]sarifArtifactBase{
				srcRoot: {Description: sarifText{Text: "The top level of the repository's work tree."}},
			},
			Results:    results,
			Properties: props,
		}},
	}
	return WriteJSON(w, log)
}

// sarifRules returns one rule per category, sorted by ID, and each ID's
// index in the list.
func sarifRules(fs []result.Finding, failOn result.Severity) ([]sarifRule, map[string]int) {
	seen := map[string]bool{}
	var ids []string
	for _, f := range fs {
		if id := f.RuleID(); !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	rules := make([]sarifRule, 0, len(ids))
	index := make(map[string]int, len(ids))
	for i, id := range ids {
		index[id] = i
		tags := []string{"review", id}
		if id == "security" {
			tags = []string{"review", "security"}
		}
		desc := categoryDescription(id)
		props := sarifRuleProps{Tags: tags}
		if id == "security" {
			props.SecuritySeverity = securitySeverity(fs, failOn)
		}
		rules = append(rules, sarifRule{
			ID:               id,
			Name:             text.Truncate(ruleName(id), 255), // code scanning's limit
			ShortDescription: sarifText{Text: desc},
			FullDescription:  sarifText{Text: desc + " Found by review, an AI code reviewer, in the changed lines of a pull request."},
			Help: sarifHelp{
				Text:     desc + " Each alert explains the failure and, where it can, how to fix it; `review replay <run>` shows what the model saw.",
				Markdown: "**" + desc + "**\n\nEach alert explains the failure and, where it can, how to fix it. To see what the model saw, run `review replay <run>` with the run ID in the alert's properties.",
			},
			DefaultConfiguration: sarifConfiguration{Level: "warning"},
			Properties:           props,
		})
	}
	return rules, index
}

// categoryDescription describes a rule. The categories are the ones the
// model is asked to use; any other is described by its name.
func categoryDescription(c string) string {
	switch c {
	case "correctness":
		return "Code that does not do what it is meant to do."
	case "security":
		return "A weakness an attacker could use, or data exposed that should not be."
	case "concurrency":
		return "Races, deadlocks and unsafe sharing between goroutines, threads or processes."
	case "error-handling":
		return "Errors that are ignored, lost, or reported without what a person needs to act."
	case "performance":
		return "Work that is slower or larger than it needs to be."
	case "tests":
		return "Tests that are missing, wrong, or do not test what they claim."
	case "maintainability":
		return "Code that is harder to read, change or reuse than it needs to be."
	case "general":
		return "Findings of the code review without a category."
	}
	return text.Truncate("Code review findings in category "+c+".", 1000)
}

// ruleName is a rule's name for code scanning, which wants it to differ
// from the ID, ignoring case: "error-handling" is "ErrorHandlingFinding".
func ruleName(id string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(id, func(r rune) bool { return r == '-' || r == '_' || r == ' ' || r == '/' }) {
		r := []rune(w)
		b.WriteString(strings.ToUpper(string(r[0])) + string(r[1:]))
	}
	// The multitool's SARIF1001 compares them ignoring case.
	return b.String() + "Finding"
}

// securitySeverity is code scanning's score for the security rule: that
// of its most severe finding at or above failOn, or none.
func securitySeverity(fs []result.Finding, failOn result.Severity) string {
	score := map[result.Severity]string{result.Critical: "9.5", result.High: "8.0", result.Medium: "5.5", result.Low: "3.0", result.Info: "0.5"}
	best := result.Severity("")
	for _, f := range fs {
		if f.RuleID() == "security" && failOn != "" && f.Severity.Rank() >= failOn.Rank() && f.Severity.Rank() > best.Rank() {
			best = f.Severity
		}
	}
	return score[best]
}

// sarifLevel is a finding's SARIF level (levelOf).
func sarifLevel(s, failOn result.Severity) string {
	return [...]string{levelNote: "note", levelWarning: "warning", levelError: "error"}[levelOf(s, failOn)]
}

// artifactURI turns a repository-relative path into a relative URI
// reference. Each segment is percent-encoded, colons too, so "a:b.go" is not
// read as a URI with scheme "a".
func artifactURI(path string) string {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(url.PathEscape(s), ":", "%3A")
	}
	return strings.Join(segs, "/")
}

// plainMessage is a finding as plain text: title, body, suggestion and note.
// withTitle leaves the title out where the format has a field of its own.
func plainMessage(f result.Finding, withTitle bool) string {
	var parts []string
	if withTitle && f.Title != "" {
		parts = append(parts, f.Title)
	}
	if f.Body != "" && f.Body != f.Title {
		parts = append(parts, f.Body)
	}
	if f.Suggestion != "" {
		parts = append(parts, "Suggestion: "+f.Suggestion)
	}
	if f.Replacement != nil && f.Line > 0 {
		parts = append(parts, "Suggested change of "+f.Location()+":\n"+*f.Replacement)
	}
	if f.Note != "" {
		parts = append(parts, "("+f.Note+")")
	}
	if len(parts) == 0 {
		return f.Title
	}
	return strings.Join(parts, "\n\n")
}

// replayCommand is the command that shows what the model saw in a run;
// none for a result without a run (nothing to review).
func replayCommand(run string) string {
	if run == "" {
		return ""
	}
	return "review replay " + run
}
