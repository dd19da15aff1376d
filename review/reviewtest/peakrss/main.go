package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: peakrss command [args...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(2)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		if err := report(ru.Maxrss, wall, cpu); err != nil { // KiB on Linux
			fmt.Fprintln(os.Stderr, "peakrss:", err)
			os.Exit(2)
		}
	}
	os.Exit(cmd.ProcessState.ExitCode())
}

// report writes the peak, the wall time and the CPU time where
// $PEAKRSS_OUT says.
func report(kib int64, wall, cpu time.Duration) error {
	line := fmt.Sprintf("peakrss %d %d %d\n", kib, wall.Microseconds(), cpu.Microseconds())
	name := os.Getenv("PEAKRSS_OUT")
	if name == "" {
		_, err := io.WriteString(os.Stderr, line)
		return err
	}
	return os.WriteFile(name, []byte(line), 0o644)
}
