package cmd

import (
	"errors"
	"fmt"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/report"
	"github.com/reviewdev/review/toolmem"
)

// DoctorOptions are the settings of `review doctor`.
type DoctorOptions struct {
	IO     *IOStreams
	Getenv func(string) string
	Dir    string
	Store  string
	JSON   bool
}

// NewCmdDoctor builds `review doctor`.
func NewCmdDoctor(f *Factory, runF func(*DoctorOptions) error) *cobra.Command {
	opts := &DoctorOptions{IO: f.IO, Getenv: f.Getenv, Dir: f.Dir}
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Check that tool memory reads back whole: every file and record against its checksum",
		Long: `doctor opens tool memory read-only and checks it: its files before they are
opened (the MANIFEST, every table against its checksums, the logs), then every
record (each value against its checksum, each run, step, output and event
decoded, each stored body against its recorded length). It lists what is
damaged and exits with code 6 if anything is, 0 if nothing is. It changes
nothing in the store.`,
		Example: `  review doctor
  review doctor --store /tmp/old-store --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runDoctor(opts)
		},
	}
	addStoreFlag(c.Flags(), &opts.Store)
	c.Flags().BoolVar(&opts.JSON, "json", false, `print {"store", "records", "runs", "steps", "outputs", "bytes", "problems": [{"record", "problem"}], "recovered"}`)
	return c
}

// errDamagedRecords is the error of a store that opens but holds damaged
// records; doctor has listed them already.
type errDamagedRecords struct {
	dir string
	n   int
}

func (e *errDamagedRecords) Error() string {
	return fmt.Sprintf("tool memory at %s has %s; the rest is readable: move the store aside to start afresh (mv %s %s.damaged), and read it with --store", e.dir, text.Plural(e.n, "damaged record"), e.dir, e.dir)
}

func (e *errDamagedRecords) Unwrap() error { return toolmem.ErrDamaged }

func runDoctor(opts *DoctorOptions) error {
	// Warnings would repeat the problems the report lists.
	st, err := openStoreWith(opts.Store, readerEnv(opts.Getenv), opts.Dir, toolmem.Options{ReadOnly: true})
	err = held(err)
	if err != nil {
		if opts.JSON && errors.Is(err, toolmem.ErrDamaged) {
			// The store cannot be opened: one problem, the store itself.
			d, _ := storeDir(opts.Store, opts.Getenv, opts.Dir)
			if werr := report.WriteJSON(opts.IO.Out, toolmem.Report{Dir: d, Problems: []toolmem.Problem{{Record: "the store", Problem: err.Error()}}}); werr != nil {
				return werr
			}
		}
		return err
	}
	defer st.Close()
	rep, err := st.Verify()
	if err != nil {
		return err
	}
	if opts.JSON {
		if err := report.WriteJSON(opts.IO.Out, rep); err != nil {
			return err
		}
	} else {
		for _, p := range rep.Problems {
			fmt.Fprintf(opts.IO.Out, "damaged: %s: %s\n", p.Record, p.Problem)
		}
		if rep.Recovered {
			fmt.Fprintln(opts.IO.Out, "recovered: the store was left by a review that was killed; its logs were trimmed of unused space, as the next review would have done")
		}
		fmt.Fprintf(opts.IO.Out, "tool memory at %s: %s (%s, %s, %s, %s): %s\n",
			rep.Dir, text.Plural(rep.Records, "record"), text.Plural(rep.Runs, "run"), text.Plural(rep.Steps, "step"),
			text.Plural(rep.Outputs, "output"), humanize.IBytes(uint64(rep.Bytes)), verdict(len(rep.Problems)))
	}
	if len(rep.Problems) > 0 {
		return &errDamagedRecords{dir: rep.Dir, n: len(rep.Problems)}
	}
	return nil
}

func verdict(problems int) string {
	if problems == 0 {
		return "no damage found"
	}
	return fmt.Sprintf("%d damaged", problems)
}
