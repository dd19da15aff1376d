package result

import (
	"strings"
	"testing"
)

func TestState(t *testing.T) {
	r := &Result{Submitted: true, Findings: []Finding{}}
	r.SetState(false, false)
	if r.State != StateComplete {
		t.Errorf("state %q, want complete", r.State)
	}
	s := r.StatusOf(false)
	if s.Failing || !strings.HasPrefix(s.Description, "complete · ") {
		t.Errorf("status %+v", s)
	}
	r.NotReviewed = []NotReviewed{{Reason: ReasonMaxUnits}, {Reason: ReasonMaxUnits}}
	r.FailedUnits = []FailedUnit{{Unit: 2}}
	r.SetState(false, false)
	s = r.StatusOf(true)
	if r.State != StatePartial || !s.Failing || !strings.HasPrefix(s.Description, "partial: 2 files not reviewed, 1 unit failed") {
		t.Errorf("state %q, status %+v", r.State, s)
	}
	r.SetState(true, false)
	if s := r.StatusOf(false); !s.Failing || !strings.HasPrefix(s.Description, "failed") {
		t.Errorf("a failed review's status %+v", s)
	}
	r.SetState(false, true)
	if s := r.StatusOf(false); s.Failing || !strings.HasPrefix(s.Description, "skipped") {
		t.Errorf("a skipped review's status %+v", s)
	}
}
