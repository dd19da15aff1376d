package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review"
	"github.com/reviewdev/review/review/report"
)

// AskOptions are the settings of `review ask`.
type AskOptions struct {
	IO     *IOStreams
	Getenv func(string) string
	Dir    string

	RunID     string
	Question  string
	Head      string
	Summarize string
	Format    string
	Output    string
	// Post and ReplyTo post the answer in the change's conversation:
	// --post github|gitlab, in the thread or discussion --reply-to names.
	Post    string
	ReplyTo string
	hostFlags
	agentFlags
	// threadNote, when set, is said before the answer in the post, and
	// quote is quoted instead of the question the model was asked: a
	// question in a finding's thread carries the finding (review comment).
	threadNote, quote string
}

// NewCmdAsk builds `review ask`.
func NewCmdAsk(f *Factory, runF func(*AskOptions) error) *cobra.Command {
	opts := &AskOptions{IO: f.IO, Getenv: f.Getenv, Dir: f.Dir}
	c := &cobra.Command{
		Use:   `ask (<run-id> | --base <ref>) "question"`,
		Short: "Ask a follow-up question in a recorded review's conversation",
		Long: `ask adds a turn to a recorded run: same diff context, same tools, same tool
memory. The model answers with a fresh tool loop. Before the loop starts, the
earlier turns are fitted into the history budget (--history-turns,
--history-chars): old tool previews become one-line stubs that keep their ref,
then the oldest turns are dropped into a summary. The current loop is never
pruned. With --base instead of a run ID, a new run starts with the question as
its first turn.`,
		Example: `  review ask 20261122-153012-k3f9 "why is this a race?"
  review ask --base main "what could break for callers of Parse?"`,
		Args:              usageArgs(cobra.RangeArgs(1, 2)),
		ValidArgsFunction: completeRunIDs(f),
		RunE: func(c *cobra.Command, args []string) error {
			switch {
			case len(args) == 2 && opts.Base != "":
				return usageErrorf("give a run ID or --base, not both")
			case len(args) == 2:
				opts.RunID, opts.Question = args[0], args[1]
			case opts.Base == "":
				return usageErrorf(`ask needs a run ID and a question, or --base and a question: review ask <run-id> "question"`)
			default:
				opts.Question = args[0]
			}
			if strings.TrimSpace(opts.Question) == "" {
				return usageErrorf("the question is empty")
			}
			if opts.ReplyTo != "" && opts.Post == "" {
				return usageErrorf("--reply-to needs %s: it names a thread there", postEach())
			}
			if opts.Post != "" && !knownHost(opts.Post) {
				return unknownHost(opts.Post)
			}
			if err := checkReplyTo(opts.Post, opts.ReplyTo); err != nil {
				return err
			}
			if opts.Summarize != "rules" && opts.Summarize != "model" {
				return usageErrorf("unknown --summarize %q: use rules or model", opts.Summarize)
			}
			opts.ci = ciFrom(opts.Getenv)
			if runF != nil {
				return runF(opts)
			}
			return runAsk(c.Context(), opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Base, "base", "", "start a new run against `REF` instead of continuing one")
	fl.StringVar(&opts.Head, "head", "HEAD", "the commit `REV` to review, with --base")
	inGroup(fl, groupChange, "base", "head")
	formats := report.Names(report.Answer)
	fl.StringVar(&opts.Format, "format", "", text.JoinOr(formats)+" (default "+formats[0]+")")
	fl.StringVarP(&opts.Output, "output", "o", "", "write to `FILE` instead of standard output")
	fl.StringVar(&opts.Post, "post", "", "post the answer to `HOST` (review help hosts)")
	fl.StringVar(&opts.ReplyTo, "reply-to", "", "with --post: answer in the thread `ID`")
	inGroup(fl, groupOutputs, "format", "output", "post", "reply-to")
	fl.StringVar(&opts.Summarize, "summarize", "rules", "digest old turns by rules or model")
	inGroup(fl, groupFollowUp, "summarize")
	opts.hostFlags.register(fl)
	opts.agentFlags.register(fl)
	_ = c.RegisterFlagCompletionFunc("post", cobra.FixedCompletions(hostNames(), cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// inheritFlags and inheritNames name, for a question in a recorded run,
// the flag that overrides each setting it would take from the run.
var (
	inheritFlags = map[string]string{"window": "--context-window", "reserve": "--answer-reserve", "model": "--model", "tokenizer": "--tokenizer"}
	inheritNames = map[string]string{"window": "context window", "reserve": "answer reserve", "model": "model", "tokenizer": "tokenizer"}
)

// givenRun says which of a recorded run's settings were given on the
// command line: a question in the run takes the others from it.
func (a *agentFlags) givenRun() review.Given {
	told := func(name string) bool { _, ok := a.given(name); return ok }
	return review.Given{Window: told("context-window"), Reserve: told("answer-reserve"), Model: told("model"), Tokenizer: told("tokenizer")}
}

func runAsk(ctx context.Context, opts *AskOptions) error {
	format, err := lookupFormat(opts.Format, report.Answer)
	if err != nil {
		return err
	}
	if err := checkOutputs([]output{{format: format, path: opts.Output}}); err != nil {
		return err
	}
	// Before the model is called: a post it cannot make would waste
	// the tokens spent on the answer.
	var pt *postTarget
	if opts.Post != "" {
		target := &ReviewOptions{IO: opts.IO, Getenv: opts.Getenv, Post: opts.Post, hostFlags: opts.hostFlags}
		target.ci = opts.ci
		if pt, err = postTargetFrom(target); err != nil {
			return err
		}
	}
	set, err := opts.resolve(opts.Getenv, opts.Dir)
	if err != nil {
		return err
	}
	if opts.RunID != "" {
		if opts.RunID, err = lookupRunID(set.Store, opts.Getenv, opts.Dir, opts.IO.ErrOut, opts.RunID); err != nil {
			return err
		}
	}
	ctx, cancel := withDeadline(ctx, set.Deadline)
	defer cancel()
	job := review.Job{
		Options: prepareOptions(set, &opts.agentFlags, opts.Dir, opts.Head),
		RunID:   opts.RunID,
		Ask:     review.AskOptions{SummarizeWithModel: opts.Summarize == "model"},
		Given:   opts.agentFlags.givenRun(),
	}
	job.Question = opts.Question
	env, prog, done := runEnv(opts.IO, opts.Getenv, opts.ci, set, opts.Dir, false)
	defer done()
	env.Inherited = func(inh review.Inherited) {
		for _, o := range inh.Overrides {
			fmt.Fprintf(opts.IO.ErrOut, "review: %s %s overrides the %s run %s was made with (%s)\n",
				inheritFlags[o.Setting], o.Now, inheritNames[o.Setting], inh.RunID, o.Run)
		}
	}
	env.Started = func(s *review.Session, plan *review.Plan) {
		prog.begin(s.Usage)
		if plan != nil {
			fmt.Fprintf(opts.IO.Info(), "review: run %s · model %s\n", s.Run.ID, s.Model)
			return
		}
		fmt.Fprintf(opts.IO.Info(), "review: run %s · turn %d · model %s · %s-token window, %s for the answer\n",
			s.Run.ID, s.History.Turns()+1, s.Model, text.Number(s.Budget.ContextWindow), text.Number(s.Budget.AnswerReserve))
	}
	out, err := review.Run(ctx, job, env)
	prog.done()
	if err != nil && (out == nil || out.Session == nil) {
		return runAdvice(beforeRun(ctx, err))
	}
	if out.Session == nil {
		fmt.Fprintf(opts.IO.Info(), "review: nothing to ask about: %s has no changes since its merge base with %s\n", opts.Head, opts.Base)
		return nil
	}
	if err != nil {
		return runError(ctx, out.Session.Run.ID, err)
	}
	ans := out.Answer
	write := func(w io.Writer) error { return format.WriteAnswer(w, ans) }
	if err := writeOutput(opts.IO, opts.Output, forTerminal(opts.IO, opts.Getenv, opts.Output, format, write)); err != nil {
		return err
	}
	if pt != nil {
		if err := postAnswer(ctx, opts, pt, ans); err != nil {
			return err
		}
	}
	return failOn(opts.IO, ans.Findings, set.FailOn, nil, "")
}
