package cmd

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/reviewdev/review/internal/mdterm"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/report"
)

// writeOutput writes to path, or to standard output when path is empty. A
// file is written beside its destination and renamed into place, so a
// failure never leaves a half-written report where CI expects a whole one.
// Standard output is written unfiltered: every format of review/report
// makes its own output safe to print, and the github format's workflow
// commands must reach the runner as they are.
func writeOutput(s *IOStreams, path string, write func(io.Writer) error) error {
	if path == "" || path == "-" {
		return write(s.rawOut())
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}

// forTerminal renders the Markdown that write writes for the terminal it
// goes to: when it goes to standard output (path "" or "-"), that is a
// terminal, and NO_COLOR is unset (https://no-color.org). Elsewhere, and
// for every other format, write is returned as it is: a pipe or a file
// gets plain Markdown.
func forTerminal(s *IOStreams, getenv func(string) string, path string, f report.Format, write func(io.Writer) error) func(io.Writer) error {
	if (path != "" && path != "-") || f.Name != "markdown" || !s.OutTTY || s.ActionsLog || getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return write
	}
	return func(w io.Writer) error {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			return err
		}
		_, err := io.WriteString(w, mdterm.Render(b.String(), s.width()))
		return err
	}
}

// lookupFormat finds the format of k called name; "" is k's default. An
// unknown name, or one that does not write k, is a usage error that lists
// the names that would do.
func lookupFormat(name string, k report.Kind) (report.Format, error) {
	f, ok := report.Lookup(name, k)
	if !ok {
		return f, usageErrorf("unknown format %q: use %s", name, text.JoinOr(report.Names(k)))
	}
	return f, nil
}

// writeSafe passes what write writes to w through text.Writer.
func writeSafe(w io.Writer, write func(io.Writer) error) error {
	tw := text.NewWriter(w)
	if err := write(tw); err != nil {
		return err
	}
	return tw.Flush()
}

// appendFile appends what write produces to path, creating it if needed.
func appendFile(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
