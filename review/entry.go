package review

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"github.com/reviewdev/review/diffctx"
	"strconv"
	"time"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/internal/egress"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/toolmem"
)

// Job is one run of the agent: a review of a change, a question about a
// change as a new run (Options.Question), or a question in a recorded run
// (RunID and Options.Question). Reviews and questions take one path:
// Prepare or Resume, a session whose history redacts and whose tools are
// built in one place, and the turn engine's loop.
type Job struct {
	Options
	// RunID continues this recorded run (an unambiguous prefix will do)
	// with Options.Question as its next turn.
	RunID string
	// DryRun plans the first request and stops: no store, no model.
	DryRun bool
	// Ask tunes the turn of a question. Its Limits, when left zero, are
	// derived from the budget the run is made with, once the window is
	// known (taken from a recorded run, or told by the server).
	Ask AskOptions
	// Given says which settings the command was told; a question in a
	// recorded run takes the others from the run (see Inherited).
	Given Given
}

// Given names the settings a command was told explicitly, which a
// question in a recorded run keeps instead of the run's.
type Given struct {
	Window, Reserve, Model, Tokenizer bool
}

// Inherited is what a question in a recorded run took from it: the
// run's window, answer reserve, model and tokenizer, and the settings the
// command was told that differ from the run's.
type Inherited struct {
	RunID     string
	Window    int
	Reserve   int
	Model     string
	Tokenizer string
	Overrides []Override
}

// Override is a setting told to a question that differs from the
// recorded run's: Setting is "window", "reserve", "model" or "tokenizer".
type Override struct {
	Setting string
	Run     string
	Now     string
}

// Env is what the command lends a run: the model's credentials, the store
// and where the run tells what happens. It names no flag; the advice is
// the command's.
type Env struct {
	// APIKey is sent to the model endpoint only, never recorded.
	APIKey string
	// Headers are added to every model request, their ${VAR}s filled.
	Headers map[string]string
	// Store opens the tool memory for the repository at root. The run
	// closes it before it returns.
	Store func(root string) (*toolmem.Store, error)
	// Reviewing, if set, is told that a review of the repository at dir
	// (or root) will run, once the model's key is there, no dry run was
	// asked for and the change has commits of its own (its revisions read
	// early, Options.Resolved, put the merge base below the head) or, when
	// those are not known, files: Store may start opening (or creating)
	// the store then, beside the reading of the diff and the planning, and
	// hand it over when Store is called. It may be told more than once.
	Reviewing func(root string)
	// Past, if set, lends the plan the store of earlier runs to forecast
	// from (forecastFrom): it calls use with the store, read-only, if
	// there is one. Without it, or a store, the plan expects the prior.
	Past func(use func(*toolmem.Store))
	// Window, if set, is told what the server said of the model's
	// context window when the configuration did not know it.
	Window func(WindowFit)
	// Jobs, if set, is told how many units run side by side, and why
	// (JobsFor), when no setting said and the server told.
	Jobs func(n int, why string)
	// Counting, if set, is told that the server counts the run's tokens,
	// once it is known, and again, once, if it fails to count one.
	Counting func(ServerCount)
	// Inherited, if set, is told what a question in a recorded run took
	// from the run and which told settings differ from it.
	Inherited func(Inherited)
	// Started, if set, is told of the session once its run is recorded,
	// before any request.
	Started func(*Session, *Plan)
	// Progress and Retry, if set, follow the requests.
	Progress func(Progress)
	Retry    func(attempt int, wait time.Duration, err error)
	// Egress, if set, counts every request the run sends (the model's,
	// the server's window and tokenizer, and the command's own through
	// the same meter); the run records what it counted as it goes.
	Egress *egress.Meter
}

// WindowFit is what a run learned of a context window the configuration
// did not know: the server's answer, or Known false when it could not say
// and the configured guess stands.
type WindowFit struct {
	Model  string
	Known  bool
	Tokens int
	Source string
	// Warning is what the user should know about the window served.
	Warning string
}

