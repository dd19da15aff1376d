package cmd

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/reviewdev/review/toolmem"
)

// MemoryOptions are the settings of `review memory`.
type MemoryOptions struct {
	IO     *IOStreams
	Getenv func(string) string
	Dir    string
	Store  string

	Ref       string
	StartLine int
	Lines     int
	Grep      string
	Run       string
}

// NewCmdMemory builds `review memory` and its subcommands.
func NewCmdMemory(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "memory",
		Short: "Inspect tool outputs stored in tool memory",
		Args:  usageArgs(cobra.NoArgs),
	}
	c.AddCommand(NewCmdMemoryShow(f), NewCmdMemoryList(f))
	return c
}

// NewCmdMemoryShow builds `review memory show <ref>`.
func NewCmdMemoryShow(f *Factory) *cobra.Command {
	opts := &MemoryOptions{IO: f.IO, Getenv: f.Getenv, Dir: f.Dir}
	c := &cobra.Command{
		Use:   "show <ref>",
		Short: "Print a stored tool output: whole (byte-exact), a range of its lines, or grep matches",
		Long: `show prints a stored tool output byte for byte: whole, or the lines
--start-line and --lines choose (as stored: an output that numbers its lines,
such as a file read, keeps its own numbers, and no other is added; standard
error says which lines of how many were printed), or, with --grep, the lines
that match, each after its line number in the output, to page to with
--start-line.`,
		Example: `  review memory show k3f9a2c01b
  review memory show k3f9a2c01b --start-line 41 --lines 80
  review memory show k3f9a2c01b --grep 'panic|FAIL'`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Ref = args[0]
			paging := c.Flags().Changed("start-line") || c.Flags().Changed("lines")
			if paging && opts.Grep != "" {
				return usageErrorf("--grep cannot be combined with --start-line/--lines: choose one")
			}
			if paging && (opts.StartLine < 1 || (opts.Lines < 1 && c.Flags().Changed("lines"))) {
				return usageErrorf("--start-line and --lines must be at least 1")
			}
			if opts.Grep != "" {
				if _, err := regexp.Compile(opts.Grep); err != nil {
					return usageErrorf("invalid --grep %q: %s (use Go RE2 syntax: no lookaround or backreferences)",
						opts.Grep, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
				}
			}
			return runMemoryShow(opts, paging)
		},
	}
	// Without --start-line, --lines or --grep the output is printed whole;
	// with one of the two, the other leaves its side of the range open.
	c.Flags().IntVar(&opts.StartLine, "start-line", 1, "print the output's lines from this one (1-based)")
	c.Flags().IntVar(&opts.Lines, "lines", 0, "print at most this many of the output's lines (default: to the end)")
	c.Flags().StringVar(&opts.Grep, "grep", "", "print the lines matching this regular expression (RE2), each after its line number")
	addStoreFlag(c.Flags(), &opts.Store)
	return c
}

func runMemoryShow(opts *MemoryOptions, paging bool) error {
	st, err := readStore(opts.Store, opts.Getenv, opts.Dir, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	defer st.Close()
	switch {
	case opts.Grep != "":
		return showGrep(opts, st)
	case paging:
		return showLines(opts, st)
	}
	data, err := st.Get(opts.Ref)
	if err != nil {
		return err
	}
	_, err = opts.IO.ExactOut().Write(data)
	return err
}

// showLines prints the lines --start-line and --lines choose, as stored,
// and says on stderr which they were: an output that numbers its own lines
// (a file read) would read "2: 1: ..." with a number of the page added.
func showLines(opts *MemoryOptions, st *toolmem.Store) error {
	data, err := st.Get(opts.Ref)
	if err != nil {
		return err
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1] // the final newline ends a line, it starts none
	}
	total := len(lines)
	switch {
	case total == 0:
		fmt.Fprintf(opts.IO.ErrOut, "output %s is empty\n", opts.Ref)
		return nil
	case opts.StartLine > total:
		return fmt.Errorf("output %s has %d lines: give --start-line %d or less", opts.Ref, total, total)
	}
	end := total
	if opts.Lines > 0 {
		end = min(total, opts.StartLine+opts.Lines-1)
	}
	if _, err := opts.IO.ExactOut().Write(bytes.Join(lines[opts.StartLine-1:end], nil)); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Info(), "lines %d-%d of %d\n", opts.StartLine, end, total)
	return nil
}

// showGrep prints the numbered lines that match --grep, and says on stderr
// what it left out.
func showGrep(opts *MemoryOptions, st *toolmem.Store) error {
	g, err := st.Grep(opts.Ref, opts.Grep, toolmem.MaxGrepMatches, 0)
	if err != nil {
		return err
	}
	if g.Matches == 0 {
		fmt.Fprintf(opts.IO.ErrOut, "no line of output %s (%d lines) matches %q\n", g.Ref, g.Total, g.Pattern)
		return nil
	}
	if _, err := fmt.Fprintln(opts.IO.Out, g.Text); err != nil {
		return err
	}
	if g.Shown < g.Matches {
		fmt.Fprintf(opts.IO.ErrOut, "%d of %d matching lines shown: narrow the pattern, or page with --start-line N --lines N\n", g.Shown, g.Matches)
	}
	return nil
}

// NewCmdMemoryList builds `review memory list`.
func NewCmdMemoryList(f *Factory) *cobra.Command {
	opts := &MemoryOptions{IO: f.IO, Getenv: f.Getenv, Dir: f.Dir}
	c := &cobra.Command{
		Use:   "list",
		Short: "List stored tool outputs, optionally of one run",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			return runMemoryList(opts)
		},
	}
	c.Flags().StringVar(&opts.Run, "run", "", "only the outputs of this run")
	addStoreFlag(c.Flags(), &opts.Store)
	return c
}

func runMemoryList(opts *MemoryOptions) error {
	st, err := readStore(opts.Store, opts.Getenv, opts.Dir, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	defer st.Close()
	run := opts.Run
	if run != "" {
		if run, err = resolveRunID(st, run); err != nil {
			return err
		}
	}
	outs, err := st.List(run)
	if err != nil {
		return err
	}
	if len(outs) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "no stored outputs")
		return nil
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REF\tRUN\tSTEP\tTOOL\tLINES\tBYTES\tARGS")
	for _, o := range outs {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d\t%d\t%s\n", o.Ref, o.Run, o.Step, o.Tool, o.Lines, o.Bytes, clip(o.Args, 60))
	}
	return tw.Flush()
}

// clip shortens s to n runes for a table cell.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
