package cmd

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/reviewdev/review/cmd/config"
	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/toolmem"
)

// agentFlags are the settings shared by every command that talks to a
// model: which model, where, and the budgets.
type agentFlags struct {
	Model         string
	BaseURL       string
	Store         string
	OffDiff       string
	Tokenizer     string
	ContextWindow int
	AnswerReserve int
	StaticShare   float64
	PruneTarget   float64
	PreviewChars  int
	MaxSteps      int
	HistoryTurns  int
	HistoryChars  int
	HistorySelect string
	FailOn        string
	// Base is the revision a review is against: --base, which each
	// command registers with its own help (for ask it starts a new run).
	Base string
	// Ungrounded, MinSeverity, MaxFindings and Verify choose the findings
	// a review shows.
	Ungrounded  string
	MinSeverity string
	MaxFindings int
	Verify      bool
	// Learnings is --learnings: a learnings file, or none.
	Learnings string
	// ConfigFrom is --config-from: "base", "worktree" or "" for the
	// default.
	ConfigFrom string
	Timeout    string
	Deadline   string
	MaxUnits   int
	// PromptBudget is --prompt-budget: 0, given, is no bound.
	PromptBudget int
	Jobs         int
	// SummarizeUnits is --summarize-units.
	SummarizeUnits bool
	MaxPrompt      int
	MaxCost        float64
	FindCopies     bool
	ReviewData     bool
	ExactCounts    bool
	NoRedact       bool

	// Stream is --stream; FirstByteTimeout --first-byte-timeout.
	Stream           bool
	FirstByteTimeout string

	// ci is where the command runs (ciFrom), set by the command before
	// anything reads it.
	ci ciEnv

	// flags is the set the fields were registered on. A flag counts only
	// when given on the command line (Changed), so its default never hides
	// an environment variable or a configuration file.
	flags *pflag.FlagSet
}

// sources are where the settings of a command run in dir come from.
func (a *agentFlags) sources(getenv func(string) string, dir string) config.Sources {
	return config.Sources{Flag: a.given, Getenv: getenv, Dir: dir, RepoRev: a.repoRev(), CI: a.ci.On}
}

// repoRev is the revision whose .review.yaml a command reads: the base of
// the review with --config-from base, the default in CI (a pull request's
// work tree is its own content, and must not loosen its own gate); none,
// the work tree, with --config-from worktree, the default elsewhere.
func (a *agentFlags) repoRev() string {
	from := a.ConfigFrom
	if from == "" {
		from = "worktree"
		if a.ci.On {
			from = "base"
		}
	}
	if from != "base" {
		return ""
	}
	return a.Base
}

// resolve computes the effective settings for a command run in dir; see
// config.Resolve. A bad flag is a usage error.
func (a *agentFlags) resolve(getenv func(string) string, dir string) (*config.Settings, error) {
	if a.ConfigFrom != "" && a.ConfigFrom != "base" && a.ConfigFrom != "worktree" {
		return nil, usageErrorf("unknown --config-from %q: use base or worktree", a.ConfigFrom)
	}
	s, err := config.Resolve(a.sources(getenv, dir))
	return s, flagUsage(err)
}

// effective resolves the settings, keeping the source of each value for
// `review config`.
func (a *agentFlags) effective(getenv func(string) string, dir string) (*config.Effective, error) {
	e, err := config.Load(a.sources(getenv, dir))
	return e, flagUsage(err)
}

// flagUsage makes a mistake in the flags or the environment variables a
// usage error, so it exits with ExitUsage; mistakes in files stay plain
// errors.
func flagUsage(err error) error {
	var (
		fe *config.FlagError
		ee *config.EnvError
	)
	if errors.As(err, &fe) || errors.As(err, &ee) {
		return &UsageError{Err: err}
	}
	return err
}

