package cmd

import (
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reviewdev/review/review/record"
	"github.com/reviewdev/review/review/report"
)

// ReplayOptions are the settings of `review replay`.
type ReplayOptions struct {
	IO     *IOStreams
	Getenv func(string) string
	Dir    string

	RunID string
	Step  int
	JSON  bool
	Store string
	// Egress shows where the run sent what instead of its steps.
	Egress bool
	// Format is text, json or html; HTML, if set, is the file the page
	// is written to.
	Format string
	HTML   string
	Output string
}

// NewCmdReplay builds `review replay <run-id>`.
func NewCmdReplay(f *Factory, runF func(*ReplayOptions) error) *cobra.Command {
	opts := &ReplayOptions{IO: f.IO, Getenv: f.Getenv, Dir: f.Dir}
	c := &cobra.Command{
		Use:   "replay <run-id>",
		Short: "Show exactly what the model saw in a recorded run, step by step",
		Long: `replay reads a recorded run from tool memory and shows each model request as
it was sent: every message with its role, context layer, size and token count,
tool previews and their refs, prune events in place, and the model's response.
--json prints the run and each request body exactly as the endpoint received it.
--html FILE writes the run as one self-contained page (--html alone, to
standard output): a chart of every
request's tokens by layer, each step's messages, response and stored
outputs, where the run sent what, and search across the run. It loads
nothing and runs no text of the run as markup.
--egress lists every destination the run contacted (host, path, requests,
bytes of the bodies each way) and the redactions what it sent carried, by
rule and count, never the value; with --json, as JSON.`,
		Example: `  review replay 20261122-153012-k3f9
  review replay 20261122-153012 --step 3
  review replay 20261122-153012-k3f9 --json
  review replay 20261122-153012-k3f9 --html replay.html
  review replay 20261122-153012-k3f9 --html > replay.html
  review replay 20261122-153012-k3f9 --egress`,
		Args:              usageArgs(cobra.RangeArgs(1, 2)),
		ValidArgsFunction: completeRunIDs(f),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := opts.runAndPage(args); err != nil {
				return err
			}
			if opts.Step < 0 {
				return usageErrorf("--step must be a step number from 1")
			}
			switch opts.Format {
			case "", "text", "json", "html":
			default:
				return usageErrorf("unknown replay format %q: use text, json or html", opts.Format)
			}
			if opts.JSON {
				if opts.Format != "" && opts.Format != "json" {
					return usageErrorf("--json and --format %s ask for different outputs: give one", opts.Format)
				}
				opts.Format = "json"
			}
			if opts.HTML != "" {
				if opts.Format != "" && opts.Format != "html" {
					return usageErrorf("--html writes the page; --format %s asks for another output: give one", opts.Format)
				}
				if opts.HTML != "-" {
					if opts.Output != "" {
						return usageErrorf("--html FILE and --output FILE both name the file: give one")
					}
					opts.Output = opts.HTML
				}
				opts.Format = "html"
			}
			if opts.Format == "" {
				opts.Format = "text"
			}
			if opts.Step > 0 && opts.Format != "text" {
				return usageErrorf("--step shows one step as text; the %s output holds every step", opts.Format)
			}
			if opts.Egress && opts.Step > 0 {
				return usageErrorf("--egress and --step ask for different views: give one")
			}
			if opts.Egress && opts.Format == "html" {
				return usageErrorf("--egress is text or JSON; the HTML page has a section of its own for it")
			}
			if runF != nil {
				return runF(opts)
			}
			return runReplay(opts)
		},
	}
	c.Flags().IntVar(&opts.Step, "step", 0, "show one step in full: every message whole and the response")
	c.Flags().BoolVar(&opts.JSON, "json", false, `print {"run": ..., "steps": [{"request": <body as sent>, "response": ..., "events": [...]}]}`)
	c.Flags().StringVar(&opts.Format, "format", "", "text (default), json (as --json) or html (as --html)")
	c.Flags().BoolVar(&opts.Egress, "egress", false, "list where the run sent what: each host and path, requests, bytes, and the redactions applied")
	c.Flags().StringVar(&opts.HTML, "html", "", "write the run as one self-contained HTML page to FILE; --html alone writes it to standard output")
	c.Flags().Lookup("html").NoOptDefVal = "-"
	c.Flags().StringVarP(&opts.Output, "output", "o", "", "write to FILE instead of standard output")
	c.Flags().StringVar(&opts.Store, "store", "", "tool memory directory (default $REVIEW_STORE or <git dir>/review)")
	return c
}

// runAndPage reads the run ID, and the page's file of --html FILE: --html
// may stand alone (the page goes to standard output), so pflag leaves the
// FILE after it among the arguments. A run ID has no "." or "/" in it; a
// page's file name, given so, must.
func (o *ReplayOptions) runAndPage(args []string) error {
	o.RunID = args[0]
	if len(args) == 1 {
		return nil
	}
	isFile := func(a string) bool { return strings.ContainsAny(a, "./") }
	if o.HTML != "-" || isFile(args[0]) == isFile(args[1]) {
		return usageErrorf("replay takes one run ID, got %q and %q", args[0], args[1])
	}
	o.RunID, o.HTML = args[0], args[1]
	if isFile(args[0]) {
		o.RunID, o.HTML = args[1], args[0]
	}
	return nil
}

func runReplay(opts *ReplayOptions) error {
	st, err := readStore(opts.Store, opts.Getenv, opts.Dir, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	defer st.Close()
	id, err := resolveRunID(st, opts.RunID)
	if err != nil {
		return err
	}
	r, err := record.Load(st, id)
	if err != nil {
		return err
	}
	if opts.Egress {
		write := report.WriteEgress
		if opts.Format == "json" {
			write = report.WriteEgressJSON
		}
		return writeOutput(opts.IO, opts.Output, func(w io.Writer) error { return write(w, r) })
	}
	counter, err := record.RunCounter(r.Run)
	if err != nil {
		return err
	}
	switch opts.Format {
	case "json":
		return writeOutput(opts.IO, opts.Output, func(w io.Writer) error {
			return report.WriteReplayJSON(w, r, record.Figures(st, r, counter).Efficiency)
		})
	case "html":
		outs, err := record.Outputs(st, r.Run.ID, report.HTMLInline, report.HTMLWhole, report.HTMLWholeTotal)
		if err != nil {
			return err
		}
		return writeOutput(opts.IO, opts.Output, func(w io.Writer) error {
			return report.WriteHTML(w, report.HTMLReplay{Replay: r, Figures: record.Figures(st, r, counter), Outputs: outs, Counter: counter})
		})
	}
	figs := record.Figures(st, r, counter)
	if opts.Output != "" {
		return writeOutput(opts.IO, opts.Output, func(w io.Writer) error { return report.WriteReplay(w, r, counter, figs, opts.Step) })
	}
	return report.WriteReplay(opts.IO.Out, r, counter, figs, opts.Step)
}