// AsksServer reports whether a run made with cfg asks its server to count
// tokens: with Server, always; with Tiktoken, for a model whose tokenizer
// we lack (Borrowed), when the server is a llama.cpp server that told the
// window (llama) or one on this machine or network. OpenAI's servers and
// gateways are never asked for a model we count exactly or without
// being told to.
func AsksServer(cfg *result.Config, llama bool) bool {
	switch cfg.Tokenizer {
	case conversation.Server:
		return true
	case "", conversation.Tiktoken:
		return llm.Lookup(cfg.Model).Borrowed && (llama || llm.Local(cfg.BaseURL))
	}
	return false
}

// ServerCount is news of the server's count of the run's tokens: it
// counts them (Source), or it failed to count one (Err), and Fallback,
// an estimate of its count, counts what it fails to from then on.
type ServerCount struct {
	Source   string
	Err      error
	Fallback string
}

// NoAPIKeyError is a run that would send a hosted endpoint a request
// without a key.
type NoAPIKeyError struct{ URL string }

func (e *NoAPIKeyError) Error() string {
	return fmt.Sprintf("no API key for the model endpoint %s: OPENAI_API_KEY is not set", llm.DisplayURL(e.URL))
}

// Outcome is what a run produced. Plan is set unless the run continued a
// recorded one; Session once a run is recorded; Result for a review;
// Answer for a question.
type Outcome struct {
	Plan    *Plan
	Session *Session
	Result  *result.Result
	Answer  *result.Answer
	// Failed is the model run's error when Result holds only what was
	// found without the model (the secrets the change adds), so that
	// --fail-on still blocks them.
	Failed error
}

// Run carries out job: it fits the window, plans the change (or reloads
// the recorded run), records a session and runs its turn. An empty change
// or a dry run ends after the plan, with no session.
func Run(ctx context.Context, job Job, env Env) (*Outcome, error) {
	out, err := run(ctx, job, env)
	redactOutcome(job.Redactor(), out)
	return out, err
}

func run(ctx context.Context, job Job, env Env) (*Outcome, error) {
	if job.RunID != "" {
		return follow(ctx, job, env)
	}
	if env.Reviewing != nil && job.Question == "" && !job.DryRun && checkKey(env.APIKey, job.BaseURL) == nil {
		job.reviewing = env.Reviewing
		// A change with commits of its own is reviewed unless they
		// change nothing (or only ignored files): its store is made
		// beside the server's questions and git's diff, not after them.
		if r, ok := diffctx.ResolvedFor(job.Resolved, job.Base, job.Head); ok && r.MergeBase != r.HeadSHA {
			job.reviewing(job.Dir)
		}
	}
	sources, err := job.fit(ctx, env)
	if err != nil {
		return nil, err
	}
	if env.Past != nil && job.Question == "" {
		env.Past(func(st *toolmem.Store) { job.forecast = forecastFrom(st, job.Model, job.Budget.MaxSteps) })
	}
	job.Options.dryRun = job.DryRun
	plan, err := Prepare(ctx, job.Options)
	if err != nil {
		return nil, err
	}
	plan.Sources = sources
	out := &Outcome{Plan: plan}
	if len(plan.Diff.Files) == 0 || job.DryRun {
		return out, nil
	}
	if err := checkKey(env.APIKey, job.BaseURL); err != nil {
		return out, err
	}
	st, err := env.Store(plan.Diff.Root)
	if err != nil {
		return out, err
	}
	defer st.Close()
	a := newAgent(&job.Config, env, st, plan.Counter)
	sess, err := a.Start(plan, Settings{BaseURL: job.BaseURL, Tokenizer: job.counter.Mode(), Budget: job.Budget, OffDiff: job.OffDiff, FindCopies: job.FindCopies, Price: job.Price})
	if err != nil {
		return out, err
	}
	out.Session = sess
	if env.Started != nil {
		env.Started(sess, plan)
	}
	if job.Question != "" {
		out.Answer, err = sess.Answer(ctx, job.Ask)
		if out.Answer != nil {
			out.Answer.Hold(job.Quiet)
		}
		return out, err
	}
	res, err := sess.Review(ctx)
	if err != nil {
		if len(plan.Leaks)+len(plan.Injections) == 0 || ctx.Err() != nil {
			return out, err
		}
		// The secrets the change adds, and the text in it that speaks
		// to the reviewer, need no model: their findings are kept, so
		// that --fail-on still blocks a leaked key.
		res, out.Failed = sess.LocalResult(), err
	}
	// The findings the review shows, as configured; the run records the
	// result, which its replay explains.
	res.Hold(job.Quiet)
	if err := sess.explain(res); err != nil && out.Failed == nil {
		return out, err
	}
	out.Result = res
	return out, nil
}

