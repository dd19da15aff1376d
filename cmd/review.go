package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/reviewdev/review/cmd/config"
	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/egress"
	"github.com/reviewdev/review/internal/lazy"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review"
	"github.com/reviewdev/review/review/host/github"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/report"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/toolmem"
)

// ReviewOptions are the settings of `review`, the main command.
type ReviewOptions struct {
	IO     *IOStreams
	Getenv func(string) string
	Dir    string

	Head    string
	DryRun  bool
	Format  string
	Outputs []string
	Post    string
	Since   string
	// Worktree reviews HEAD with the work tree's uncommitted edits;
	// Untracked adds the untracked files (and implies Worktree).
	Worktree  bool
	Untracked bool
	// pending is what the work tree has not committed, when the review
	// leaves it out.
	pending *diffctx.Pending
	// pendingNow waits for pending as read beside the settings
	// (pendingSoon), when the review reads HEAD alone.
	pendingNow func() (*diffctx.Pending, error)
	hostFlags
	agentFlags

	// egress counts every request of the run, the host's included.
	egress *egress.Meter
}

// NewCmdReview builds the root command, which reviews the current branch.
// runF replaces the real run in tests.
func NewCmdReview(f *Factory, runF func(*ReviewOptions) error) *cobra.Command {
	opts := &ReviewOptions{IO: f.IO, Getenv: f.Getenv, Dir: f.Dir}
	c := &cobra.Command{
		Use:   rootName + " --base <ref> [flags]",
		Short: "Review a git branch with an OpenAI-compatible model",
		Long: `review turns the diff between a base and the current branch into a compact
context, lets an OpenAI-compatible model explore the repository through
read-only tools, and writes its findings for people and for CI. The model is
set by OPENAI_API_KEY, OPENAI_BASE_URL and --model; settings also come from
.review.yaml and the user file (review config shows where each comes from).`,
		Example: `  review --base main --dry-run
  review --base main
  review --base origin/main --format sarif --output review.sarif --fail-on high`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			opts.ci = ciFrom(opts.Getenv)
			if opts.Base == "" {
				opts.Base = opts.ci.Base
			}
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
	fl.StringVar(&opts.Base, "base", "", "review against `REF` (default in CI: the target branch)")
	fl.StringVar(&opts.Head, "head", "HEAD", "the commit `REV` to review")
	fl.StringVar(&opts.Since, "since", "", "only the commits since `REV` (default in CI: the last review)")
	fl.BoolVar(&opts.Worktree, "worktree", false, "review HEAD with the work tree's uncommitted edits")
	fl.BoolVar(&opts.Untracked, "untracked", false, "with --worktree (implied), the untracked files too")
	inGroup(fl, groupChange, "base", "head", "since", "worktree", "untracked")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print what the model would be sent, and call no model")
	formats := report.Names(report.Result)
	fl.StringVar(&opts.Format, "format", "", text.JoinOr(formats))
	fl.StringArrayVarP(&opts.Outputs, "output", "o", nil, "write to `FILE`; repeat as FORMAT=FILE for more outputs")
	fl.StringVar(&opts.Post, "post", "", "post the findings to `HOST` (review help hosts)")
	inGroup(fl, groupOutputs, "dry-run", "format", "output", "post")
	opts.hostFlags.register(fl)
	opts.agentFlags.register(fl)
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("tokenizer", cobra.FixedCompletions([]string{"tiktoken", "estimate", "server"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("off-diff", cobra.FixedCompletions([]string{"file", "drop"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("post", cobra.FixedCompletions(hostNames(), cobra.ShellCompDirectiveNoFileComp))
	return c
}

// output is one rendering of the result and where it goes ("" = stdout).
type output struct {
	format report.Format
	path   string
}

// formatWord is what --output FORMAT=FILE takes for a format: a bare word.
// Any such word is taken for a format, so a mistyped or unknown one is an
// error rather than the name of a file the default format is written to. A
// file whose name has "=" in it is given with a directory: ./a=b.
var formatWord = lazy.Regexp(`^[A-Za-z][A-Za-z0-9_-]*$`)

// outputs resolves --format and --output into the renderings of k to write.
func (o *ReviewOptions) outputs(k report.Kind) ([]output, error) {
	def := "" // the registry's default
	if !o.IO.OutTTY && o.ci.Host == "github" && !o.DryRun {
		def = "github"
	}
	type named struct{ format, path string }
	primary := named{format: o.Format}
	if primary.format == "" {
		primary.format = def
	}
	var extra []named
	for _, v := range o.Outputs {
		if f, p, ok := strings.Cut(v, "="); ok && formatWord().MatchString(f) {
			if p == "" {
				return nil, usageErrorf("--output %s= needs a file name", f)
			}
			extra = append(extra, named{format: f, path: p})
			continue
		}
		if primary.path != "" {
			return nil, usageErrorf("--output %s: give one plain output file (for --format); name the format of others as FORMAT=FILE", v)
		}
		primary.path = v
	}
	var all []output
	for _, n := range append([]named{primary}, extra...) {
		f, err := lookupFormat(n.format, k)
		if err != nil {
			return nil, err
		}
		all = append(all, output{format: f, path: n.path})
	}
	return all, nil
}

func runReview(ctx context.Context, opts *ReviewOptions) error {
	kind := report.Result
	if opts.DryRun {
		kind = report.DryRun
	}
	outs, err := opts.outputs(kind)
	if err != nil {
		return err
	}
	// Before the model is called: a report it cannot write would waste
	// the tokens spent on it.
	if err := checkOutputs(outs); err != nil {
		return err
	}
	// Before the host is asked anything: the run records where it sent
	// what (review replay --egress).
	opts.egress = egress.New()
	var pt *postTarget
	if !opts.DryRun || !knownHost(opts.Post) {
		if pt, err = postTargetFrom(opts); err != nil {
			return err
		}
	}
	// First, so that the base is here: its .review.yaml is the one read
	// in CI.
	if opts.ci.Host != "" {
		if err := ensureMergeBase(ctx, opts.Dir, opts.Base, opts.Head, opts.IO.ErrOut); err != nil {
			return err
		}
	}
	// Base and head are resolved beside the settings, when they are
	// named: the diff then waits for one git process fewer, and the
	// settings' question of the repository's top level is answered by
	// the same process, started first.
	var revs func() (diffctx.Revisions, bool)
	if !opts.Worktree && !opts.Untracked {
		revs = diffctx.ResolveSoon(ctx, opts.Dir, opts.Base, opts.Head)
	}
	// So are the work tree's edits (git status while the configuration
	// is found and read): the notice about them is printed after, as
	// before.
	opts.pendingNow = opts.pendingSoon(ctx)
	set, err := opts.resolve(opts.Getenv, opts.Dir)
	if err != nil {
		return err
	}
	ctx, cancel := withDeadline(ctx, set.Deadline)
	defer cancel()
	head, label, err := opts.workTree(ctx)
	if err != nil {
		return err
	}
	job := review.Job{Options: prepareOptions(set, &opts.agentFlags, opts.Dir, head), DryRun: opts.DryRun}
	job.HeadLabel, job.Resolved = label, revs
	var open []seam.OpenFinding
	job.Since, open = opts.sinceFor(ctx, pt)
	env, prog, done := runEnv(opts.IO, opts.Getenv, opts.ci, set, opts.Dir, !opts.DryRun)
	defer done()
	env.Egress = opts.egress
	env.Started = func(s *review.Session, plan *review.Plan) {
		// The plan comes first, with its price, before any request.
		fmt.Fprintf(opts.IO.Info(), "review: run %s · %s · model %s · plan: %s\n", s.Run.ID, text.Plural(len(plan.Diff.Files), "file"), set.Model, plan.Estimate.Line())
		warnGit(opts.IO, plan.Diff)
	}
	out, err := review.Run(ctx, job, env)
	prog.done()
	if err != nil && (out == nil || out.Session == nil) {
		return runAdvice(beforeRun(ctx, err))
	}
	plan := out.Plan
	if out.Session == nil {
		return writePlanOnly(ctx, opts, outs, set, plan, job.Since, open, pt)
	}
	// Last: what the host was sent after the run (the review posted, the
	// commit status) joins the run's egress record.
	defer recordPostEgress(opts, set, out.Session)
	if err != nil {
		if plan != nil && !errors.Is(err, context.Canceled) {
			// The head has a state even when its review failed.
			pt.failedStatus(ctx, opts.IO, plan.Diff, out.Session.Run.ID, err)
		}
		return runError(ctx, out.Session.Run.ID, err)
	}
	res := out.Result
	res.Config, res.FailOn = set.RepoConfig, set.FailOn
	res.SetPrice(set.Price)
	res.SetState(out.Failed != nil, false)
	fixed, open := pt.settle(ctx, opts, res, open)
	if err := writeResult(opts.IO, opts.Getenv, outs, res); err != nil {
		return err
	}
	if pt != nil {
		if err := pt.post(ctx, opts, outs, res, plan.Diff); err != nil {
			return err
		}
		pt.resolveFixed(ctx, opts.IO, fixed)
	}
	gated := gate{failOn: set.FailOn, unreviewed: set.FailUnreviewed, open: open, on: pt.changeNoun()}.check(opts.IO, res)
	pt.setStatus(ctx, opts.IO, res, plan.Diff, gated != nil)
	return reviewExit(ctx, opts.IO, res, out.Failed, gated)
}

// localFound names the findings of a review whose model call failed:
// the secrets the change adds, and the prompt-injection attempts in it.
func localFound(fs []result.Finding) string {
	injections := 0
	for _, f := range fs {
		if strings.HasPrefix(f.Title, review.InjectionTitle) {
			injections++
		}
	}
	switch {
	case injections == 0:
		return text.Plural(len(fs), "secret")
	case injections == len(fs):
		return text.Plural(len(fs), "prompt-injection attempt")
	}
	return text.Plural(len(fs)-injections, "secret") + " and " + text.Plural(injections, "prompt-injection attempt")
}

// writePlanOnly ends a review that made no run: a change with nothing to
// review, whose outputs are still written as valid empty documents (a CI
// step that reads them must not fail on their absence), or a dry run.
func writePlanOnly(ctx context.Context, opts *ReviewOptions, outs []output, set *config.Settings, plan *review.Plan, since string, open []seam.OpenFinding, pt *postTarget) error {
	on := pt.changeNoun()
	if len(plan.Diff.Files) == 0 && since != "" {
		fmt.Fprintf(opts.IO.Info(), "review: nothing new to review: the commits since %s change nothing in %s's diff against %s\n", text.ShortSHA(plan.Diff.SinceSHA), opts.Head, opts.Base)
		if opts.DryRun {
			return writeDryRuns(opts.IO, outs, plan.DryRun(set.Model))
		}
		res := result.NothingToReview(plan.Diff, set.Model)
		res.Summary = fmt.Sprintf("Nothing new to review since %s.", text.ShortSHA(plan.Diff.SinceSHA))
		res.Config, res.FailOn = set.RepoConfig, set.FailOn
		res.SetState(false, true)
		fixed, open := pt.settle(ctx, opts, res, open)
		if err := writeResult(opts.IO, opts.Getenv, outs, res); err != nil {
			return err
		}
		err := failOn(opts.IO, nil, set.FailOn, open, on)
		if pt != nil {
			// Nothing was posted, but the head has its state.
			pt.posted, pt.skipped = true, true
			pt.resolveFixed(ctx, opts.IO, fixed)
			pt.setStatus(ctx, opts.IO, res, plan.Diff, err == errFindings)
		}
		return err
	}
	if len(plan.Diff.Files) == 0 {
		switch {
		case opts.pending != nil:
			// The edits are not committed yet: the notice above
			// says how to include them.
			fmt.Fprintf(opts.IO.Info(), "review: nothing to review in the commits: %s has no changes since its merge base with %s; review --base %s --worktree reviews the uncommitted edits\n", opts.Head, opts.Base, opts.Base)
		default:
			// Most often the branch checked out is the base itself:
			// say what to try.
			fmt.Fprintf(opts.IO.Info(), "review: nothing to review: %s has no changes since its merge base with %s; to review the last commit, use --base %s~1, or name the branch it was made from\n", opts.Head, opts.Base, opts.Head)
		}
		if opts.DryRun {
			return writeDryRuns(opts.IO, outs, plan.DryRun(set.Model))
		}
		res := result.NothingToReview(plan.Diff, set.Model)
		res.SetState(false, true)
		return writeResult(opts.IO, opts.Getenv, outs, res)
	}
	warnGit(opts.IO, plan.Diff)
	d := plan.DryRun(set.Model)
	d.Settings = &result.DryRunSettings{From: result.SettingsFromWorktree, File: set.RepoConfig}
	if rev := opts.repoRev(); rev != "" {
		d.Settings.From, d.Settings.Revision = result.SettingsFromBase, rev
	}
	return writeDryRuns(opts.IO, outs, d)
}

// pendingSoon starts reading what the work tree has not committed, for
// the notice workTree prints when the review reads HEAD alone, and
// returns what waits for it; nil in the other cases.
func (o *ReviewOptions) pendingSoon(ctx context.Context) func() (*diffctx.Pending, error) {
	if o.Worktree || o.Untracked || o.Head != "HEAD" {
		return nil
	}
	type read struct {
		p   *diffctx.Pending
		err error
	}
	ch := make(chan read, 1)
	go func() {
		p, err := diffctx.Uncommitted(ctx, o.Dir)
		ch <- read{p, err}
	}()
	return sync.OnceValues(func() (*diffctx.Pending, error) {
		r := <-ch
		return r.p, r.err
	})
}

// workTree is the head to review and its label: with --worktree, a commit
// of the work tree's content (diffctx.Snapshot), named "the work tree";
// otherwise --head, after a notice when the work tree has edits the
// review leaves out.
func (o *ReviewOptions) workTree(ctx context.Context) (head, label string, err error) {
	if !o.Worktree && !o.Untracked {
		if o.Head == "HEAD" {
			read := o.pendingNow
			if read == nil {
				read = func() (*diffctx.Pending, error) { return diffctx.Uncommitted(ctx, o.Dir) }
			}
			if p, err := read(); err == nil && len(p.Changed) > 0 {
				o.pending = p
				fmt.Fprintf(o.IO.Info(), "review: uncommitted edits to %s are not included: the review reads commits (%s); --worktree includes them\n",
					text.Plural(len(p.Changed), "file"), listPaths(p.Changed))
			}
		}
		return o.Head, "", nil
	}
	if o.Head != "HEAD" {
		return "", "", usageErrorf("--worktree reviews the work tree, whose commit is HEAD: drop --head %s", o.Head)
	}
	p, err := diffctx.Uncommitted(ctx, o.Dir)
	if err != nil {
		return "", "", err
	}
	sha, err := diffctx.Snapshot(ctx, o.Dir, o.Untracked)
	if err != nil {
		return "", "", err
	}
	included := len(p.Changed)
	if o.Untracked {
		included += len(p.Untracked)
	} else if n := len(p.Untracked); n > 0 {
		fmt.Fprintf(o.IO.Info(), "review: %s not included (%s); --untracked includes them\n", text.Plural(n, "untracked file"), listPaths(p.Untracked))
	}
	if included == 0 {
		fmt.Fprintf(o.IO.Info(), "review: the work tree has no uncommitted edits: reviewing HEAD\n")
		return o.Head, "", nil
	}
	fmt.Fprintf(o.IO.Info(), "review: reviewing the work tree: HEAD with %s uncommitted\n", text.Plural(included, "file"))
	return sha, "the work tree", nil
}

// listPaths names the first paths of a list, and how many more there are.
func listPaths(paths []string) string {
	const shown = 3
	s := strings.Join(paths[:min(len(paths), shown)], ", ")
	if len(paths) > shown {
		s += fmt.Sprintf(" and %d more", len(paths)-shown)
	}
	return s
}

// writeDryRuns writes the dry run to each output. A change with nothing to
// review has no request: its documents are valid and empty (the text view
// then prints nothing, the JSON view no messages and no files).
func writeDryRuns(s *IOStreams, outs []output, d result.DryRun) error {
	for _, out := range outs {
		if err := writeOutput(s, out.path, func(w io.Writer) error { return out.format.WriteDryRun(w, &d) }); err != nil {
			return err
		}
	}
	return nil
}

// runEnv is what a review or a question lends the agent: the key, the
// headers, the store (opened early, while git reads the diff, when store
// is set), the window's advice and the progress line.
// Its done, deferred, ends the progress line and closes a store opened
// early that the run did not take.
func runEnv(s *IOStreams, getenv func(string) string, ci ciEnv, set *config.Settings, dir string, store bool) (review.Env, *progress, func()) {
	prog := newProgress(s, ci.On, priceOf(set.Model, set.Price))
	var early *earlyStore
	if store {
		early = openEarly(set.Store, getenv, dir)
	}
	done := func() {
		prog.done()
		if early != nil {
			early.discard()
		}
	}
	env := review.Env{
		Egress:   egress.New(),
		APIKey:   getenv("OPENAI_API_KEY"),
		Headers:  expandHeaders(set.Headers, getenv),
		Progress: prog.step,
		Retry:    prog.retry,
		Counting: func(c review.ServerCount) {
			if c.Err == nil {
				fmt.Fprintf(s.Info(), "review: token counts: the server's own (%s)\n", c.Source)
				return
			}
			prog.warn(fmt.Sprintf("review: warning: the server failed to count tokens (%s); the texts it does not count are counted with %s, as estimates", text.OneLine(c.Err.Error(), 300), c.Fallback))
		},
		Jobs: func(n int, why string) {
			fmt.Fprintf(s.Info(), "review: --jobs %d: %s\n", n, why)
		},
		Window: func(w review.WindowFit) {
			if !w.Known {
				fmt.Fprintf(s.ErrOut, "review: warning: the context window of model %s is not known and the server does not say; assuming %s tokens: set --context-window (for Ollama, start it with OLLAMA_CONTEXT_LENGTH)\n", w.Model, text.Number(w.Tokens))
				return
			}
			fmt.Fprintf(s.Info(), "review: context window of %s: %s tokens (%s)\n", w.Model, text.Number(w.Tokens), w.Source)
			if w.Warning != "" {
				fmt.Fprintf(s.ErrOut, "review: warning: %s\n", w.Warning)
			}
		},
		Store: func(root string) (*toolmem.Store, error) {
			if early != nil {
				if st := early.take(); st != nil {
					return st, nil
				}
			}
			return openStore(set.Store, getenv, root)
		},
		Past: func(use func(*toolmem.Store)) { pastStore(set.Store, getenv, dir, early, use) },
	}
	if early != nil {
		env.Reviewing = func(string) { early.create() }
	}
	return env, prog, done
}

// denied gives the findings a review could not post as annotations on the
// job: a warning that says why, and the github format's workflow commands,
// unless standard output already carries them. When standard output
// carries another format (rdjson for reviewdog, say), they go to standard
// error, which the runner reads for commands too.
func denied(opts *ReviewOptions, outs []output, res *result.Result) error {
	w, annotated := opts.IO.rawOut(), false
	for _, o := range outs {
		if o.path == "" || o.path == "-" {
			annotated = o.format.Name == "github"
			if !annotated {
				w = opts.IO.rawErr()
			}
		}
	}
	if _, err := io.WriteString(w, "::warning title=review::The review could not be posted on the pull request (the token may not write reviews); its findings are in these annotations.\n"); err != nil {
		return err
	}
	if annotated {
		return nil
	}
	f, _ := report.Lookup("github", report.Result)
	return f.WriteResult(w, res, version())
}

// expandHeaders fills ${VAR} references in configured header values from
// the environment, so a gateway's key stays out of the configuration file.
// Only REVIEW_* variables and OPENAI_API_KEY are read: a pull request can
// change .review.yaml, and must not send, say, GITHUB_TOKEN to the model
// endpoint. Other references stay as written.
func expandHeaders(h map[string]string, getenv func(string) string) map[string]string {
	if len(h) == 0 {
		return nil
	}
	out := make(map[string]string, len(h))
	for k, v := range h {
		out[k] = os.Expand(v, func(name string) string {
			if strings.HasPrefix(name, "REVIEW_") || name == "OPENAI_API_KEY" {
				return getenv(name)
			}
			return "${" + name + "}"
		})
	}
	return out
}

// warnGit passes on what git warned of while diffing, such as rename
// detection skipped past diff.renameLimit: renamed files then read as
// deleted and added.
func warnGit(s *IOStreams, d *diffctx.Diff) {
	for _, w := range d.Warnings {
		fmt.Fprintf(s.ErrOut, "review: git warned: %s\n", text.OneLine(w, 0))
	}
}

// runAdvice adds to an error that stopped a run before it was recorded
// what to do about it.
func runAdvice(err error) error {
	var nokey *review.NoAPIKeyError
	if errors.As(err, &nokey) {
		return &hintError{
			err: err,
			hint: []string{
				"For OpenAI (or another hosted provider):  export OPENAI_API_KEY=sk-...",
				"For a local server, no key is needed:     export OPENAI_BASE_URL=http://localhost:11434/v1   (Ollama; vLLM, llama.cpp alike)",
				"To see what would be sent without a model: review --base <ref> --dry-run",
			},
		}
	}
	return windowUsage(err)
}

// windowUsage makes a context window too small for any review a usage
// error: it is the --context-window (or the model) that must change.
func windowUsage(err error) error {
	if errors.Is(err, review.ErrWindowTooSmall) {
		return &UsageError{Err: err}
	}
	return err
}

// runError says which run failed, and how to make a request fit when the
// provider found it too long.
func runError(ctx context.Context, id string, err error) error {
	var de *deadlineError
	if errors.As(context.Cause(ctx), &de) {
		return &runFailed{id, fmt.Errorf("run %s: %w", id, de)}
	}
	// A request that gave up waiting because the wait would pass the
	// deadline was stopped by it, though the run ended just before.
	var wait *llm.WaitPastDeadlineError
	if de, ok := ctx.Value(deadlineKey{}).(*deadlineError); ok && errors.As(err, &wait) {
		return &runFailed{id, fmt.Errorf("run %s: %w; the server asked to wait %s more (%v)", id, de, wait.Wait.Round(time.Second/10), wait.Err)}
	}
	if errors.Is(err, llm.ErrContextLength) {
		return &runFailed{id, fmt.Errorf("run %s: %w; make the requests smaller with a lower --static-share or --preview-chars, or give the model's real window with --context-window", id, err)}
	}
	return &runFailed{id, fmt.Errorf("run %s: %w", id, err)}
}

// beforeRun is the error of a command stopped before its run started:
// the --deadline's own words when the deadline stopped it (a busy
// machine can spend a short deadline on reading the diff).
func beforeRun(ctx context.Context, err error) error {
	var de *deadlineError
	if errors.As(context.Cause(ctx), &de) && !errors.As(err, &de) {
		return fmt.Errorf("stopped at the --deadline of %s (REVIEW_DEADLINE) before the run started: allow more time", de.d)
	}
	return err
}

// deadlineError is the cause of a run stopped by --deadline.
type deadlineError struct{ d time.Duration }

func (e *deadlineError) Error() string {
	return fmt.Sprintf("stopped at the --deadline of %s (REVIEW_DEADLINE); its recorded steps are kept: allow more time, or review less with --max-steps", e.d)
}

// deadlineKey holds the run's *deadlineError in its context, for the
// errors that say it stopped the run before it passed (runError).
type deadlineKey struct{}

// withDeadline bounds ctx by the run's deadline, if it has one.
func withDeadline(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	de := &deadlineError{d}
	return context.WithTimeoutCause(context.WithValue(ctx, deadlineKey{}, de), d, de)
}

// prepareOptions are the options of review.Prepare for a review of
// a.Base..head in dir.
func prepareOptions(set *config.Settings, a *agentFlags, dir, head string) review.Options {
	return review.Options{Dir: dir, Base: a.Base, Head: head, CI: a.ci.On, Config: set.Config}
}

// writeResult writes a result in every output asked for, and to the
// GitHub Actions step summary when there is one.
func writeResult(s *IOStreams, getenv func(string) string, outs []output, res *result.Result) error {
	for _, out := range outs {
		write := func(w io.Writer) error { return out.format.WriteResult(w, res, version()) }
		if err := writeOutput(s, out.path, forTerminal(s, getenv, out.path, out.format, write)); err != nil {
			return err
		}
	}
	if p := getenv("GITHUB_STEP_SUMMARY"); p != "" {
		// The summary is Markdown that GitHub renders: safe like the
		// markdown format.
		if err := appendFile(p, func(w io.Writer) error {
			return writeSafe(w, func(w io.Writer) error { return github.WriteStepSummary(w, res) })
		}); err != nil {
			return fmt.Errorf("writing the step summary to %s: %w", p, err)
		}
	}
	return nil
}
