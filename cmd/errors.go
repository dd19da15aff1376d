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
	// ExitDamaged is a store that cannot be read back as it was written
	// (toolmem.ErrDamaged); the command left it as it was.
	ExitDamaged     = 6
	ExitInterrupted = 130
)

// UsageError is a mistake in how the command was invoked: a bad flag, a
// missing argument. It exits with ExitUsage.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usageErrorf(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// exitCode maps an error to the process exit code.
func exitCode(err error) int {
	var ue *UsageError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	case errors.As(err, &ue):
		return ExitUsage
	case isLocked(err):
		return ExitLocked
	case errors.Is(err, toolmem.ErrDamaged):
		return ExitDamaged
	case errors.Is(err, errFindings):
		return ExitFindings
	}
	return ExitError
}

// errFindings is returned after all outputs are written when a finding is at
// or above --fail-on.
var errFindings = errors.New("findings at or above the --fail-on severity")

// oneLine flattens an error message so it prints as a single line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// isLocked reports whether err means another review holds the store.
func isLocked(err error) bool { return errors.Is(err, toolmem.ErrLocked) }