// fit fits the window (a dry run asks no server, and says where its
// settings come from instead), builds the counter and derives the
// question's limits from the budget as fitted.
func (job *Job) fit(ctx context.Context, env Env) (result.DryRunSources, error) {
	var (
		llama   bool
		sources result.DryRunSources
	)
	if job.DryRun {
		// A dry run sends nothing anywhere: it takes what the
		// configuration and the rules say, and says what a real run
		// would ask the server.
		sources = dryRunSources(&job.Config)
	} else {
		llama = fitServer(ctx, &job.Config, env, job.RunID == "")
	}
	counter, err := newCounter(ctx, &job.Config, env, llama, job.DryRun)
	if err != nil {
		return sources, err
	}
	job.counter = counter
	counter.Warm()
	if job.Ask.Limits.Tokens == 0 && job.Ask.Limits.Turns == 0 && job.Ask.Limits.Chars == 0 {
		job.Ask.Limits = conversation.LimitsFrom(job.Budget)
	}
	return sources, nil
}

// follow asks job's question in the recorded run job.RunID, in the run's
// window, answer reserve, model and tokenizer unless the command was told
// otherwise: a follow-up is the same conversation, counted the same way.
func follow(ctx context.Context, job Job, env Env) (*Outcome, error) {
	if err := checkKey(env.APIKey, job.BaseURL); err != nil {
		return nil, err
	}
	st, err := env.Store(job.Dir)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	run, err := st.Run(job.RunID)
	if err != nil {
		return nil, err
	}
	job.RunID = run.ID
	inh := job.inherit(run)
	if env.Inherited != nil {
		env.Inherited(inh)
	}
	if _, err := job.fit(ctx, env); err != nil {
		return nil, err
	}
	sess, err := newAgent(&job.Config, env, st, job.counter).Resume(ctx, job.RunID, job.Ignore)
	if err != nil {
		return nil, err
	}
	out := &Outcome{Session: sess}
	if env.Started != nil {
		env.Started(sess, nil)
	}
	out.Answer, err = sess.Ask(ctx, job.Question, job.Ask)
	if out.Answer != nil {
		out.Answer.Hold(job.Quiet)
	}
	return out, err
}

// inherit takes the recorded run's window, answer reserve, model and
// tokenizer into job's configuration, except those job.Given, and says
// what it took and which told settings differ from the run's. The answer
// reserve is the run's only with its window: a reserve fits a window.
func (job *Job) inherit(run toolmem.Run) Inherited {
	var set Settings
	if len(run.Settings) > 0 {
		_ = json.Unmarshal(run.Settings, &set) // an unreadable one leaves the command's settings
	}
	cfg, rb := &job.Config, set.Budget
	inh := Inherited{RunID: run.ID}
	differ := func(setting, was, now string) {
		if was != "" && was != now {
			inh.Overrides = append(inh.Overrides, Override{Setting: setting, Run: was, Now: now})
		}
	}
	itoa := func(n int) string {
		if n <= 0 {
			return ""
		}
		return strconv.Itoa(n)
	}
	if rb.ContextWindow > 0 && rb.AnswerReserve < rb.ContextWindow {
		if job.Given.Window {
			differ("window", itoa(rb.ContextWindow), itoa(cfg.Budget.ContextWindow))
		} else {
			cfg.Budget.ContextWindow, cfg.WindowUnknown = rb.ContextWindow, false
			if !job.Given.Reserve {
				cfg.Budget.AnswerReserve, cfg.ReserveSet = rb.AnswerReserve, true
			}
		}
		if job.Given.Reserve {
			differ("reserve", itoa(rb.AnswerReserve), itoa(cfg.Budget.AnswerReserve))
		}
	}
	if run.Model != "" {
		if job.Given.Model {
			differ("model", run.Model, cfg.Model)
		} else {
			cfg.Model = run.Model
		}
	}
	if set.Tokenizer != "" {
		if job.Given.Tokenizer {
			differ("tokenizer", set.Tokenizer, cfg.Tokenizer)
		} else {
			cfg.Tokenizer = set.Tokenizer
		}
	}
	inh.Window, inh.Reserve, inh.Model, inh.Tokenizer = cfg.Budget.ContextWindow, cfg.Budget.AnswerReserve, cfg.Model, cfg.Tokenizer
	return inh
}

