package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/reviewdev/review/internal/mdterm"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/report"
)

// writeOutput writes to path, or to standard output when path is empty. A
// file is written beside its destination and renamed into place, so a
// failure never leaves a half-written report where CI expects a whole one;
// a path that is no regular file (/dev/stdout, a named pipe) is written in
// place, never replaced. Standard output is written unfiltered: every
// format of review/report makes its own output safe to print, and the
// github format's workflow commands must reach the runner as they are. A
// write that fails (a full disk, a closed pipe) is an error, whichever
// writer the format used.
func writeOutput(s *IOStreams, path string, write func(io.Writer) error) error {
	if path == "" || path == "-" {
		if err := writeChecked(s.rawOut(), write); err != nil {
			return fmt.Errorf("cannot write to standard output: %w", err)
		}
		return nil
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return fmt.Errorf("cannot write %s: it is a directory", path)
		}
		return writeInPlace(path, write)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := writeChecked(tmp, write); err != nil {
		tmp.Close()
		return fmt.Errorf("cannot write %s: %w", path, err)
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

// watchOut makes every write to the process's standard output go through
// one checkedWriter, which it returns: a command whose output could not
// be written (a full disk, a closed file) must not exit 0, whichever
// writer printed it.
func watchOut(s *IOStreams) *checkedWriter {
	cw := &checkedWriter{w: s.RawOut}
	s.RawOut = cw
	s.Out = text.NewWriter(cw)
	return cw
}

// outFailed turns the exit code of a command whose standard output failed
// (see watchOut) into ExitError, saying so, unless it failed already.
func outFailed(cw *checkedWriter, code int, errOut io.Writer) int {
	if cw.err == nil || code != ExitOK {
		return code
	}
	fmt.Fprintf(errOut, "review: cannot write to standard output: %v\n", cw.err)
	return ExitError
}

// writeInPlace writes to a path that is not a regular file.
func writeInPlace(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := writeChecked(f, write); err != nil {
		f.Close()
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}

// writeChecked runs write on w and returns the first error of a write to
// w, should write not: formats that print with fmt.Fprintf drop them.
func writeChecked(w io.Writer, write func(io.Writer) error) error {
	cw := &checkedWriter{w: w}
	if err := write(cw); err != nil {
		return err
	}
	return cw.err
}

// checkedWriter keeps the first error of its writes, and writes nothing
// after it.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	c.err = err
	return n, err
}

// checkOutputs refuses, before a review starts, outputs it could not write
// after the model ran: two outputs to one file or both to standard output
// (a usage error), and a file whose directory is missing or not writable.
// The check writes an empty file beside each destination and removes it,
// as the output itself will be written, so a read-only file system or a
// full quota is found too.
func checkOutputs(outs []output) error {
	seen := map[string]string{}
	for _, o := range outs {
		key, shown := "-", "standard output"
		if o.path != "" && o.path != "-" {
			abs, err := filepath.Abs(o.path)
			if err != nil {
				return fmt.Errorf("cannot write %s: %w", o.path, err)
			}
			key, shown = abs, o.path
		}
		if prev, ok := seen[key]; ok {
			return usageErrorf("the %s and %s outputs both go to %s: give each output its own file", prev, o.format.Name, shown)
		}
		seen[key] = o.format.Name
		if key == "-" {
			continue
		}
		if err := checkWritable(o.path); err != nil {
			return err
		}
	}
	return nil
}

// checkWritable reports whether a file can be written at path as
// writeOutput writes it.
func checkWritable(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("cannot write %s: it is a directory", path)
	case err == nil && !fi.Mode().IsRegular():
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("cannot write %s: %w", path, err)
		}
		return f.Close()
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("cannot write %s: directory %s does not exist", path, dir)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		// The error names the probe, not the output.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("cannot write %s: directory %s is not writable: %w", path, dir, err)
	}
	tmp.Close()
	return os.Remove(tmp.Name())
}

// lookupFormat finds the format of k called name; "" is k's default. An
// unknown name, or one that does not write k, is a usage error that lists
// the names that would do.
func lookupFormat(name string, k report.Kind) (report.Format, error) {
	f, ok := report.Lookup(name, k)
	if ok {
		return f, nil
	}
	if k != report.Result {
		if _, ok := report.Lookup(name, report.Result); ok {
			// A format of reviews only: say what this output can be.
			what := map[report.Kind]string{report.DryRun: "a dry run (--dry-run) writes", report.Answer: "an answer (review ask) is written in"}[k]
			return f, usageErrorf("format %q is for a review's findings; %s %s", name, what, text.JoinOr(report.Names(k)))
		}
	}
	return f, usageErrorf("unknown format %q: use %s", name, text.JoinOr(report.Names(k)))
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