// given returns the value of an agent flag and whether it was given. Fields
// filled in code, without a flag set, count when they are not zero.
func (a *agentFlags) given(name string) (string, bool) {
	if a.flags != nil {
		f := a.flags.Lookup(name)
		if f == nil || !f.Changed {
			return "", false
		}
		return f.Value.String(), true
	}
	itoa := strconv.Itoa
	v := map[string]string{
		"model":             a.Model,
		"base-url":          a.BaseURL,
		"store":             a.Store,
		"off-diff":          a.OffDiff,
		"tokenizer":         a.Tokenizer,
		"fail-on":           a.FailOn,
		"ungrounded":        a.Ungrounded,
		"min-severity":      a.MinSeverity,
		"max-findings":      itoa(a.MaxFindings),
		"verify":            map[bool]string{true: "true"}[a.Verify],
		"learnings":         a.Learnings,
		"context-window":    itoa(a.ContextWindow),
		"answer-reserve":    itoa(a.AnswerReserve),
		"static-share":      strconv.FormatFloat(a.StaticShare, 'g', -1, 64),
		"prune-target":      strconv.FormatFloat(a.PruneTarget, 'g', -1, 64),
		"preview-chars":     itoa(a.PreviewChars),
		"max-steps":         itoa(a.MaxSteps),
		"history-turns":     itoa(a.HistoryTurns),
		"history-chars":     itoa(a.HistoryChars),
		"history-select":    a.HistorySelect,
		"max-units":         itoa(a.MaxUnits),
		"prompt-budget":     itoa(a.PromptBudget),
		"jobs":              itoa(a.Jobs),
		"summarize-units":   map[bool]string{true: "true"}[a.SummarizeUnits],
		"max-prompt-tokens": itoa(a.MaxPrompt),
		"max-cost":          strconv.FormatFloat(a.MaxCost, 'g', -1, 64),
		"find-copies":       map[bool]string{true: "true"}[a.FindCopies],
		"review-data":       map[bool]string{true: "true"}[a.ReviewData],
		"exact-counts":      map[bool]string{true: "true"}[a.ExactCounts],
		"no-redact":         map[bool]string{true: "true"}[a.NoRedact],
		"timeout":           a.Timeout,
		"deadline":          a.Deadline,
		// Streaming is on by default: filled in code, it can only be
		// asked for.
		"stream":             map[bool]string{true: "true"}[a.Stream],
		"first-byte-timeout": a.FirstByteTimeout,
	}[name]
	return v, v != "" && v != "0"
}

