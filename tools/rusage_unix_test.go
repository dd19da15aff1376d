//go:build unix

package tools

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time used so far by this process and its reaped
// children (git), user and system: a figure that, unlike wall time, does
// not depend on what else the machine is running.
func cpuTime() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return total
}
