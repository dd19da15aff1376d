package cmd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/reviewdev/review/cmd/config"
	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review"
	"github.com/reviewdev/review/review/bench"
	"github.com/reviewdev/review/review/learn"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/toolmem"
)

// BenchOptions are the settings of `review bench`.
type BenchOptions struct {
	IO     *IOStreams
	Getenv func(string) string
	Dir    string

	Corpus  string
	Formats []string
	Output  string
	HTML    string
	Slack   int
	Repeat  int
	Jobs    int
	MaxCost float64
	Shard   string
	Resume  bool
	Cache   string
	DryRun  bool
	// JudgeModel, if set, asks this model whether each matched finding
	// describes its defect.
	JudgeModel string
	agentFlags
}

// benchShared are the review flags bench takes as its own, with another
// meaning: cases side by side, the bench's spending, and where runs are
// recorded (one store per case, under the cache).
var benchShared = map[string]bool{"jobs": true, "max-cost": true, "store": true, "fail-on": true}

// NewCmdBench builds `review bench`, which scores reviews against a corpus.
func NewCmdBench(f *Factory, runF func(*BenchOptions) error) *cobra.Command {
	opts := &BenchOptions{IO: f.IO, Getenv: f.Getenv, Dir: f.Dir}
	c := &cobra.Command{
		Use:   "bench --corpus FILE [flags]",
		Short: "Measure reviews against a corpus of changes with known defects",
		Long: `bench runs the real review (the same path and flags as review --base) over
a corpus of cases and scores the findings against what each case expects:
true and false positives, misses, precision, recall and F1 in total and by
severity, false positives on clean changes, and the cost of it all, with
the run IDs so each case can be replayed.

A case is one JSON line: {"id", "repo" (a path or a git URL), "base" and
"head", or "revert_of" (a bug-fix commit: the change reviewed reverts it,
putting the bug back), "clean", "description", "expected": [{"path",
"start_line", "end_line", "severity", "description"}]}. A finding matches
an expected issue when it names the same file and its lines overlap the
expected ones widened by --slack. Repositories named by URL are cloned
once into --cache; local ones are read, never written. AACR-Bench's
published format is read too (--format aacr; a JSON array is taken for it).

Before running, bench prints the plan of every case summed (requests,
tokens, cost); --max-cost stops starting cases once that much is spent.
--shard K/N runs every N-th case from the K-th, and review bench merge
combines the shards' JSON results. An interrupted bench continues with
--resume. See docs/bench.md.`,
		Example: `  review bench --corpus testdata/bench/corpus.jsonl
  review bench --corpus cases.jsonl --model gpt-4o --format json -o gpt-4o.json
  review bench --corpus cases.jsonl --shard 2/4 --format json -o shard-2.json
  review bench merge shard-*.json -o all.json
  review bench compare gpt-4o.json qwen.json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			if opts.Corpus == "" {
				return usageErrorf("--corpus is required: name the cases to run, e.g. --corpus testdata/bench/corpus.jsonl")
			}
			opts.ci = ciFrom(opts.Getenv)
			if runF != nil {
				return runF(opts)
			}
			return runBench(c.Context(), opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Corpus, "corpus", "", "the cases `FILE`: JSON Lines, or AACR-Bench's JSON array")
	fl.IntVar(&opts.Slack, "slack", bench.DefaultSlack, "widen expected ranges by `N` lines each side")
	fl.IntVar(&opts.Repeat, "repeat", 1, "run each case `N` times: the mean and spread")
	fl.StringVar(&opts.Shard, "shard", "", "run one shard, `K/N`: every N-th case from the K-th")
	fl.BoolVar(&opts.Resume, "resume", false, "continue an interrupted bench of the same corpus")
	fl.StringVar(&opts.JudgeModel, "judge-model", "", "ask model `NAME` if each match describes its defect")
	fl.StringVar(&opts.Cache, "cache", "", "clones and runs in `DIR` (default <user cache>/review/bench)")
	inGroup(fl, groupCorpus, "corpus", "slack", "repeat", "shard", "resume", "judge-model", "cache")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print each case's commits, expected issues and plan")
	fl.StringArrayVar(&opts.Formats, "format", nil, "output table (default) or json, corpus jsonl or aacr")
	fl.StringVarP(&opts.Output, "output", "o", "", "write to `FILE` instead of standard output")
	fl.StringVar(&opts.HTML, "html", "", "also write the result as one HTML page to `FILE`")
	inGroup(fl, groupOutputs, "dry-run", "format", "output", "html")
	fl.IntVar(&opts.Jobs, "jobs", 1, "cases reviewed side by side")
	fl.Float64Var(&opts.MaxCost, "max-cost", 0, "start no more cases once `USD` is spent")
	inGroup(fl, groupCost, "jobs", "max-cost")
	// The review's own flags, but those bench gives a meaning of its own.
	own := pflag.NewFlagSet("review", pflag.ContinueOnError)
	own.SortFlags = false // added in the order the help lists them
	opts.agentFlags.register(own)
	own.VisitAll(func(f *pflag.Flag) {
		if !benchShared[f.Name] {
			fl.AddFlag(f)
		}
	})
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"table", "json", "jsonl", "aacr"}, cobra.ShellCompDirectiveNoFileComp))
	c.AddCommand(newCmdBenchCompare(f), newCmdBenchMerge(f))
	return c
}

// benchFormats splits --format into the output's format and the corpus's.
func (o *BenchOptions) benchFormats() (out, corpus string, err error) {
	out = "table"
	for _, v := range o.Formats {
		switch v {
		case "table", "json":
			out = v
		case bench.FormatJSONL, bench.FormatAACR:
			corpus = v
		case "swr", "swrbench":
			return "", "", usageErrorf("--format %s: SWRBench's format is not read yet; convert its cases to JSON Lines (docs/bench.md)", v)
		default:
			return "", "", usageErrorf("unknown --format %q: use table or json for the output, jsonl or aacr for the corpus", v)
		}
	}
	return out, corpus, nil
}

// parseShard reads --shard K/N.
func parseShard(s string) (k, n int, err error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 1 || k > n {
		return 0, 0, usageErrorf("--shard %q: give K/N with 1 ≤ K ≤ N, e.g. --shard 2/4", s)
	}
	return k, n, nil
}

// checkNumbers checks the bench's numeric flags.
func (opts *BenchOptions) checkNumbers() error {
	switch {
	case opts.Slack < 0:
		return usageErrorf("--slack %d: give 0 or more lines", opts.Slack)
	case opts.Repeat < 1:
		return usageErrorf("--repeat %d: run each case at least once", opts.Repeat)
	case opts.Jobs < 1:
		return usageErrorf("--jobs %d: run at least one case at a time", opts.Jobs)
	case opts.MaxCost < 0:
		return usageErrorf("--max-cost %g: give a positive amount of US dollars", opts.MaxCost)
	}
	return nil
}

// readBenchCorpus reads the corpus at path in format, or, when format is
// "", the format its content shows (a JSON array is AACR-Bench's).
func readBenchCorpus(path, format string) ([]bench.Case, []byte, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, "", fmt.Errorf("cannot read the corpus: %w", err)
	}
	if format == "" {
		format = bench.FormatJSONL
		if t := strings.TrimSpace(string(data)); strings.HasPrefix(t, "[") {
			format = bench.FormatAACR
		}
	}
	cases, err := bench.ReadCorpus(strings.NewReader(string(data)), path, format)
	return cases, data, format, err
}

// benchCache is the cache --cache names, by default under the user cache
// directory, made when missing.
func benchCache(flag string) (string, error) {
	cache := flag
	if cache == "" {
		d, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("no user cache directory (%v): give one with --cache DIR", err)
		}
		cache = filepath.Join(d, "review", "bench")
	}
	cache, err := filepath.Abs(cache)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", fmt.Errorf("cannot make the cache: %w", err)
	}
	return cache, nil
}

// benchPlanned says the plan summed before any case runs, and writes it
// for --dry-run.
func benchPlanned(opts *BenchOptions, model string) func(bench.Plan) error {
	info := opts.IO.Info()
	return func(p bench.Plan) error {
		line := fmt.Sprintf("review bench: %s · model %s · plan: expected %s, %s prompt tokens", text.Plural(p.Cases, "case"), model, text.Plural(p.Requests, "request"), text.Number(p.PromptTokens))
		if p.Cost != nil {
			line += ", " + llm.FormatUSD(*p.Cost)
		}
		line += fmt.Sprintf("; at most %s", text.Plural(p.MaxRequests, "request"))
		if opts.Repeat > 1 {
			line += fmt.Sprintf(" (each case %d times)", opts.Repeat)
		}
		if p.Resumed > 0 {
			line += fmt.Sprintf("; %d already scored (--resume)", p.Resumed)
		}
		if p.Failed > 0 {
			line += fmt.Sprintf("; %d cannot be built", p.Failed)
		}
		fmt.Fprintln(info, line)
		if opts.DryRun {
			return writeBenchPlan(opts.IO.Out, p)
		}
		if opts.MaxCost > 0 && p.Cost != nil && *p.Cost > opts.MaxCost {
			fmt.Fprintf(opts.IO.ErrOut, "review bench: warning: the plan's expected cost %s is over --max-cost %s: cases will be left out once it is spent\n", llm.FormatUSD(*p.Cost), llm.FormatUSD(opts.MaxCost))
		}
		return nil
	}
}

func runBench(ctx context.Context, opts *BenchOptions) error {
	outFormat, corpusFormat, err := opts.benchFormats()
	if err != nil {
		return err
	}
	k, n, err := parseShard(opts.Shard)
	if err != nil {
		return err
	}
	if err := opts.checkNumbers(); err != nil {
		return err
	}
	cases, data, corpusFormat, err := readBenchCorpus(opts.Corpus, corpusFormat)
	if err != nil {
		return err
	}
	// The bench's own settings, as the review in this directory would
	// have them: they name the model and the server in the result.
	set, err := opts.resolve(opts.Getenv, opts.Dir)
	if err != nil {
		return err
	}
	cache, err := benchCache(opts.Cache)
	if err != nil {
		return err
	}
	if err := checkBenchOutputs(opts); err != nil {
		return err
	}
	scratch, err := os.MkdirTemp(cache, "scratch-")
	if err != nil {
		return fmt.Errorf("cannot make a scratch directory in the cache: %w", err)
	}
	defer os.RemoveAll(scratch)

	meta := bench.Meta{
		Corpus: filepath.Base(opts.Corpus), Format: corpusFormat,
		Model: set.Model, BaseURL: llm.DisplayURL(set.BaseURL),
		Settings: benchSettings(set),
		Slack:    opts.Slack, Repeat: opts.Repeat, Shard: opts.Shard,
		Version: version(), Started: time.Now().UTC().Format(time.RFC3339),
	}
	b := &bench.Bench{
		Workspace: &bench.Workspace{Cache: cache, Scratch: scratch, Dir: filepath.Dir(opts.Corpus)},
		Reviewer:  &benchReviewer{opts: opts},
		Options: bench.Options{
			Slack: opts.Slack, Repeat: opts.Repeat, Jobs: opts.Jobs, MaxCost: opts.MaxCost,
			Shard: k, Of: n, Resume: opts.Resume,
			Journal: filepath.Join(cache, "journal", journalKey(data, meta)+".jsonl"),
			Stores:  filepath.Join(cache, "runs"),
		},
	}
	if !opts.DryRun {
		// Before any case is built: without a key every review would
		// fail alike.
		if key := opts.Getenv("OPENAI_API_KEY"); key == "" && !llm.Local(set.BaseURL) {
			return runAdvice(&review.NoAPIKeyError{URL: set.BaseURL})
		}
	}
	if opts.JudgeModel != "" {
		meta.Settings["judge-model"] = opts.JudgeModel
		b.Judge = newBenchJudge(opts, set.Config)
	}
	info := opts.IO.Info()
	b.Planned = benchPlanned(opts, set.Model)
	b.Progress = func(p bench.Progress) {
		fmt.Fprintln(info, benchLine(p))
	}
	card, err := b.Run(ctx, cases, meta)
	if card == nil {
		if err == nil && opts.DryRun {
			return nil
		}
		return err
	}
	if werr := writeBench(opts, outFormat, card); werr != nil {
		return werr
	}
	switch {
	case errors.Is(err, bench.ErrMaxCost):
		fmt.Fprintf(opts.IO.ErrOut, "review bench: stopped: %s; raise --max-cost and run it again with --resume to score the rest\n", card.Meta.Stopped)
		return errIncomplete
	case err != nil:
		if ctx.Err() != nil {
			fmt.Fprintf(opts.IO.ErrOut, "review bench: %s; to continue, run the same command with --resume\n", card.Meta.Stopped)
		}
		return err
	}
	if card.Total.Failures > 0 {
		fmt.Fprintf(opts.IO.ErrOut, "review bench: %s, not scored: see each case's failure in the result, and its run with review replay RUN --store STORE\n", text.Plural(card.Total.Failures, "failure"))
		return errIncomplete
	}
	return nil
}

// writeBenchPlan writes the dry run of a bench: each case as built, with
// what it expects and the plan of its review, and ends the bench.
func writeBenchPlan(w io.Writer, p bench.Plan) error {
	for _, c := range p.Each {
		if c.Err != nil {
			if _, err := fmt.Fprintf(w, "%s: not built: %s\n", c.ID, text.OneLine(c.Err.Error(), 300)); err != nil {
				return err
			}
			continue
		}
		how := ""
		if c.Derived {
			how = ", the revert's lines"
		}
		fmt.Fprintf(w, "%s: %s..%s · %s%s · plan: %s\n", c.ID, text.ShortSHA(c.Base), text.ShortSHA(c.Head), text.Plural(len(c.Expected), "expected issue"), how, c.Estimate.Line())
		for _, e := range c.Expected {
			sev := string(e.Severity)
			if sev == "" {
				sev = bench.Unrated
			}
			if _, err := fmt.Fprintf(w, "  %s:%d-%d %s %s\n", text.QuotePath(e.Path), e.StartLine, e.EndLine, sev, text.OneLine(e.Description, 200)); err != nil {
				return err
			}
		}
	}
	return bench.ErrPlanOnly
}

// benchLine is the line a case done prints.
func benchLine(p bench.Progress) string {
	c := p.Case
	line := fmt.Sprintf("review bench: [%d/%d] %s: tp %d fp %d fn %d · %s · %s · %.1fs", p.Done, p.Of, c.ID, c.TP, c.FP, c.FN,
		text.Plural(c.Requests, "request"), llm.FormatUSD(c.CostUSD), c.WallS)
	if c.Error != "" && len(c.Runs) == 0 {
		return fmt.Sprintf("review bench: [%d/%d] %s: not built: %s", p.Done, p.Of, c.ID, text.OneLine(c.Error, 300))
	}
	if c.Failures > 0 {
		for _, r := range c.Runs {
			if r.Failure != nil {
				line += fmt.Sprintf(" · failed (%s): %s", r.Failure.Kind, text.OneLine(r.Failure.Error, 200))
				break
			}
		}
	}
	return line
}

// checkBenchOutputs catches outputs that cannot be written before any
// model is called.
func checkBenchOutputs(opts *BenchOptions) error {
	for _, p := range []string{opts.Output, opts.HTML} {
		if p == "" || p == "-" {
			continue
		}
		if fi, err := os.Stat(filepath.Dir(p)); err != nil || !fi.IsDir() {
			return fmt.Errorf("cannot write %s: its directory does not exist", p)
		}
	}
	return nil
}

// writeBench writes the scorecard as asked.
func writeBench(opts *BenchOptions, format string, card *bench.Scorecard) error {
	write := func(w io.Writer) error { return card.WriteJSON(w) }
	if format == "table" {
		write = func(w io.Writer) error { return bench.WriteTable(w, card) }
	}
	var err error
	if format == "table" && (opts.Output == "" || opts.Output == "-") {
		err = write(opts.IO.Out)
	} else {
		err = writeOutput(opts.IO, opts.Output, write)
	}
	if err != nil {
		return err
	}
	if opts.HTML != "" {
		replays := writeReplays(opts, card)
		if err := writeOutput(opts.IO, opts.HTML, func(w io.Writer) error { return bench.WriteHTML(w, card, replays) }); err != nil {
			return err
		}
	}
	return nil
}

// writeReplays writes the replay page of every run beside the bench's
// page, in PAGE-replays/RUN.html, and returns that folder as the page
// links it; "" when there is none. A run whose page cannot be written is
// a warning: the bench's page names the command that replays it.
func writeReplays(opts *BenchOptions, card *bench.Scorecard) string {
	base := strings.TrimSuffix(filepath.Base(opts.HTML), filepath.Ext(opts.HTML)) + "-replays"
	dir := filepath.Join(filepath.Dir(opts.HTML), base)
	n := 0
	for _, c := range card.Cases {
		for _, r := range c.Runs {
			if r.RunID == "" || c.Store == "" {
				continue
			}
			if n == 0 {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					fmt.Fprintf(opts.IO.ErrOut, "review bench: warning: no replay pages: %v\n", err)
					return ""
				}
			}
			ro := &ReplayOptions{IO: opts.IO, Getenv: opts.Getenv, Dir: opts.Dir, RunID: r.RunID, Store: c.Store, Format: "html", Output: filepath.Join(dir, r.RunID+".html")}
			if err := runReplay(ro); err != nil {
				fmt.Fprintf(opts.IO.ErrOut, "review bench: warning: no replay page for run %s of %s: %s\n", r.RunID, c.ID, text.OneLine(err.Error(), 200))
				continue
			}
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return base
}

// benchSettings are the settings that shape what the model sees, as they
// took effect (flags, environment, the user's configuration file), for
// compare: a repository's own .review.yaml may change them per case.
func benchSettings(set *config.Settings) map[string]string {
	b := set.Budget
	s := map[string]string{
		"static-share":     strconv.FormatFloat(b.StaticShare, 'g', -1, 64),
		"context-window":   strconv.Itoa(b.ContextWindow),
		"answer-reserve":   strconv.Itoa(b.AnswerReserve),
		"max-steps":        strconv.Itoa(b.MaxSteps),
		"preview-chars":    strconv.Itoa(b.PreviewChars),
		"tokenizer":        set.Tokenizer,
		"off-diff":         string(set.OffDiff),
		"max-units":        strconv.Itoa(set.Caps.MaxUnits),
		"stream":           strconv.FormatBool(set.Stream),
		"navigation":       strconv.FormatBool(!set.NoNavigation),
		"overview-symbols": strconv.FormatBool(set.OverviewSymbols && !set.NoNavigation),
	}
	h := sha256.Sum256([]byte(review.SystemPrompt(set.Instructions)))
	s["prompt"] = hex.EncodeToString(h[:6])
	s["learnings"] = benchLearnings(set)
	return s
}

// benchLearnings names the team's learnings a bench runs with: "none",
// a file with the hash of its learnings, or each case's own file.
func benchLearnings(set *config.Settings) string {
	switch {
	case set.LearningsSetting == "none":
		return "none"
	case set.LearningsChosen:
		h := sha256.New()
		for _, l := range set.Learnings {
			fmt.Fprintf(h, "%d\x00%s\x00%s\x00", l.N, l.Rule, strings.Join(l.Paths, ","))
		}
		return fmt.Sprintf("%s (%d, %s)", set.LearningsFrom, len(set.Learnings), hex.EncodeToString(h.Sum(nil)[:6]))
	}
	return "each case's " + learn.Path
}

// journalKey names the journal of a bench: the same corpus, shard, model,
// settings, slack and repeats resume the same journal. The server is left
// out: a local server's port changes from one start to the next.
func journalKey(corpus []byte, m bench.Meta) string {
	h := sha256.New()
	h.Write(corpus)
	fmt.Fprintf(h, "\x00%s\x00%s\x00%s\x00%d\x00%d", m.Format, m.Shard, m.Model, m.Slack, m.Repeat)
	for _, k := range []string{"static-share", "context-window", "answer-reserve", "max-steps", "preview-chars", "tokenizer", "off-diff", "max-units", "stream", "prompt", "learnings", "navigation", "overview-symbols"} {
		fmt.Fprintf(h, "\x00%s=%s", k, m.Settings[k])
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// benchReviewer runs each case through review.Run, as review --base
// does, with the command's flags resolved in the case's clone.
type benchReviewer struct {
	opts *BenchOptions
}

func (r *benchReviewer) job(t bench.Target, dry bool) (review.Job, review.Env, time.Duration, error) {
	a := r.opts.agentFlags
	a.Base = t.Base
	set, err := a.resolve(r.opts.Getenv, t.Dir)
	if err != nil {
		return review.Job{}, review.Env{}, 0, err
	}
	getenv := r.opts.Getenv
	env := review.Env{
		APIKey:  getenv("OPENAI_API_KEY"),
		Headers: expandHeaders(set.Headers, getenv),
		Store: func(root string) (*toolmem.Store, error) {
			return openStore(t.Store, getenv, root)
		},
	}
	return review.Job{Options: prepareOptions(set, &a, t.Dir, t.Head), DryRun: dry}, env, set.Deadline, nil
}

func (r *benchReviewer) Plan(ctx context.Context, t bench.Target) (result.Estimate, error) {
	job, env, _, err := r.job(t, true)
	if err != nil {
		return result.Estimate{}, err
	}
	out, err := review.Run(ctx, job, env)
	if err != nil {
		return result.Estimate{}, err
	}
	if out == nil || out.Plan == nil {
		return result.Estimate{}, errors.New("no plan")
	}
	return out.Plan.Estimate, nil
}

func (r *benchReviewer) Review(ctx context.Context, t bench.Target) bench.Reviewed {
	job, env, deadline, err := r.job(t, false)
	if err != nil {
		return bench.Reviewed{Err: err}
	}
	ctx, cancel := withDeadline(ctx, deadline)
	defer cancel()
	out, err := review.Run(ctx, job, env)
	var rv bench.Reviewed
	if out != nil && out.Session != nil {
		rv.RunID = out.Session.Run.ID
	}
	if err != nil {
		rv.Err, rv.Kind = err, failureKind(ctx, err)
		return rv
	}
	if out.Result == nil {
		rv.Err = errors.New("nothing to review: the case's change is empty")
		return rv
	}
	res := out.Result
	// As review --base gives it: its price (the engine applied the
	// configured severities and what is held back).
	a := r.opts.agentFlags
	a.Base = t.Base
	if set, err := a.resolve(r.opts.Getenv, t.Dir); err == nil {
		res.SetPrice(set.Price)
	}
	rv.Result = res
	if out.Failed != nil {
		rv.Err, rv.Kind = out.Failed, failureKind(ctx, out.Failed)
	}
	return rv
}

// failureKind sorts a failed review: a timeout (--timeout, --deadline), an
// answer that could not be read, or another error.
func failureKind(ctx context.Context, err error) string {
	var te *llm.TimeoutError
	var de *deadlineError
	var past *llm.WaitPastDeadlineError
	switch {
	case errors.As(err, &te), errors.As(context.Cause(ctx), &de), errors.As(err, &past), errors.Is(err, context.DeadlineExceeded):
		return bench.FailTimeout
	case errors.Is(err, llm.ErrBadResponse):
		return bench.FailUnparsable
	}
	return bench.FailError
}

// newCmdBenchCompare builds `review bench compare A.json B.json`.
func newCmdBenchCompare(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "compare A.json B.json",
		Short: "Print two bench results side by side with their differences",
		Long: `compare prints two results of review bench --format json side by side: how
they were made where that differs (model, server, settings such as
--static-share, the prompt), every total with its difference, and the cases
that scored differently.`,
		Args: usageArgs(cobra.ExactArgs(2)),
		RunE: func(c *cobra.Command, args []string) error {
			cards, err := readCards(args)
			if err != nil {
				return err
			}
			return bench.WriteCompare(f.IO.Out, cards[0], cards[1], filepath.Base(args[0]), filepath.Base(args[1]))
		},
	}
}

// newCmdBenchMerge builds `review bench merge A.json B.json ...`.
func newCmdBenchMerge(f *Factory) *cobra.Command {
	var output, format, page string
	c := &cobra.Command{
		Use:   "merge A.json B.json ...",
		Short: "Combine the results of a bench's shards into one",
		Long: `merge combines the JSON results of the shards of one bench (review bench
--shard K/N --format json) into one result, with the totals made again from
every case. Results of different models, servers or settings are refused.`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			if format != "json" && format != "table" {
				return usageErrorf("unknown --format %q: use json or table", format)
			}
			cards, err := readCards(args)
			if err != nil {
				return err
			}
			names := make([]string, len(args))
			for i, a := range args {
				names[i] = filepath.Base(a)
			}
			card, err := bench.Merge(cards, names)
			if err != nil {
				return err
			}
			if err := writeBench(&BenchOptions{IO: f.IO, Output: output}, format, card); err != nil {
				return err
			}
			if page == "" {
				return nil
			}
			// The shards' runs are recorded where each shard ran: the page
			// names the command that replays each, without its page.
			return writeOutput(f.IO, page, func(w io.Writer) error { return bench.WriteHTML(w, card, "") })
		},
	}
	c.Flags().StringVarP(&output, "output", "o", "", "write the merged result to this file instead of standard output")
	c.Flags().StringVar(&page, "html", "", "also write the merged result as one self-contained HTML page to this file")
	c.Flags().StringVar(&format, "format", "json", "output: json or table")
	return c
}

// readCards reads bench results.
func readCards(paths []string) ([]*bench.Scorecard, error) {
	var cards []*bench.Scorecard
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("cannot read the bench result: %w", err)
		}
		card, err := bench.ReadScorecard(f, p)
		f.Close()
		if err != nil {
			return nil, err
		}
		cards = append(cards, card)
	}
	return cards, nil
}

// benchJudge asks a model, on the review's server, whether a finding
// describes a defect.
type benchJudge struct {
	client *llm.Client
	model  string
	price  *llm.Price
}

func newBenchJudge(opts *BenchOptions, cfg result.Config) *benchJudge {
	client := llm.NewClient(llm.ClientConfig{
		BaseURL: cfg.BaseURL, BaseURLFrom: cfg.BaseURLFrom,
		APIKey:  opts.Getenv("OPENAI_API_KEY"),
		Headers: expandHeaders(cfg.Headers, opts.Getenv),
		Timeout: cfg.Timeout, ExtraBody: cfg.ExtraBody,
	})
	j := &benchJudge{client: client, model: opts.JudgeModel}
	if p, ok := llm.PriceFor(opts.JudgeModel); ok {
		j.price = &p
	}
	return j
}

// judgeSystem tells the judge what it is asked.
const judgeSystem = "You judge code review findings against a known defect. The finding already points at the defect's lines; say whether it describes the defect itself. Answer with one word: yes or no."

func (j *benchJudge) Describes(ctx context.Context, defect string, f result.Finding) (bench.Verdict, error) {
	zero := float32(0)
	q := fmt.Sprintf("Known defect: %s\n\nThe finding, at %s:\nTitle: %s\n%s\n\nDoes the finding describe this defect? Answer yes or no.", defect, f.Location(), f.Title, f.Body)
	reply, err := j.client.Complete(ctx, llm.Request{
		Model:       j.model,
		Messages:    []conversation.Message{{Role: conversation.System, Content: judgeSystem}, {Role: conversation.User, Content: q}},
		Temperature: &zero,
	})
	if err != nil {
		return bench.Verdict{}, err
	}
	v := bench.Verdict{Answer: text.OneLine(reply.Message.Content, 200)}
	if j.price != nil {
		v.Cost = j.price.Cost(reply.Usage.Prompt, reply.Usage.Cached, reply.Usage.Completion)
	}
	answer := strings.TrimLeft(strings.ToLower(strings.TrimSpace(reply.Message.Content)), "*\"'` ")
	switch {
	case strings.HasPrefix(answer, "yes"):
		v.Yes = true
		return v, nil
	case strings.HasPrefix(answer, "no"):
		return v, nil
	}
	return v, errors.New("the judge answered neither yes nor no")
}
