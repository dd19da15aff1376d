package cmd

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/review"
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

	Model         string
	BaseURL       string
	Store         string
	OffDiff       string
	Tokenizer     string
	ContextWindow int
	AnswerReserve int
	StaticShare   float64
	PreviewChars  int
	MaxSteps      int
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
  review --base origin/main --format json --output review.json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			if opts.Base == "" {
				return usageErrorf("--base is required: name the branch or commit to review against, e.g. --base main")
			}
			if runF != nil {
				return runF(opts)
			}
			return runReview(c, opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Base, "base", "", "branch or commit to review against; the diff starts at its merge base with --head")
	fl.StringVar(&opts.Head, "head", "HEAD", "commit to review")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print the messages the first request would carry, with token counts, and call no model")
	fl.StringVar(&opts.Format, "format", "", "output format: markdown or json (default markdown)")
	fl.StringVarP(&opts.Output, "output", "o", "", "write the output to this file instead of standard output")
	fl.StringVar(&opts.Model, "model", "", "model name (default $REVIEW_MODEL or "+DefaultModel+")")
	fl.StringVar(&opts.BaseURL, "base-url", "", "OpenAI-compatible endpoint, including /v1 for Ollama, vLLM or llama.cpp (default $OPENAI_BASE_URL or https://api.openai.com/v1)")
	fl.StringVar(&opts.Store, "store", "", "tool memory directory (default $REVIEW_STORE or <git dir>/review)")
	fl.StringVar(&opts.OffDiff, "off-diff", "file", "findings on lines the change did not touch: file (keep them at file level) or drop (record why)")
	fl.StringVar(&opts.Tokenizer, "tokenizer", conversation.Tiktoken, "token counting: tiktoken (exact, offline) or estimate")
	fl.IntVar(&opts.ContextWindow, "context-window", 0, "model context window in tokens (default: known per model, else 128000)")
	fl.IntVar(&opts.AnswerReserve, "answer-reserve", 0, "tokens kept free for the model's answer (default: 8192, at most a quarter of the window)")
	fl.Float64Var(&opts.StaticShare, "static-share", 0, "share of the input budget for the static diff context (default 0.5)")
	fl.IntVar(&opts.PreviewChars, "preview-chars", 0, "characters of a tool output shown to the model before it must page (default 2000)")
	fl.IntVar(&opts.MaxSteps, "max-steps", 0, "model requests per tool loop before the final review is asked for (default 20)")
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"markdown", "json"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("tokenizer", cobra.FixedCompletions([]string{"tiktoken", "estimate"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// model resolves the model name: flag, then environment, then default.
func (o *ReviewOptions) model() string {
	if o.Model != "" {
		return o.Model
	}
	if m := o.Getenv("REVIEW_MODEL"); m != "" {
		return m
	}
	return DefaultModel
}

// budget resolves the budget from the model's defaults and the flags.
func (o *ReviewOptions) budget() conversation.Budget {
	b := conversation.DefaultBudget(o.model())
	if o.ContextWindow > 0 {
		b.ContextWindow = o.ContextWindow
		b.AnswerReserve = conversation.DefaultReserve(b.ContextWindow)
	}
	if o.AnswerReserve > 0 {
		b.AnswerReserve = o.AnswerReserve
	}
	if o.StaticShare > 0 {
		b.StaticShare = o.StaticShare
	}
	if o.PreviewChars > 0 {
		b.PreviewChars = o.PreviewChars
	}
	if o.MaxSteps > 0 {
		b.MaxSteps = o.MaxSteps
	}
	return b
}

func runReview(c *cobra.Command, opts *ReviewOptions) error {
	format := opts.Format
	if format == "" {
		format = "markdown"
	}
	if format != "markdown" && format != "json" {
		return usageErrorf("unknown --format %q: use markdown or json", opts.Format)
	}
	b := opts.budget()
	if err := b.Validate(); err != nil {
		return &UsageError{Err: err}
	}
	if opts.OffDiff != string(review.KeepFileLevel) && opts.OffDiff != string(review.DropOffDiff) {
		return usageErrorf("unknown --off-diff %q: use file or drop", opts.OffDiff)
	}
	if opts.Tokenizer != conversation.Tiktoken && opts.Tokenizer != conversation.Estimate {
		return usageErrorf("unknown --tokenizer %q: use tiktoken or estimate", opts.Tokenizer)
	}
	plan, err := review.Prepare(c.Context(), review.Options{
		Dir: opts.Dir, Base: opts.Base, Head: opts.Head,
		Model: opts.model(), Tokenizer: opts.Tokenizer, Budget: b,
	})
	if err != nil {
		return err
	}
	if len(plan.Diff.Files) == 0 {
		fmt.Fprintf(opts.IO.ErrOut, "review: nothing to review: %s and %s have no differences since their merge base\n", opts.Base, opts.Head)
		return nil
	}
	if !opts.DryRun {
		return runAgent(c.Context(), opts, plan, format)
	}
	return writeOutput(opts.IO, opts.Output, func(w io.Writer) error {
		if format == "json" {
			return writeJSON(w, plan.DryRun(opts.model()))
		}
		return plan.WriteDryRun(w, opts.model())
	})
}

// baseURL resolves the endpoint: flag, then environment, then OpenAI.
func (o *ReviewOptions) baseURL() string {
	if o.BaseURL != "" {
		return o.BaseURL
	}
	if u := o.Getenv("OPENAI_BASE_URL"); u != "" {
		return u
	}
	return review.DefaultBaseURL
}

// runAgent runs the review against the model and writes the findings.
func runAgent(ctx context.Context, opts *ReviewOptions, plan *review.Plan, format string) error {
	st, err := openStore(opts.Store, opts.Getenv, plan.Diff.Root)
	if err != nil {
		return err
	}
	defer st.Close()
	prog := newProgress(opts.IO)
	client := review.NewClient(review.ClientConfig{
		BaseURL: opts.baseURL(),
		APIKey:  opts.Getenv("OPENAI_API_KEY"),
		OnRetry: prog.retry,
	})
	agent := &review.Agent{
		Model:     client,
		ModelName: opts.model(),
		Store:     st,
		Tools:     tools.New(tools.Env{Root: plan.Diff.Root, Head: plan.Diff.HeadSHA, Base: plan.Diff.MergeBase, Store: st}),
		Counter:   plan.Counter,
		Budget:    plan.Budget,
		OffDiff:   review.OffDiff(opts.OffDiff),
		Progress:  prog.step,
	}
	sess, err := agent.Start(plan, review.Settings{BaseURL: opts.baseURL(), Tokenizer: opts.Tokenizer, Budget: plan.Budget, OffDiff: agent.OffDiff})
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "review: run %s · %d files · model %s\n", sess.Run.ID, len(plan.Diff.Files), agent.ModelName)
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
