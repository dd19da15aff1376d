package cmd

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/review"
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
	PreviewChars  int
	MaxSteps      int
	HistoryTurns  int
	HistoryChars  int
	FailOn        string
}

// settings are the effective values of a model command after flags,
// environment, configuration files and defaults have been applied.
type settings struct {
	Model     string
	BaseURL   string
	Store     string
	Tokenizer string
	OffDiff   review.OffDiff
	Budget    conversation.Budget
	// Instructions from configuration are appended to the system prompt.
	Instructions string
	// Ignore globs leave files out of the diff context and the tools.
	Ignore []string
	// FailOn is the least severity that fails the command with exit 3, or
	// "" for none.
	FailOn review.Severity
	// Severity overrides the severity of findings by category.
	Severity map[string]review.Severity
	// Price, if set, prices the model's tokens (USD per million).
	Price *review.Price
}

// resolve computes the effective settings. Precedence: flags, then
// environment, then defaults.
func (a *agentFlags) resolve(getenv func(string) string, dir string) (*settings, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	s := &settings{
		Model:     a.model(getenv),
		BaseURL:   a.baseURL(getenv),
		Store:     a.Store,
		Tokenizer: a.Tokenizer,
		OffDiff:   review.OffDiff(a.OffDiff),
	}
	b, err := a.budget(s.Model)
	if err != nil {
		return nil, err
	}
	s.Budget = b
	if a.FailOn != "" && a.FailOn != "none" {
		sev, err := review.ParseSeverity(a.FailOn)
		if err != nil {
			return nil, usageErrorf("unknown --fail-on %q: use none, info, low, medium, high or critical", a.FailOn)
		}
		s.FailOn = sev
	}
	return s, nil
}

func (a *agentFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&a.Model, "model", "", "model name (default $REVIEW_MODEL or "+DefaultModel+")")
	fl.StringVar(&a.BaseURL, "base-url", "", "OpenAI-compatible endpoint, including /v1 for Ollama, vLLM or llama.cpp (default $OPENAI_BASE_URL or https://api.openai.com/v1)")
	fl.StringVar(&a.Store, "store", "", "tool memory directory (default $REVIEW_STORE or <git dir>/review)")
	fl.StringVar(&a.OffDiff, "off-diff", "file", "findings on lines the change did not touch: file (keep them at file level) or drop (record why)")
	fl.StringVar(&a.Tokenizer, "tokenizer", conversation.Tiktoken, "token counting: tiktoken (exact, offline) or estimate")
	fl.IntVar(&a.ContextWindow, "context-window", 0, "model context window in tokens (default: known per model, else 128000)")
	fl.IntVar(&a.AnswerReserve, "answer-reserve", 0, "tokens kept free for the model's answer (default: 8192, at most a quarter of the window)")
	fl.Float64Var(&a.StaticShare, "static-share", 0, "share of the input budget for the static diff context (default 0.5)")
	fl.IntVar(&a.PreviewChars, "preview-chars", 0, "characters of a tool output shown to the model before it must page (default 2000)")
	fl.IntVar(&a.MaxSteps, "max-steps", 0, "model requests per tool loop before the final review is asked for (default 20)")
	fl.IntVar(&a.HistoryTurns, "history-turns", 0, "earlier turns kept before a follow-up loop starts (default 4)")
	fl.IntVar(&a.HistoryChars, "history-chars", 0, "characters of earlier turns kept before a follow-up loop starts (default 24000)")
	fl.StringVar(&a.FailOn, "fail-on", "", "exit with code 3 when a finding is at or above this severity: none, info, low, medium, high or critical (default none)")
}

// model resolves the model name: flag, then environment, then default.
func (a *agentFlags) model(getenv func(string) string) string {
	if a.Model != "" {
		return a.Model
	}
	if m := getenv("REVIEW_MODEL"); m != "" {
		return m
	}
	return DefaultModel
}

// baseURL resolves the endpoint: flag, then environment, then OpenAI.
func (a *agentFlags) baseURL(getenv func(string) string) string {
	if a.BaseURL != "" {
		return a.BaseURL
	}
	if u := getenv("OPENAI_BASE_URL"); u != "" {
		return u
	}
	return review.DefaultBaseURL
}

// budget resolves the budget from the model's defaults and the flags, and
// checks the result.
func (a *agentFlags) budget(model string) (conversation.Budget, error) {
	b := conversation.DefaultBudget(model)
	if a.ContextWindow > 0 {
		b.ContextWindow = a.ContextWindow
		b.AnswerReserve = conversation.DefaultReserve(b.ContextWindow)
	}
	set := func(dst *int, v int) {
		if v > 0 {
			*dst = v
		}
	}
	set(&b.AnswerReserve, a.AnswerReserve)
	set(&b.PreviewChars, a.PreviewChars)
	set(&b.MaxSteps, a.MaxSteps)
	set(&b.HistoryTurns, a.HistoryTurns)
	set(&b.HistoryChars, a.HistoryChars)
	if a.StaticShare > 0 {
		b.StaticShare = a.StaticShare
	}
	if err := b.Validate(); err != nil {
		return b, &UsageError{Err: err}
	}
	return b, nil
}

// check validates the enumerated flags.
func (a *agentFlags) check() error {
	if a.OffDiff != string(review.KeepFileLevel) && a.OffDiff != string(review.DropOffDiff) {
		return usageErrorf("unknown --off-diff %q: use file or drop", a.OffDiff)
	}
	if a.Tokenizer != conversation.Tiktoken && a.Tokenizer != conversation.Estimate {
		return usageErrorf("unknown --tokenizer %q: use tiktoken or estimate", a.Tokenizer)
	}
	if a.ContextWindow < 0 || a.AnswerReserve < 0 || a.PreviewChars < 0 || a.MaxSteps < 0 || a.HistoryTurns < 0 || a.HistoryChars < 0 || a.StaticShare < 0 {
		return usageErrorf("budget flags must not be negative")
	}
	return nil
}

// checkFormat validates --format against the formats a command writes.
func checkFormat(f string, allowed ...string) (string, error) {
	if f == "" {
		return allowed[0], nil
	}
	for _, a := range allowed {
		if f == a {
			return f, nil
		}
	}
	return "", usageErrorf("unknown --format %q: use %s", f, joinOr(allowed))
}

func joinOr(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	out := ""
	for i, v := range s[:len(s)-1] {
		if i > 0 {
			out += ", "
		}
		out += v
	}
	return fmt.Sprintf("%s or %s", out, s[len(s)-1])
}
