package result

import (
	"fmt"
	"strings"

	"github.com/reviewdev/review/internal/text"
)

// The states of a review for its head commit, which a script or a branch
// protection rule reads as one value (the commit status's description's
// first word, the JSON's "state").
const (
	// StateComplete: every file of the change was reviewed.
	StateComplete = "complete"
	// StatePartial: units failed or files were not reviewed.
	StatePartial = "partial"
	// StateSkipped: nothing to review, or the head was reviewed before.
	StateSkipped = "skipped"
	// StateFailed: the review failed; what it found without the model, if
	// anything, is all there is.
	StateFailed = "failed"
)

// SetState sets r's State from what it holds: failed when the model run
// failed, skipped when there was nothing to review, partial when units
// failed, files were not reviewed or the model never submitted; else
// complete.
func (r *Result) SetState(failed, skipped bool) {
	switch {
	case failed:
		r.State = StateFailed
	case skipped:
		r.State = StateSkipped
	case len(r.FailedUnits) > 0 || len(r.NotReviewed) > 0 || !r.Submitted:
		r.State = StatePartial
	default:
		r.State = StateComplete
	}
}

// Status is a review's state as a host's commit status shows it.
type Status struct {
	// Failing makes the status a failure: the gate failed (--fail-on,
	// unreviewed included) or the review did.
	Failing bool
	// Description starts with the state, then says why in a few words.
	Description string
	// URL, if set, is where the status links to.
	URL string
}

// StatusOf is r's commit status: its state and counts; failing when the
// gate or the review failed.
func (r *Result) StatusOf(gateFailed bool) Status {
	state := r.State
	if state == "" {
		state = StateComplete
	}
	var why []string
	if n := len(r.NotReviewed); n > 0 {
		why = append(why, text.Plural(n, "file")+" not reviewed")
	}
	if n := len(r.FailedUnits); n > 0 {
		why = append(why, text.Plural(n, "unit")+" failed")
	}
	if !r.Submitted && state == StatePartial {
		why = append(why, "not submitted by the model")
	}
	d := state
	if len(why) > 0 {
		d += ": " + strings.Join(why, ", ")
	}
	d += fmt.Sprintf(" · %s", CountFindings(r.Findings))
	if gateFailed {
		d += fmt.Sprintf(" · fails --fail-on %s", r.failOnName())
	}
	return Status{Failing: gateFailed || state == StateFailed, Description: d}
}

func (r *Result) failOnName() string {
	if r.FailOn == "" {
		return "unreviewed"
	}
	return string(r.FailOn)
}
