package cmd

import (
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams are the standard streams of a command, injected so tests capture
// output and progress is shown only on a terminal.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// OutTTY and ErrTTY report whether Out and ErrOut are terminals.
	OutTTY bool
	ErrTTY bool
}

// System returns the process's streams.
func System() *IOStreams {
	return &IOStreams{
		In:     os.Stdin,
		Out:    os.Stdout,
		ErrOut: os.Stderr,
		OutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		ErrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
}
