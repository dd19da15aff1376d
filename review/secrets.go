package review

import (
	"fmt"
	"slices"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/glob"
)

// CategorySecret is the category of the findings review makes itself, one
// for each secret the change adds. They need no model: a leaked key fails
// --fail-on high even when the model call fails.
const CategorySecret = "security"

// allowLeaks drops the leaks in files the allowlist names (path globs, as
// the ignore globs match) or found by rules it names. Their secrets stay
// redacted: an allowlist, which a pull request can edit, only keeps known
// fixtures from being reported.
func allowLeaks(leaks []diffctx.Leak, paths, rules []string) []diffctx.Leak {
	return slices.DeleteFunc(leaks, func(l diffctx.Leak) bool {
		return slices.Contains(rules, l.Rule) || (len(paths) > 0 && glob.Match(paths, l.Path))
	})
}

// leakFindings turns the secrets the change adds into findings at their
// lines: critical, security, named by the rule that found them.
func leakFindings(leaks []diffctx.Leak) []Finding {
	out := make([]Finding, 0, len(leaks))
	for _, l := range leaks {
		out = append(out, Finding{
			Path: l.Path, Line: l.Line, EndLine: l.EndLine,
			Severity: Critical, Category: CategorySecret,
			Title: "Secret committed: " + l.Rule,
			Body: fmt.Sprintf("The change adds what the secret scanner's rule %s finds (%s). It was replaced by %s in everything sent to the model and stored; the secret itself is in the repository's history now: revoke it, and load it from the environment or a secret store instead.",
				l.Rule, l.Description, l.Placeholder),
			Note: "found by review's secret scanner, not the model",
		})
	}
	return out
}

// LocalResult is the result of a review whose model call failed: the
// findings review makes without a model (the secrets the change adds),
// unsubmitted. Outputs written from it still fail --fail-on for a leaked
// key.
func (s *Session) LocalResult() *Result {
	r := &Result{
		RunID: s.Run.ID, Revisions: revisionsOf(s.Diff),
		Model: s.ModelName, Usage: s.Usage, Steps: s.Steps,
		NotReviewed: []NotReviewed{},
	}
	r.Findings, r.Dropped = checkFindings(s.Diff, leakFindings(s.leaks), s.OffDiff)
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	return r
}
