package cmd

import (
	"github.com/spf13/cobra"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/review"
	"github.com/reviewdev/review/review/llm"
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
--json prints the run and each request body exactly as the endpoint received it.`,
		Example: `  review replay 20261122-153012-k3f9
  review replay 20261122-153012 --step 3
  review replay 20261122-153012-k3f9 --json`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(_ *cobra.Command, args []string) error {
			opts.RunID = args[0]
			if opts.Step < 0 {
				return usageErrorf("--step must be a step number from 1")
			}
			if runF != nil {
				return runF(opts)
			}
			return runReplay(opts)
		},
	}
	c.Flags().IntVar(&opts.Step, "step", 0, "show one step in full: every message whole and the response")
	c.Flags().BoolVar(&opts.JSON, "json", false, `print {"run": ..., "steps": [{"request": <body as sent>, "response": ..., "events": [...]}]}`)
	c.Flags().StringVar(&opts.Store, "store", "", "tool memory directory (default $REVIEW_STORE or <git dir>/review)")
	return c
}

func runReplay(opts *ReplayOptions) error {
	st, err := readStore(opts.Store, opts.Getenv, opts.Dir, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	defer st.Close()
	r, err := review.LoadReplay(st, opts.RunID)
	if err != nil {
		return err
	}
	if opts.JSON {
		return report.WriteReplayJSON(opts.IO.Out, r)
	}
	counter, err := conversation.NewCounter(llm.Lookup(r.Run.Model).Encoding, conversation.Tiktoken)
	if err != nil {
		return err
	}
	return report.WriteReplay(opts.IO.Out, r, counter, opts.Step)
}
