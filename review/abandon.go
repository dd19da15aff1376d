package review

import (
	"time"

	"github.com/reviewdev/review/toolmem"
)

// abandonedError is recorded on a run whose process ended mid-run.
const abandonedError = "the review process ended before the run finished (killed or crashed); its recorded steps are intact"

// CloseAbandoned marks as interrupted every run still recorded as running.
// Only one process uses a store at a time, so when a store has just been
// opened, a running run belongs to a process that was killed or crashed.
// It returns how many runs it closed.
func CloseAbandoned(st *toolmem.Store, now time.Time) (int, error) {
	runs, err := st.Running()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range runs {
		if r.Status != StatusRunning {
			continue
		}
		if err := st.PutRun(abandoned(st, r, now)); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// abandoned returns a running run as CloseAbandoned records it:
// interrupted, ended when its last step did.
func abandoned(st *toolmem.Store, r toolmem.Run, now time.Time) toolmem.Run {
	r.Status, r.Error, r.Ended = StatusInterrupted, abandonedError, now
	if steps, err := st.Steps(r.ID); err == nil && len(steps) > 0 {
		last := steps[len(steps)-1]
		r.Ended = last.Started
		if !last.Ended.IsZero() {
			r.Ended = last.Ended
		}
	}
	return r
}

// Runs returns the runs of st, oldest first. A store opened read-only is
// not written to, so CloseAbandoned has not run on it; but no review is
// writing to it either (a reader shares the store only with readers), so
// a run still recorded as running is shown as CloseAbandoned will record it.
func Runs(st *toolmem.Store, now time.Time) ([]toolmem.Run, error) {
	runs, err := st.Runs()
	if err != nil {
		return nil, err
	}
	if st.ReadOnly() {
		for i, r := range runs {
			if r.Status == StatusRunning {
				runs[i] = abandoned(st, r, now)
			}
		}
	}
	return runs, nil
}
