package cmd

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/record"
	"github.com/reviewdev/review/review/report"
	"github.com/reviewdev/review/toolmem"
)

// RunsOptions are the settings of `review runs`.
type RunsOptions struct {
	IO     *IOStreams
	Getenv func(string) string
	Dir    string
	Store  string
	JSON   bool
	// All lists the runs of review tool calls too.
	All bool
}

// NewCmdRuns builds `review runs`.
func NewCmdRuns(f *Factory, runF func(*RunsOptions) error) *cobra.Command {
	opts := &RunsOptions{IO: f.IO, Getenv: f.Getenv, Dir: f.Dir}
	c := &cobra.Command{
		Use:   "runs",
		Short: "List recorded runs, oldest first",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runRuns(opts)
		},
	}
	addStoreFlag(c.Flags(), &opts.Store)
	c.Flags().BoolVar(&opts.JSON, "json", false, "print the run records as JSON")
	c.Flags().BoolVar(&opts.All, "all", false, "list the runs that only hold outputs of review tool calls too")
	return c
}

func runRuns(opts *RunsOptions) error {
	st, err := readStore(opts.Store, opts.Getenv, opts.Dir, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	defer st.Close()
	runs, err := record.Runs(st, time.Now())
	if err != nil {
		return err
	}
	// A review tool call from the shell stores its output under a run of
	// its own, which is no review: listed only when asked for.
	hidden := 0
	if !opts.All {
		runs = slices.DeleteFunc(runs, func(r toolmem.Run) bool {
			if r.Model == toolRunModel {
				hidden++
				return true
			}
			return false
		})
	}
	if opts.JSON {
		return report.WriteJSON(opts.IO.Out, runs)
	}
	if len(runs) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "no runs recorded yet"+hiddenNote(hidden))
		return nil
	}
	if hidden > 0 {
		defer fmt.Fprintln(opts.IO.Info(), strings.TrimPrefix(hiddenNote(hidden), "; "))
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTARTED\tSTATUS\tFINDINGS\tCOST\tMODEL\tBASE..HEAD\tCONTEXT")
	for _, r := range runs {
		revs := r.Head
		if r.Base != "" {
			revs = r.Base + ".." + r.Head
		}
		findings, cost := "-", "-"
		if o, ok := review.OutcomeOf(r); ok {
			findings = strconv.Itoa(o.Findings)
		}
		if c, ok := review.RunCost(r); ok {
			cost = llm.FormatUSD(c)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Started.Local().Format("2006-01-02 15:04"), runStatus(r),
			findings, cost, r.Model, revs, contextCell(record.RunEfficiency(st, r)))
	}
	return tw.Flush()
}

// runStatus is a run's status as a person reads it: a review that ended
// without the model submitting it (exit 5) is incomplete, not complete.
func runStatus(r toolmem.Run) string {
	if o, ok := review.OutcomeOf(r); ok && r.Status == toolmem.StatusComplete && !o.Submitted {
		return "incomplete"
	}
	return r.Status
}

// hiddenNote says how many runs of review tool calls the listing left out.
func hiddenNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; %s of review tool calls not listed: --all lists them", text.Plural(n, "run"))
}

// contextCell is a run's context efficiency in a column: the tokens it
// sent, of what a naive transcript would have sent, and the ratio; a
// tilde marks estimates.
func contextCell(e *record.Efficiency) string {
	if e == nil {
		return "-"
	}
	about := ""
	if e.Estimated {
		about = "~"
	}
	return fmt.Sprintf("%s%s of %s%s (%.2f)", about, humanize.Comma(int64(e.Sent)), about, humanize.Comma(int64(e.Naive)), e.Ratio)
}
