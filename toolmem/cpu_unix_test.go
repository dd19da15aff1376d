//go:build unix

package toolmem

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"syscall"
	"time"
)

// usage is the CPU time (user and system) the process has used so far,
// with its minor and major page faults.
func usage() (time.Duration, int64) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), ru.Minflt + ru.Majflt
}

// smallReviewChild is BenchmarkSmallReview's child: it creates a store in
// dir (with footprintOptions' options named by TOOLMEM_TEST_OPTIONS, the
// store's own if unset), writes smallReview to it and closes it, and prints what that took
// as JSON: wall and CPU time in microseconds, page faults, and how much
// the process's peak RSS grew, in KiB.
func smallReviewChild(dir string) error {
	peak0, err := peakKB()
	if err != nil {
		return err
	}
	start := time.Now()
	cpu0, faults0 := usage()
	bopts, ok := footprintOptions[cmp.Or(os.Getenv("TOOLMEM_TEST_OPTIONS"), "small")]
	if !ok {
		return fmt.Errorf("unknown options %q", os.Getenv("TOOLMEM_TEST_OPTIONS"))
	}
	s, err := open(dir, Options{}, bopts)
	if err != nil {
		return err
	}
	if err := smallReview(s, "run"); err != nil {
		return err
	}
	if err := s.Close(); err != nil {
		return err
	}
	cpu, faults := usage()
	wall := time.Since(start)
	peak, err := peakKB()
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]int64{
		"wall_us": wall.Microseconds(), "cpu_us": (cpu - cpu0).Microseconds(),
		"faults": faults - faults0, "rss_kb": peak - peak0,
	})
}
