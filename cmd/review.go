package cmd

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/reviewdev/review/review"
	"github.com/reviewdev/review/toolmem"
	"github.com/reviewdev/review/tools"
)

// DefaultModel is used when neither --model nor REVIEW_MODEL names one.
const DefaultModel = "gpt-4o-mini"

// ReviewOptions are the settings of `review`, the main command.
type ReviewOptions struct {
	IO     *IOStreams
	Getenv func(string) string
	Dir    string

	Base   string
	Head   string
	DryRun bool
	Format string
	Output string
	agentFlags
}

// NewCmdReview builds the root command, which reviews the current branch.
// runF replaces the real run in tests.
func NewCmdReview(f *Factory, runF func(*ReviewOptions) error) *cobra.Command {
	opts := &ReviewOptions{IO: f.IO, Getenv: f.Getenv, Dir: f.Dir}
	c := &cobra.Command{
		Use:   "review --base <ref> [flags]",
		Short: "Review a git branch with an OpenAI-compatible model",
		Long: `review turns the diff between a base and the current branch into a compact
context, lets an OpenAI-compatible model explore the repository through
read-only tools, and writes its findings for people and for CI.

The model endpoint is configured with OPENAI_API_KEY, OPENAI_BASE_URL and
--model (or REVIEW_MODEL). --dry-run prints what the model would be sent
without calling it.`,
		Example: `  review --base main --dry-run
  review --base main
  review --base origin/main --format json --output review.json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			if opts.Base == "" {
				return usageErrorf("--base is required: name the branch or commit to review against, e.g. --base main")
			}
			if runF != nil {
				return runF(opts)
			}
			return runReview(c.Context(), opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Base, "base", "", "branch or commit to review against; the diff starts at its merge base with --head")
	fl.StringVar(&opts.Head, "head", "HEAD", "commit to review")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print the messages the first request would carry, with token counts, and call no model")
	fl.StringVar(&opts.Format, "format", "", "output format: markdown or json (default markdown)")
	fl.StringVarP(&opts.Output, "output", "o", "", "write the output to this file instead of standard output")
	opts.agentFlags.register(fl)
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"markdown", "json"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("tokenizer", cobra.FixedCompletions([]string{"tiktoken", "estimate"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("off-diff", cobra.FixedCompletions([]string{"file", "drop"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

func runReview(ctx context.Context, opts *ReviewOptions) error {
	format, err := checkFormat(opts.Format, "markdown", "json")
	if err != nil {
		return err
	}
	if err := opts.check(); err != nil {
		return err
	}
	model := opts.model(opts.Getenv)
	b, err := opts.budget(model)
	if err != nil {
		return err
	}
	plan, err := review.Prepare(ctx, review.Options{
		Dir: opts.Dir, Base: opts.Base, Head: opts.Head,
		Model: model, Tokenizer: opts.Tokenizer, Budget: b,
	})
	if err != nil {
		return err
	}
	if len(plan.Diff.Files) == 0 {
		fmt.Fprintf(opts.IO.ErrOut, "review: nothing to review: %s has no changes since its merge base with %s\n", opts.Head, opts.Base)
		return nil
	}
	if opts.DryRun {
		return writeOutput(opts.IO, opts.Output, func(w io.Writer) error {
			if format == "json" {
				return writeJSON(w, plan.DryRun(model))
			}
			return plan.WriteDryRun(w, model)
		})
	}
	st, err := openStore(opts.Store, opts.Getenv, plan.Diff.Root)
	if err != nil {
		return err
	}
	defer st.Close()
	prog := newProgress(opts.IO)
	agent := newAgent(opts.Getenv, &opts.agentFlags, model, st, plan, prog)
	sess, err := agent.Start(plan, review.Settings{BaseURL: opts.baseURL(opts.Getenv), Tokenizer: opts.Tokenizer, Budget: plan.Budget, OffDiff: agent.OffDiff})
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "review: run %s · %d files · model %s\n", sess.Run.ID, len(plan.Diff.Files), model)
	res, err := sess.Review(ctx)
	prog.done()
	if err != nil {
		return fmt.Errorf("run %s: %w", sess.Run.ID, err)
	}
	return writeOutput(opts.IO, opts.Output, func(w io.Writer) error {
		if format == "json" {
			return writeJSON(w, res)
		}
		return review.WriteMarkdown(w, res)
	})
}

// newAgent wires the model client, tools and store into an agent for the
// plan's diff.
func newAgent(getenv func(string) string, fl *agentFlags, model string, st *toolmem.Store, plan *review.Plan, prog *progress) *review.Agent {
	client := review.NewClient(review.ClientConfig{
		BaseURL: fl.baseURL(getenv),
		APIKey:  getenv("OPENAI_API_KEY"),
		OnRetry: prog.retry,
	})
	return &review.Agent{
		Model:     client,
		ModelName: model,
		Store:     st,
		Tools:     tools.New(tools.Env{Root: plan.Diff.Root, Head: plan.Diff.HeadSHA, Base: plan.Diff.MergeBase, Store: st}),
		Counter:   plan.Counter,
		Budget:    plan.Budget,
		OffDiff:   review.OffDiff(fl.OffDiff),
		Progress:  prog.step,
	}
}
