package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/reviewdev/review/toolmem"
)

// A command that only reads the store (runs, replay, memory) reads a store
// a review holds through a copy of what the review has written so far
// (see readStore). doctor does not: it checks the store's own files, which
// the review is changing, so it says at once that a review holds the
// store, and which process, and waits for it only if REVIEW_LOCK_WAIT asks
// it to. A reader also reports the review when the review changed the
// store during every copy it took.

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
	// copied says that the command tried to read a copy (a snapshot),
	// which the review kept changing.
	copied bool
}

func (e *heldError) Error() string {
	var about []string
	if e.pid > 0 {
		about = append(about, fmt.Sprintf("process %d", e.pid))
	}
	if e.Waited > 0 && !e.copied {
		about = append(about, "waited "+e.Waited.String())
	}
	s := fmt.Sprintf("tool memory at %s is in use by a review running now", e.Dir)
	if len(about) > 0 {
		s += " (" + strings.Join(about, ", ") + ")"
	}
	if e.copied {
		s += ", which changed it during every copy taken to read it (for " + e.Waited.String() + ")"
	}
	return s
}

func (e *heldError) Unwrap() error { return e.LockedError }

// held names the holder of a store a reader found locked, copied saying
// whether it read copies of it; other errors pass as they are.
func held(err error, copied bool) error {
	var le *toolmem.LockedError
	if !errors.As(err, &le) {
		return err
	}
	return &heldError{LockedError: le, pid: lockHolder(le.Dir), copied: copied}
}

// advice is what to do about a heldError.
func (e *heldError) advice() string {
	if e.copied {
		return "try again, or wait for that review to end"
	}
	return "'review doctor' checks it once that review ends ('runs', 'replay' and 'memory' read it meanwhile); wait for it, set REVIEW_LOCK_WAIT (e.g. 5m) to wait here, or use --store DIR"
}
