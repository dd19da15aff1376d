package cmd

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/reviewdev/review/review"
	"github.com/reviewdev/review/review/report"
)

// RunsOptions are the settings of `review runs`.
type RunsOptions struct {
	IO     *IOStreams
	Getenv func(string) string
	Dir    string
	Store  string
	JSON   bool
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
	return c
}

func runRuns(opts *RunsOptions) error {
	st, err := readStore(opts.Store, opts.Getenv, opts.Dir, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	defer st.Close()
	runs, err := review.Runs(st, time.Now())
	if err != nil {
		return err
	}
	if opts.JSON {
		return report.WriteJSON(opts.IO.Out, runs)
	}
	if len(runs) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "no runs recorded yet")
		return nil
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTARTED\tSTATUS\tMODEL\tBASE..HEAD")
	for _, r := range runs {
		revs := r.Head
		if r.Base != "" {
			revs = r.Base + ".." + r.Head
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Started.Local().Format("2006-01-02 15:04"), r.Status, r.Model, revs)
	}
	return tw.Flush()
}
