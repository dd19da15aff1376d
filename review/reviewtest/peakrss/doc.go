// Command peakrss runs a command and reports the peak resident set size
// of the command alone, for the process benchmarks.
//
// A benchmark cannot read a child's peak from its own wait: Linux keeps,
// as the child's peak, the larger of its own and that of the memory it
// was started from, and Go starts a child on the parent's memory (vfork)
// until it execs. A child of `go test` thus never measures below the test
// process, about 27 MB. Started from this small process instead, a
// command's peak is its own unless it stays below this process's few
// megabytes.
//
//	peakrss review --base main --dry-run
//
// runs the command with this process's standard input, output and error,
// and, once it exits, prints "peakrss <KiB> <µs> <µs>" on its own line to
// the file named by $PEAKRSS_OUT (standard error when unset): the peak;
// the command's wall time from just before it is started to its exit,
// which leaves out this process's own start (some milliseconds of a Go
// program's) that a clock around peakrss would add to every command; and
// the CPU time (user and system) of the command and the processes it
// waited for, which other work on the machine changes less than the wall
// time. The exit code is the command's.
package main
