package review

import (
	"fmt"
	"slices"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/glob"
	"github.com/reviewdev/review/internal/redact"
	"github.com/reviewdev/review/review/result"
)

// CategorySecret is the category of the findings review makes itself, one
// for each secret the change adds. They need no model: a leaked key fails
// --fail-on high even when the model call fails.
const CategorySecret = "security"

// allowLeaks drops the leaks in files the allowlist names (path globs, as
// the ignore globs match) or found by rules it names, and, unless all is
// set, the generic ones (of low confidence) in documentation, test
// fixtures and minified code, which are mostly examples: moby's API
// documentation shows "password": "hunter2", and a search box's public
// key sits in every documentation site's bundle. Their secrets stay
// redacted: an allowlist, which a pull request can edit, only keeps known
// fixtures from being reported.
func allowLeaks(leaks []diffctx.Leak, paths, rules []string, all bool) []diffctx.Leak {
	return slices.DeleteFunc(leaks, func(l diffctx.Leak) bool {
		return slices.Contains(rules, l.Rule) || (len(paths) > 0 && glob.Match(paths, l.Path)) ||
			(!all && l.Confidence != redact.High && l.Setting != "")
	})
}

// leakFindings turns the secrets the change adds into findings at their
// lines, category security, named by the rule that found them: critical
// for a token of a known format (a provider's prefix or checksum, a
// private key), low for a generic match, which is still redacted.
func leakFindings(leaks []diffctx.Leak) []result.Finding {
	out := make([]result.Finding, 0, len(leaks))
	for _, l := range leaks {
		f := result.Finding{
			Path: l.Path, Line: l.Line, EndLine: l.EndLine,
			Severity: result.Critical, Category: CategorySecret,
			Title: "Secret committed: " + l.Rule,
			Body: fmt.Sprintf("The change adds what the secret scanner's rule %s finds (%s). It was replaced by %s in everything sent to the model and stored; the secret itself is in the repository's history now: revoke it, and load it from the environment or a secret store instead.",
				l.Rule, l.Description, l.Placeholder),
			Note: "found by review's secret scanner, not the model",
		}
		if l.Confidence != redact.High {
			f.Severity = result.Low
			f.Body = fmt.Sprintf("The change adds what may be a secret: the secret scanner's generic rule %s finds it (%s), which also matches examples and test values. It was replaced by %s in everything sent to the model and stored. If it is a real credential, it is in the repository's history now: revoke it, and load it from the environment or a secret store instead.",
				l.Rule, l.Description, l.Placeholder)
		}
		out = append(out, f)
	}
	return out
}

// LocalResult is the result of a review whose model call failed: the
// findings review makes without a model (the secrets the change adds and
// the text in it that speaks to the reviewer),
// unsubmitted. Outputs written from it still fail --fail-on for a leaked
// key.
func (s *Session) LocalResult() *result.Result {
	r := &result.Result{
		RunID: s.Run.ID, Revisions: result.RevisionsOf(s.Diff),
		Model: s.Model, Usage: s.Usage, Steps: s.Steps,
		NotReviewed: []result.NotReviewed{}, Learnings: s.learnings,
	}
	r.Findings, r.Dropped = checkFindings(s.Diff, s.localFindings(), s.OffDiff)
	if r.Findings == nil {
		r.Findings = []result.Finding{}
	}
	return r
}

// redactOutcome replaces the secrets in what the model wrote of a result
// or an answer: the history and the record already hold placeholders, but
// a finding or a summary reaches every format and post from here, and no
// path that makes one may skip the filter (local findings, units merged,
// a text answer read as a review).
func redactOutcome(red *redact.Redactor, out *Outcome) {
	if red == nil || out == nil {
		return
	}
	str := func(s *string) { *s, _ = red.Redact(*s) }
	finding := func(f *result.Finding) {
		for _, s := range []*string{&f.Title, &f.Body, &f.Suggestion, &f.Note, &f.Category} {
			str(s)
		}
		if f.Replacement != nil {
			r := *f.Replacement
			str(&r)
			f.Replacement = &r
		}
	}
	all := func(fs []result.Finding, ds []result.Dropped) {
		for i := range fs {
			finding(&fs[i])
		}
		for i := range ds {
			finding(&ds[i].Finding)
			str(&ds[i].Reason)
		}
	}
	if r := out.Result; r != nil {
		str(&r.Summary)
		all(r.Findings, r.Dropped)
	}
	if a := out.Answer; a != nil {
		str(&a.Answer)
		str(&a.Question)
		all(a.Findings, a.Dropped)
	}
}
