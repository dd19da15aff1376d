package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/toolmem"
)

// Exit codes. Scripts and CI configurations rely on them: never renumber.
const (
	ExitOK       = 0
	ExitError    = 1
	ExitUsage    = 2
	ExitFindings = 3
	ExitLocked   = 4
	// ExitIncomplete is a review the model never submitted, or one in
	// units some of which failed: what it reviewed is unknown or partial,
	// so CI must not take it for a clean one.
	// Findings at or above --fail-on take precedence (ExitFindings).
	ExitIncomplete = 5
	// ExitDamaged is a store that cannot be read back as it was written
	// (toolmem.ErrDamaged); the command left it as it was.
	ExitDamaged     = 6
	ExitInterrupted = 130
)

// ExitCodes say what each exit code means, in the order of the codes, for
// review help exit-codes, and in a word (Word) for review --help.
// exitCode returns no other.
var ExitCodes = []struct {
	Code        int
	Word, Means string
}{
	{ExitOK, "ok", "success, also when there is nothing to review"},
	{ExitError, "error", "error: git, the model endpoint, the store, a file"},
	{ExitUsage, "usage", "usage: a bad flag, argument or value"},
	{ExitFindings, "findings at --fail-on", "findings at or above --fail-on"},
	{ExitLocked, "store in use", "the store is in use by another review"},
	{ExitIncomplete, "incomplete", "incomplete: the model never submitted its review"},
	{ExitDamaged, "store damaged", "the store is damaged; it was left as it was"},
	{ExitInterrupted, "interrupted", "interrupted"},
}

