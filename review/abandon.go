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
	runs, err := st.Runs()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range runs {
		if r.Status != StatusRunning {
			continue
		}
		r.Status, r.Error, r.Ended = StatusInterrupted, abandonedError, now
		if steps, err := st.Steps(r.ID); err == nil && len(steps) > 0 {
			last := steps[len(steps)-1]
			r.Ended = last.Started
			if !last.Ended.IsZero() {
				r.Ended = last.Ended
			}
		}
		if err := st.PutRun(r); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
