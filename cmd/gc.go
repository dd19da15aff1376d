package cmd

import (
	"fmt"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"github.com/reviewdev/review/toolmem"
)

// GCOptions are the settings of `review gc`.
type GCOptions struct {
	IO        *IOStreams
	Getenv    func(string) string
	Dir       string
	Now       func() time.Time
	Store     string
	OlderThan string
}

// NewCmdGC builds `review gc`.
func NewCmdGC(f *Factory) *cobra.Command {
	opts := &GCOptions{IO: f.IO, Getenv: f.Getenv, Dir: f.Dir, Now: f.Now}
	c := &cobra.Command{
		Use:     "gc",
		Short:   "Drop old runs and their stored outputs, and reclaim the space",
		Example: "  review gc --older-than 30d",
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			return runGC(opts)
		},
	}
	c.Flags().StringVar(&opts.OlderThan, "older-than", "30d", "drop runs started longer ago than this (e.g. 30d, 2w, 12h)")
	addStoreFlag(c.Flags(), &opts.Store)
	return c
}

func runGC(opts *GCOptions) error {
	age, err := parseAge(opts.OlderThan)
	if err != nil {
		return &UsageError{Err: err}
	}
	st, err := openStoreWith(opts.Store, opts.Getenv, opts.Dir, toolmem.Options{Warn: warner(opts.IO.ErrOut)})
	if err != nil {
		return err
	}
	defer st.Close()
	stats, err := st.GC(opts.Now().Add(-age))
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(opts.IO.Out, "dropped %d runs and %d outputs; store %s → %s\n",
		stats.Runs, stats.Outputs, humanize.IBytes(uint64(stats.BytesBefore)), humanize.IBytes(uint64(stats.BytesAfter)))
	return err
}
