//go:build unix

package review

import (
	"syscall"
	"time"
)

// processCPU is the user and system CPU time this process has spent.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
