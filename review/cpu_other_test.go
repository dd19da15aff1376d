//go:build !unix

package review

import "time"

var cpuStart = time.Now()

// processCPU stands in with wall time where the process's CPU time is not
// read.
func processCPU() time.Duration { return time.Since(cpuStart) }
