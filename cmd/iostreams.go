package cmd

import (
	"io"
	"os"

	"golang.org/x/term"

	"github.com/reviewdev/review/internal/text"
)

// IOStreams are the standard streams of a command, injected so tests capture
// output and progress is shown only on a terminal.
//
// What review prints carries text from the repository, the model and
// configuration files, and both terminals and the GitHub Actions runner act
// on what they read. So Out and ErrOut, as System makes them, pass
// everything through text.Writer: one place neutralises every message,
// table and error. RawOut and RawErrOut are the same streams unfiltered,
// for output made safe where it is written: the report formats (GitHub
// workflow commands must reach the runner as they are), byte-exact copies
// (ExactOut), the progress line's own control sequences.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// RawOut and RawErrOut are Out and ErrOut unfiltered; nil means Out
	// and ErrOut themselves.
	RawOut    io.Writer
	RawErrOut io.Writer
	// OutTTY and ErrTTY report whether Out and ErrOut are terminals.
	OutTTY bool
	ErrTTY bool
	// ActionsLog reports that the streams go to a GitHub Actions job log,
	// which reads every line for workflow commands.
	ActionsLog bool
	// Width returns the width of the terminal, in columns (stderr's, else
	// stdout's); nil or a result below 20 means 80.
	Width func() int
	// Quiet (-q) drops the progress and the informational lines; errors
	// and warnings still print. Verbose (-v) adds detail: a line per model
	// request with its tokens.
	Quiet, Verbose bool
}

// System returns the process's streams.
func System() *IOStreams {
	return &IOStreams{
		In:        os.Stdin,
		Out:       text.NewWriter(os.Stdout),
		ErrOut:    text.NewWriter(os.Stderr),
		RawOut:    os.Stdout,
		RawErrOut: os.Stderr,
		OutTTY:    term.IsTerminal(int(os.Stdout.Fd())),
		ErrTTY:    term.IsTerminal(int(os.Stderr.Fd())),
		Width: func() int {
			for _, f := range []*os.File{os.Stderr, os.Stdout} {
				if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
					return w
				}
			}
			return 0
		},
	}
}

// Info is standard error for informational lines (what a run is, what it
// found nothing to do): nothing with --quiet.
func (s *IOStreams) Info() io.Writer {
	if s.Quiet {
		return io.Discard
	}
	return s.ErrOut
}

// width is the terminal's width in columns, 80 when it is not known.
func (s *IOStreams) width() int {
	if s.Width != nil {
		if w := s.Width(); w >= 20 {
			return w
		}
	}
	return 80
}

// rawOut is standard output unfiltered, after what Out holds of an
// unfinished line, so the two keep their order.
func (s *IOStreams) rawOut() io.Writer {
	if s.RawOut == nil {
		return s.Out
	}
	flush(s.Out)
	return s.RawOut
}

// rawErr is standard error unfiltered, after what ErrOut holds.
func (s *IOStreams) rawErr() io.Writer {
	if s.RawErrOut == nil {
		return s.ErrOut
	}
	flush(s.ErrOut)
	return s.RawErrOut
}

// ExactOut is standard output for bytes a user asked for exactly (memory
// show, tool --full): unfiltered into a file or a pipe, filtered like Out
// on a terminal and in a GitHub Actions log, where the bytes would act.
func (s *IOStreams) ExactOut() io.Writer {
	if s.OutTTY || s.ActionsLog {
		return s.Out
	}
	return s.rawOut()
}

// Flush writes what Out and ErrOut hold of an unfinished last line.
func (s *IOStreams) Flush() {
	flush(s.Out)
	flush(s.ErrOut)
}

func flush(w io.Writer) {
	if f, ok := w.(interface{ Flush() error }); ok {
		_ = f.Flush()
	}
}
