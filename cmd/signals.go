package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// stopSignals end a command as Ctrl-C does: its context is cancelled, a
// review in progress is recorded as interrupted and the store is closed,
// and the command exits with ExitInterrupted. SIGHUP comes when the
// terminal or the ssh session goes away, SIGTERM from a CI runner that
// cancels a job; SIGQUIT (Ctrl-\) would otherwise end the process with
// every goroutine's stack on stderr and a store left as a kill leaves it.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// signalContext is the context of a command, cancelled by the first of
// stopSignals. Signals after it change nothing while the command records
// how its run ended and closes the store.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), stopSignals...)
}

// runFailed is the error of a run that was recorded, so that every
// message about how it ended can name it.
type runFailed struct {
	id  string
	err error
}

func (e *runFailed) Error() string { return e.err.Error() }
func (e *runFailed) Unwrap() error { return e.err }

// interruptedLine is what a command stopped by a signal says: the run it
// was making, if one was recorded, and how to see what it did.
func interruptedLine(err error) string {
	var rf *runFailed
	if !errors.As(err, &rf) {
		return "review: interrupted"
	}
	return fmt.Sprintf("review: interrupted: run %s is kept as interrupted; see what it did with: review replay %s", rf.id, rf.id)
}