// checkKey catches a missing API key before anything is recorded or
// sent: an endpoint on the internet needs one, a local server usually
// does not.
func checkKey(key, baseURL string) error {
	if key != "" || llm.Local(baseURL) {
		return nil
	}
	return &NoAPIKeyError{URL: baseURL}
}

// newAgent wires the model client and the store into an agent.
func newAgent(cfg *result.Config, env Env, st *toolmem.Store, counter *conversation.Counter) *Agent {
	client := llm.NewClient(llm.ClientConfig{
		BaseURL:     cfg.BaseURL,
		BaseURLFrom: cfg.BaseURLFrom,
		APIKey:      env.APIKey,
		OnRetry:     env.Retry,
		Timeout:     cfg.Timeout,
		Headers:     env.Headers,
		ExtraBody:   cfg.ExtraBody,

		Stream:           cfg.Stream,
		FirstByteTimeout: cfg.FirstByteTimeout,
		Concurrency:      cfg.Jobs,
		HTTPClient:       env.Egress.Client(nil),
	})
	return &Agent{Config: *cfg, Client: client, Store: st, Counter: counter, Progress: env.Progress, Egress: env.Egress}
}

// fitServer asks the server what the configuration does not know (see
// llm.Discover): the context window of a model the table does not know,
// when none was configured (Ollama serves 4,096 tokens by default and
// vLLM what it was started with, and a prompt planned for the 128k guess
// is cut or refused), and, when no setting says how many units run side
// by side, how many requests it serves at once (units: a follow-up in a
// recorded run has none). A hosted API with a model the table knows is
// asked nothing. It reports whether llama.cpp told the window.
func fitServer(ctx context.Context, cfg *result.Config, env Env, units bool) (llama bool) {
	jobs := units && cfg.Jobs <= 0
	if !cfg.WindowUnknown && !jobs {
		return false
	}
	d := llm.Discover(ctx, llm.ClientConfig{BaseURL: cfg.BaseURL, APIKey: env.APIKey, Headers: env.Headers, HTTPClient: env.Egress.Client(nil)}, cfg.Model, cfg.WindowUnknown)
	if jobs {
		var why string
		cfg.Jobs, why = JobsFor(d)
		if env.Jobs != nil && d.Parallel > 0 {
			env.Jobs(cfg.Jobs, why)
		}
	}
	if !cfg.WindowUnknown {
		return false
	}
	w, ok := d.Window, d.WindowKnown
	reserve := cfg.Budget.AnswerReserve
	if !cfg.ReserveSet {
		reserve = conversation.DefaultReserve(w.Tokens)
	}
	fit := WindowFit{Model: cfg.Model, Tokens: cfg.Budget.ContextWindow}
	if ok && reserve < w.Tokens {
		cfg.Budget.ContextWindow, cfg.Budget.AnswerReserve = w.Tokens, reserve
		fit = WindowFit{Model: cfg.Model, Known: true, Tokens: w.Tokens, Source: w.Source, Warning: w.Warning}
	}
	if env.Window != nil {
		env.Window(fit)
	}
	return ok && w.LlamaCpp
}