// exitCodeHelp is ExitCodes as a table, for review help exit-codes.
func exitCodeHelp() string {
	var b strings.Builder
	b.WriteString("Exit codes:\n")
	for _, c := range ExitCodes {
		fmt.Fprintf(&b, "  %3d  %s\n", c.Code, c.Means)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// exitCodeLine is ExitCodes in a word each, for the root command's help.
func exitCodeLine() string {
	parts := make([]string, len(ExitCodes))
	for i, c := range ExitCodes {
		parts[i] = fmt.Sprintf("%d %s", c.Code, c.Word)
	}
	return "Exit codes: " + strings.Join(parts, ", ") + " (review help exit-codes)."
}

// UsageError is a mistake in how the command was invoked: a bad flag, a
// missing argument. It exits with ExitUsage.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usageErrorf(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// exitCode maps an error to the process exit code. The typed errors of
// the packages below have theirs beside their advice (advisers).
func exitCode(err error) int {
	var ue *UsageError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	case errors.As(err, &ue):
		return ExitUsage
	}
	if _, a, ok := advise(err); ok && a.code != 0 {
		return a.code
	}
	switch {
	case isLocked(err):
		return ExitLocked
	case errors.Is(err, toolmem.ErrDamaged):
		return ExitDamaged
	case errors.Is(err, errFindings):
		return ExitFindings
	case errors.Is(err, errIncomplete):
		return ExitIncomplete
	}
	return ExitError
}

// gate is what a finished review's exit code is judged by.
type gate struct {
	failOn     result.Severity // --fail-on's severity; "" for none
	unreviewed bool            // --fail-on names unreviewed
	// open are the findings earlier reviews posted on the change (named
	// on, "pull request" or "merge request") that are still open there.
	open []seam.OpenFinding
	on   string
}

// check says whether a review whose outputs are written fails its gate,
// and why, on stderr: findings at or above --fail-on, this review's or
// still open from earlier ones, or a change not all reviewed when
// --fail-on names unreviewed. It returns errFindings then, else nil.
func (g gate) check(s *IOStreams, res *result.Result) error {
	err := failOn(s, res.Findings, g.failOn, g.open, g.on)
	if err == nil && g.unreviewed && len(res.NotReviewed) > 0 {
		// A team can gate on a review that left part of the change out.
		fmt.Fprintf(s.ErrOut, "review: %s, and --fail-on names unreviewed: exit code 3\n", result.Unreviewed(res.NotReviewed))
		err = errFindings
	}
	return err
}

// reviewExit is the exit policy of a review whose outputs are written,
// given the outcome of its gate (gate.check): it says on stderr why the
// review does not exit 0, and returns the error whose exitCode is the
// review's. In order of precedence: the gate (ExitFindings); the model
// failing (failed: only the secrets found without it are in the outputs;
// ExitError); units that failed, or a review the model never submitted
// (ExitIncomplete).
func reviewExit(ctx context.Context, s *IOStreams, res *result.Result, failed, gated error) error {
	err := gated
	if failed != nil {
		failed := runError(ctx, res.RunID, failed)
		fmt.Fprintf(s.ErrOut, "review: %s\n", text.OneLine(errorLine(failed), 0))
		fmt.Fprintf(s.ErrOut, "review: the outputs hold only the %s review found without the model\n", localFound(res.Findings))
		if err == nil {
			err = &reported{failed}
		}
		return err
	}
	for _, f := range res.FailedUnits {
		fmt.Fprintf(s.ErrOut, "review: incomplete review: unit %d failed (%s): %s\n", f.Unit, strings.Join(f.Files, ", "), text.OneLine(f.Error, 0))
	}
	if len(res.FailedUnits) > 0 {
		fmt.Fprintf(s.ErrOut, "review: the outputs hold the other units' findings and list the failed units' files as not reviewed; run it again, or see what happened: review replay %s\n", res.RunID)
		if err == nil {
			err = errIncomplete
		}
	}
	if !res.Submitted {
		fmt.Fprintf(s.ErrOut, "review: incomplete review: the model did not submit it, so findings may be missing; run it again, or see what the model saw: review replay %s\n", res.RunID)
		if err == nil {
			err = errIncomplete
		}
	}
	return err
}

// failOn returns errFindings, after saying why, when a finding is at or
// above the threshold: one of this review's, or one an earlier review
// posted on the pull request (the change on) that is still open there (see
// sinceFor) and that this review did not find again.
func failOn(s *IOStreams, fs []result.Finding, threshold result.Severity, open []seam.OpenFinding, on string) error {
	if threshold == "" {
		return nil
	}
	n := 0
	found := make(map[string]bool, len(fs))
	for _, f := range fs {
		found[f.Fingerprint()] = true
		if f.Severity.Rank() >= threshold.Rank() {
			n++
		}
	}
	var carried []string
	for _, o := range open {
		if !found[o.Fingerprint] && o.Severity.Rank() >= threshold.Rank() {
			carried = append(carried, o.URL)
		}
	}
	if n+len(carried) == 0 {
		return nil
	}
	msg := fmt.Sprintf("review: %d finding(s) at or above %s, the fail-on severity", n+len(carried), threshold)
	if len(carried) > 0 {
		msg += fmt.Sprintf(" (%d of them from earlier reviews, still open on the %s: %s)", len(carried), on, text.OneLine(strings.Join(carried, " "), 500))
	}
	fmt.Fprintln(s.ErrOut, msg+": exit code 3")
	return errFindings
}

// errFindings is returned after all outputs are written when a finding is at
// or above --fail-on.
var errFindings = errors.New("findings at or above the --fail-on severity")

// errIncomplete is returned after all outputs are written when the model
// never submitted its review.
var errIncomplete = errors.New("the model did not submit its review")

// isOutcome reports whether err is the outcome of a finished review
// (errFindings, errIncomplete), said on stderr already, rather than an
// error to print.
func isOutcome(err error) bool {
	var r *reported
	return errors.Is(err, errFindings) || errors.Is(err, errIncomplete) || errors.As(err, &r)
}

// isLocked reports whether err means another review holds the store.
func isLocked(err error) bool { return errors.Is(err, toolmem.ErrLocked) }

// hintError is an error followed by lines of advice, for the few mistakes
// a newcomer makes that one line cannot fix: the error stays one line, the
// recipe follows it.
type hintError struct {
	err  error
	hint []string
}

func (e *hintError) Error() string { return e.err.Error() }
func (e *hintError) Unwrap() error { return e.err }

// reported is an error already said on stderr: exit code 1, nothing more
// printed.
type reported struct{ err error }

func (e *reported) Error() string { return e.err.Error() }
func (e *reported) Unwrap() error { return e.err }
