package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/reviewdev/review/toolmem"
)

// A command that only reads the store (runs, replay, memory, doctor) cannot
// read it while a review writes it: Badger keeps what the review has not
// yet flushed in that process, and the store is locked for it alone. So a
// reader does not wait for the review to end unless REVIEW_LOCK_WAIT asks
// it to: it says at once that a review holds the store, and which process.

// readerEnv is getenv for a command that reads the store: REVIEW_LOCK_WAIT
// unset means no wait.
func readerEnv(getenv func(string) string) func(string) string {
	return func(k string) string {
		if k == "REVIEW_LOCK_WAIT" && strings.TrimSpace(getenv(k)) == "" {
			return "0"
		}
		return getenv(k)
	}
}

// heldError is a store a reading command found held by a review.
type heldError struct {
	*toolmem.LockedError
	pid int // the process holding it; 0 if not known
}

func (e *heldError) Error() string {
	var about []string
	if e.pid > 0 {
		about = append(about, fmt.Sprintf("process %d", e.pid))
	}
	if e.Waited > 0 {
		about = append(about, "waited "+e.Waited.String())
	}
	s := fmt.Sprintf("tool memory at %s is in use by a review running now", e.Dir)
	if len(about) > 0 {
		s += " (" + strings.Join(about, ", ") + ")"
	}
	return s
}

func (e *heldError) Unwrap() error { return e.LockedError }

// held names the holder of a store a reader found locked; other errors
// pass as they are.
func held(err error) error {
	var le *toolmem.LockedError
	if !errors.As(err, &le) {
		return err
	}
	return &heldError{LockedError: le, pid: lockHolder(le.Dir)}
}

// heldAdvice is what to do about a heldError.
const heldAdvice = "'review runs', 'replay', 'memory' and 'doctor' read it once that review ends; wait for it, set REVIEW_LOCK_WAIT (e.g. 5m) to wait here, or use --store DIR"