// JobsFor is how many units run side by side when no setting says, and
// why: what the server says it serves at once (a llama.cpp server's
// slots; one that serves one request at a time gets 1), else
// result.DefaultJobs for a hosted API, result.LocalJobs for a local
// server that does not say.
func JobsFor(d llm.Discovery) (int, string) {
	switch {
	case d.Parallel > 0:
		return d.Parallel, fmt.Sprintf("the server serves %d at once (%s)", d.Parallel, d.ParallelSource)
	case d.Hosted:
		return result.DefaultJobs, "hosted API"
	}
	return result.LocalJobs, "a local server that does not say how many requests it serves at once"
}

// dryRunSources says where a dry run takes what a real run made with cfg
// may ask the server, and sets cfg.Jobs by the rule a real run follows
// when the server says nothing.
func dryRunSources(cfg *result.Config) result.DryRunSources {
	var s result.DryRunSources
	switch {
	case cfg.WindowFrom != "":
		s.Window = cfg.WindowFrom
	case !cfg.WindowUnknown:
		s.Window = "the model table"
	default:
		s.Window = "a guess: the model table does not know model " + cfg.Model
		s.AtRunTime = append(s.AtRunTime, "the context window: a real run asks the server (/v1/models; a local llama.cpp server's /props and /slots; a local Ollama's /api/show) and uses its answer")
	}
	local := llm.SelfHosted(cfg.BaseURL)
	switch {
	case cfg.Jobs > 0:
		s.Jobs = cmp.Or(cfg.JobsFrom, "configured")
	case local:
		cfg.Jobs = result.LocalJobs
		s.Jobs = fmt.Sprintf("a local server's slots are asked at run time; %d if it does not say", result.LocalJobs)
		s.AtRunTime = append(s.AtRunTime, "units side by side: a real run asks a local server how many requests it serves at once (llama.cpp /props total_slots, /slots) and runs that many")
	default:
		cfg.Jobs = result.DefaultJobs
		s.Jobs = "hosted API"
	}
	if AsksServer(cfg, false) {
		s.AtRunTime = append(s.AtRunTime, "token counts: a real run asks the server whether it counts them as the model does (llama.cpp POST /tokenize); this dry run counts with tiktoken")
	}
	return s
}

// newCounter is the counter cfg asks for: the server's count when
// AsksServer, and the server can count; else tiktoken's or the estimate.
// A dry run never asks: it counts with tiktoken.
// With Server, a server that cannot count is an error (a
// llm.TokenizerError); otherwise the borrowed encoding counts.
func newCounter(ctx context.Context, cfg *result.Config, env Env, llama, dry bool) (*conversation.Counter, error) {
	info := llm.Lookup(cfg.Model)
	if dry && cfg.Tokenizer == conversation.Server {
		// A dry run sends nothing: the server is not asked to count.
		return conversation.NewCounter(info.Encoding, conversation.Tiktoken)
	}
	if dry || !AsksServer(cfg, llama) {
		return conversation.NewCounter(info.Encoding, cfg.Tokenizer)
	}
	tok, err := llm.FindTokenizer(ctx, llm.ClientConfig{BaseURL: cfg.BaseURL, BaseURLFrom: cfg.BaseURLFrom, APIKey: env.APIKey, Headers: env.Headers, HTTPClient: env.Egress.Client(nil)})
	if err != nil {
		if cfg.Tokenizer == conversation.Server {
			return nil, err
		}
		return conversation.NewCounter(info.Encoding, conversation.Tiktoken)
	}
	fallback := conversation.Tiktoken + " " + info.Encoding
	c := conversation.NewServerCounter(info.Encoding, conversation.ServerTokenizer{
		Name:  llm.TokenizerName,
		Count: tok.Count,
		Failed: func(err error) {
			if env.Counting != nil {
				env.Counting(ServerCount{Source: llm.TokenizerName, Err: err, Fallback: fallback})
			}
		},
	})
	if env.Counting != nil {
		env.Counting(ServerCount{Source: llm.TokenizerName, Fallback: fallback})
	}
	return c, nil
}
