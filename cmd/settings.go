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

// register adds the agent's flags to fl, group by group, the common ones
// first: the help lists them in this order. Their long explanations are
// in docs/configuration.md, which `review help TOPIC` prints.
func (a *agentFlags) register(fl *pflag.FlagSet) {
	a.flags = fl
	fl.StringVar(&a.Model, "model", "", "the model `NAME` (default "+config.DefaultModel+")")
	fl.StringVar(&a.BaseURL, "base-url", "", "API `URL` (default "+llm.DefaultBaseURL+")")
	fl.IntVar(&a.ContextWindow, "context-window", 0, "window of `N` tokens (default: per model, else 128000)")
	fl.StringVar(&a.Timeout, "timeout", "", "wait at most `D` for each response (default "+llm.DefaultTimeout.String()+")")
	fl.StringVar(&a.FirstByteTimeout, "first-byte-timeout", "", "wait at most `D` for a stream's next byte (default "+llm.DefaultFirstByteTimeout.String()+")")
	fl.BoolVar(&a.Stream, "stream", true, "stream answers as server-sent events")
	inGroup(fl, groupModel, "model", "base-url", "context-window", "timeout", "first-byte-timeout", "stream")

	fl.StringVar(&a.FailOn, "fail-on", "", "exit 3 on findings at or above `SEV` (e.g. high,unreviewed)")
	fl.StringVar(&a.MinSeverity, "min-severity", "", "print and post only the findings at or above `SEV`")
	fl.IntVar(&a.MaxFindings, "max-findings", 0, "print and post only the `N` most severe findings")
	fl.StringVar(&a.Ungrounded, "ungrounded", "", "findings on unseen lines: summary (default), keep, drop")
	fl.BoolVar(&a.Verify, "verify", false, "check each unit's findings with one more request")
	fl.StringVar(&a.OffDiff, "off-diff", "file", "findings on untouched lines: file or drop")
	fl.StringVar(&a.Learnings, "learnings", "", "learnings `FILE`, or none (default .review/learnings.md)")
	inGroup(fl, groupFindings, "fail-on", "min-severity", "max-findings", "ungrounded", "verify", "off-diff", "learnings")

	fl.IntVar(&a.PromptBudget, "prompt-budget", 0, fmt.Sprintf("plan `N` prompt tokens, 0 for all (default %s)", text.Number(result.DefaultPromptBudget)))
	fl.Float64Var(&a.MaxCost, "max-cost", 0, "review fewer units past a cost of `USD`")
	fl.IntVar(&a.MaxUnits, "max-units", 0, "review a large diff in `N` units at most")
	fl.IntVar(&a.Jobs, "jobs", 0, fmt.Sprintf("review `N` units at once (default: the server's, else %d)", result.DefaultJobs))
	fl.StringVar(&a.Deadline, "deadline", "", "stop the whole run after `D`, retries included")
	fl.IntVar(&a.MaxPrompt, "max-prompt-tokens", 0, "send at most `N` prompt tokens in all")
	fl.IntVar(&a.MaxSteps, "max-steps", 0, "`N` requests per tool loop, then the review (default 20)")
	fl.BoolVar(&a.SummarizeUnits, "summarize-units", false, "summarize a review in units with one more request")
	fl.BoolVar(&a.ReviewData, "review-data", false, "review bulk files (minified, data) like code, not last")
	inGroup(fl, groupCost, "prompt-budget", "max-cost", "max-units", "jobs", "deadline", "max-prompt-tokens", "max-steps", "summarize-units", "review-data")

	fl.IntVar(&a.AnswerReserve, "answer-reserve", 0, "keep `N` tokens for the answer (default 8192, at most 1/4)")
	fl.Float64Var(&a.StaticShare, "static-share", 0, "give share `F` of the input budget to the diff (default 0.5)")
	fl.IntVar(&a.PreviewChars, "preview-chars", 0, "show `N` chars of a tool output (default "+strconv.Itoa(toolmem.DefaultPreviewChars)+", at least "+strconv.Itoa(toolmem.MinPreviewChars)+")")
	fl.Float64Var(&a.PruneTarget, "prune-target", 0, "prune history to share `F` of the input budget (default 0.5)")
	fl.StringVar(&a.Tokenizer, "tokenizer", conversation.Tiktoken, "count with tiktoken, estimate or server")
	fl.BoolVar(&a.ExactCounts, "exact-counts", false, "plan on exact counts, not on upper bounds")
	inGroup(fl, groupBudget, "answer-reserve", "static-share", "preview-chars", "prune-target", "tokenizer", "exact-counts")

	fl.IntVar(&a.HistoryTurns, "history-turns", 0, "keep `N` earlier turns for a question (default 4)")
	fl.IntVar(&a.HistoryChars, "history-chars", 0, "keep `N` characters of earlier turns (default 24000)")
	fl.StringVar(&a.HistorySelect, "history-select", "", "keep by relevance or recency (default relevance)")
	inGroup(fl, groupFollowUp, "history-turns", "history-chars", "history-select")

	fl.BoolVar(&a.FindCopies, "find-copies", false, "have git detect copies as well as renames (-C)")
	inGroup(fl, groupChange, "find-copies")

	fl.StringVar(&a.Store, "store", "", "tool memory `DIR` (default <git dir>/review)")
	fl.StringVar(&a.ConfigFrom, "config-from", "", "read .review.yaml of base or worktree (base in CI)")
	fl.BoolVar(&a.NoRedact, "no-redact", false, "send and keep secrets unredacted (for a local model)")
	inGroup(fl, groupGeneral, "store", "config-from", "no-redact")
}
