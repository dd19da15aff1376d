package cmd

import (
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
		Short: "Print a stored tool output: whole (byte-exact), a range of lines, or grep matches",
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
			if paging && (opts.StartLine < 1 || opts.Lines < 1) {
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
	// the defaults below apply once either paging flag is given, and the
	// help says so rather than showing a default that seems always on.
	c.Flags().IntVar(&opts.StartLine, "start-line", 1, "print numbered lines from this line (1-based; with --lines alone, 1)")
	c.Flags().IntVar(&opts.Lines, "lines", 80, "print this many numbered lines (with --start-line alone, 80); without either flag the output is printed whole")
	c.Flags().StringVar(&opts.Grep, "grep", "", "print the lines matching this regular expression (RE2), numbered")
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

// showLines prints --lines numbered lines from --start-line. toolmem bounds
// each page for a model; a person gets every line asked for, page by page.
func showLines(opts *MemoryOptions, st *toolmem.Store) error {
	start, left := opts.StartLine, opts.Lines
	for left > 0 {
		p, err := st.Page(opts.Ref, start, min(left, toolmem.MaxPageLines), 0)
		if err != nil {
			return err
		}
		if p.End < p.Start {
			fmt.Fprintf(opts.IO.ErrOut, "output %s is empty\n", p.Ref)
			return nil
		}
		if _, err := fmt.Fprintln(opts.IO.Out, p.Text); err != nil {
			return err
		}
		left -= p.End - p.Start + 1
		start = p.End + 1
		if p.End == p.Total {
			break
		}
	}
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