func (a *agentFlags) register(fl *pflag.FlagSet) {
	a.flags = fl
	fl.StringVar(&a.Model, "model", "", "model name (default: $REVIEW_MODEL, the configuration files, or "+config.DefaultModel+")")
	fl.StringVar(&a.BaseURL, "base-url", "", "OpenAI-compatible endpoint, including /v1 for Ollama, vLLM or llama.cpp (default: $OPENAI_BASE_URL, the configuration files, or "+llm.DefaultBaseURL+")")
	fl.StringVar(&a.Store, "store", "", "tool memory directory (default $REVIEW_STORE or <git dir>/review)")
	fl.StringVar(&a.OffDiff, "off-diff", "file", "findings on lines the change did not touch: file (keep them at file level) or drop (record why)")
	fl.StringVar(&a.Tokenizer, "tokenizer", conversation.Tiktoken, "token counting: tiktoken (exact, offline; a model whose tokenizer is not known is counted by its llama.cpp server when it can), estimate, or server (the server's own count, llama.cpp /tokenize; an error if it cannot)")
	fl.IntVar(&a.ContextWindow, "context-window", 0, "model context window in tokens (default: known per model, else 128000)")
	fl.IntVar(&a.AnswerReserve, "answer-reserve", 0, "tokens kept free for the model's answer (default: 8192, at most a quarter of the window)")
	fl.Float64Var(&a.StaticShare, "static-share", 0, "share of the input budget for the static diff context (default 0.5)")
	fl.Float64Var(&a.PruneTarget, "prune-target", 0, "share of the input budget the earlier history is pruned to when a turn would start above the stop line (80%) (default 0.5)")
	fl.IntVar(&a.PreviewChars, "preview-chars", 0, "characters of a tool output shown to the model before it must page (default "+strconv.Itoa(toolmem.DefaultPreviewChars)+", at least "+strconv.Itoa(toolmem.MinPreviewChars)+")")
	fl.IntVar(&a.MaxSteps, "max-steps", 0, "model requests per tool loop before the final review is asked for (default 20)")
	fl.StringVar(&a.Timeout, "timeout", "", "how long a model response may take to start, and then to arrive, per attempt, e.g. 90s or 5m (default: $REVIEW_TIMEOUT, the configuration files, or "+llm.DefaultTimeout.String()+")")
	fl.BoolVar(&a.Stream, "stream", true, "stream answers as server-sent events, so a silent server is noticed within --first-byte-timeout and progress shows; --stream=false (or stream: false in a configuration file) reads them whole, as happens anyway with a server that does not stream")
	fl.StringVar(&a.FirstByteTimeout, "first-byte-timeout", "", "how long a streamed answer may take to send its first byte, and may then pause, per attempt, e.g. 30s or 5m; never more than --timeout (default: $REVIEW_FIRST_BYTE_TIMEOUT, the configuration files, or "+llm.DefaultFirstByteTimeout.String()+")")
	fl.StringVar(&a.Deadline, "deadline", "", "how long the whole run may take, all requests and retries included, e.g. 20m (default: $REVIEW_DEADLINE, the configuration files, or none)")
	fl.IntVar(&a.HistoryTurns, "history-turns", 0, "earlier turns kept before a follow-up loop starts (default 4)")
	fl.IntVar(&a.HistoryChars, "history-chars", 0, "characters of earlier turns kept before a follow-up loop starts (default 24000)")
	fl.StringVar(&a.HistorySelect, "history-select", "", "which earlier turns a follow-up keeps when not all fit: relevance (to the question, then recency) or recency (default relevance)")
	fl.IntVar(&a.MaxUnits, "max-units", 0, "units a large diff is reviewed in, at most; the files of the others are reported as not reviewed (default: no limit)")
	fl.IntVar(&a.PromptBudget, "prompt-budget", 0, fmt.Sprintf("prompt tokens the review is planned to take, as the plan expects them; the units past it are reported as not reviewed (default %s; 0: the whole change)", text.Number(result.DefaultPromptBudget)))
	fl.IntVar(&a.Jobs, "jobs", 0, fmt.Sprintf("units of a large diff reviewed side by side, each its own tool loop; 1 reviews them in sequence, each unit seeing the earlier ones (default: what the server says it serves at once, else %d for a hosted API, %d for a local server)", result.DefaultJobs, result.LocalJobs))
	fl.BoolVar(&a.SummarizeUnits, "summarize-units", false, "write the summary of a review in units with one more model request, from the units' summaries and findings; by default each unit's summary is kept, by unit")
	fl.IntVar(&a.MaxPrompt, "max-prompt-tokens", 0, "prompt tokens the review may send in all; past them it covers fewer units (default: no limit)")
	fl.Float64Var(&a.MaxCost, "max-cost", 0, "US dollars the review may cost at the model's price; past them it covers fewer units (default: no limit)")
	fl.BoolVar(&a.FindCopies, "find-copies", false, "have git detect copies as well as renames (git diff -C)")
	fl.BoolVar(&a.ReviewData, "review-data", false, "review bulk files (minified, data fixtures, one file holding most of a large change) in priority order like code, not after every other file")
	fl.BoolVar(&a.ExactCounts, "exact-counts", false, "plan on exact counts; by default a plan far from every limit is made on upper bounds and the dry run marks its figures as estimates (~). What each request sent is always counted exactly")
	fl.BoolVar(&a.NoRedact, "no-redact", false, "send and store text as it is, secrets included (for a local model); redaction of secrets is on by default")
	fl.StringVar(&a.ConfigFrom, "config-from", "", "read the repository's .review.yaml from the base revision (base) or the work tree (worktree); default: base in CI (CI, GITHUB_ACTIONS or GITLAB_CI set, and CI not false), worktree elsewhere")
	fl.StringVar(&a.Ungrounded, "ungrounded", "", "findings that cite lines the model was never shown: summary (list them in the summary, not inline, not in the gate), keep (like any finding) or drop (record why) (default summary)")
	fl.StringVar(&a.MinSeverity, "min-severity", "", "least severity printed, posted and annotated: info, low, medium, high or critical; the others stay in the json output as withheld (default: all)")
	fl.IntVar(&a.MaxFindings, "max-findings", 0, "most findings printed, posted and annotated, the most severe first; the others stay in the json output as withheld (default: no limit)")
	fl.BoolVar(&a.Verify, "verify", false, "after each unit submits, one more request checks its findings against the lines they cite and drops the ones it rejects")
	fl.StringVar(&a.Learnings, "learnings", "", "the team's learnings file, or none (default: $REVIEW_LEARNINGS, the configuration files, or .review/learnings.md of the repository, read from the base in CI)")
	fl.StringVar(&a.FailOn, "fail-on", "", "exit with code 3 when a finding is at or above this severity: none, info, low, medium, high or critical; add unreviewed (high,unreviewed) to fail also when part of the change was not reviewed (default: $REVIEW_FAIL_ON, the configuration files, or none)")
}
