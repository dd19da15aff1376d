package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

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
// review --help. exitCode returns no other.
var ExitCodes = []struct {
	Code  int
	Means string
}{
	{ExitOK, "success, also when there is nothing to review"},
	{ExitError, "error: git, the model endpoint, the store, a file"},
	{ExitUsage, "usage: a bad flag, argument or value"},
	{ExitFindings, "findings at or above --fail-on"},
	{ExitLocked, "the store is in use by another review"},
	{ExitIncomplete, "incomplete: the model never submitted its review"},
	{ExitDamaged, "the store is damaged; it was left as it was"},
	{ExitInterrupted, "interrupted"},
}

// exitCodeHelp is ExitCodes as a table for the root command's help.
func exitCodeHelp() string {
	var b strings.Builder
	b.WriteString("Exit codes:\n")
	for _, c := range ExitCodes {
		fmt.Fprintf(&b, "  %3d  %s\n", c.Code, c.Means)
	}
	return strings.TrimSuffix(b.String(), "\n")
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
