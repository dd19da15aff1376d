package cmd

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/review"
	"github.com/reviewdev/review/review/llm"
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

	// flags is the set the fields were registered on. A flag counts only
	// when given on the command line (Changed), so its default never hides
	// an environment variable or a configuration file.
	flags *pflag.FlagSet
}

// settings are the effective values of a model command after flags,
// environment, configuration files and defaults have been applied.
type settings struct {
	Model   string
	BaseURL string
	// Store is the tool memory directory, or "" for the repository's
	// default.
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
	Price *llm.Price
}

// effective is the resolved configuration and where each value came from.
type effective struct {
	settings
	// values holds every key of configKeys with its source.
	values map[string]configValue
	// files are the configuration files looked for, the repository's
	// first.
	files []configFile
}

// resolve computes the effective settings for a command run in dir.
// Precedence: flags, then environment, then the repository's .review.yaml,
// then the user's configuration file, then defaults. A bad flag is a usage
// error; a bad variable or file is an error naming it.
func (a *agentFlags) resolve(getenv func(string) string, dir string) (*settings, error) {
	e, err := a.effective(getenv, dir)
	if err != nil {
		return nil, err
	}
	// A pull request can change .review.yaml: it must not be able to send
	// the API key to a host of its choosing.
	if src := e.values["base_url"].src; strings.HasPrefix(src, repoConfigName+":") && getenv("OPENAI_API_KEY") != "" {
		return nil, fmt.Errorf("%s sets base_url, but a repository file may not choose where OPENAI_API_KEY is sent: set OPENAI_BASE_URL or --base-url instead, or unset OPENAI_API_KEY for a keyless local server", src)
	}
	return &e.settings, nil
}

// effective resolves the settings, keeping the source of each value for
// `review config`.
func (a *agentFlags) effective(getenv func(string) string, dir string) (*effective, error) {
	flags, err := a.flagLayer()
	if err != nil {
		return nil, err
	}
	env, err := envLayer(getenv)
	if err != nil {
		return nil, err
	}
	e := &effective{values: map[string]configValue{}}
	repo := configFile{display: repoConfigName}
	if top := repoTop(dir); top != "" {
		repo.path, repo.within = filepath.Join(top, repoConfigName), top
	}
	user := configFile{path: userConfig(getenv)}
	user.display = user.path
	repoLayer, err := loadConfig(&repo)
	if err != nil {
		return nil, err
	}
	userLayer, err := loadConfig(&user)
	if err != nil {
		return nil, err
	}
	e.files = []configFile{repo, user}

	layers := []configLayer{flags, env, repoLayer, userLayer}
	for _, k := range configKeys {
		for _, l := range layers {
			if v, ok := l[k.name]; ok {
				e.values[k.name] = v
				break
			}
		}
	}
	if err := e.apply(); err != nil {
		return nil, err
	}
	return e, nil
}

// apply fills in defaults for what no layer set and builds the settings.
func (e *effective) apply() error {
	def := func(name string, v any) {
		if _, ok := e.values[name]; !ok {
			e.values[name] = configValue{v: v, src: sourceDefault}
		}
	}
	def("model", DefaultModel)
	def("base_url", llm.DefaultBaseURL)
	def("store", "")
	def("tokenizer", conversation.Tiktoken)
	def("off_diff", string(review.KeepFileLevel))
	def("fail_on", review.Severity(""))
	def("instructions", "")
	def("ignore", []string(nil))
	def("severity", map[string]review.Severity(nil))
	def("price", nil)

	s := &e.settings
	s.Model = e.values["model"].v.(string)
	s.BaseURL = e.values["base_url"].v.(string)
	s.Store = e.values["store"].v.(string)
	s.Tokenizer = e.values["tokenizer"].v.(string)
	s.OffDiff = review.OffDiff(e.values["off_diff"].v.(string))
	s.FailOn = e.values["fail_on"].v.(review.Severity)
	s.Instructions = e.values["instructions"].v.(string)
	s.Ignore = e.values["ignore"].v.([]string)
	s.Severity = e.values["severity"].v.(map[string]review.Severity)
	if p, ok := e.values["price"].v.(llm.Price); ok {
		s.Price = &p
	}

	// Budgets default per model, and the answer reserve per window.
	b := conversation.DefaultBudget(llm.Lookup(s.Model).Window)
	if v, ok := e.values["context_window"]; ok {
		b.ContextWindow = v.v.(int)
		b.AnswerReserve = conversation.DefaultReserve(b.ContextWindow)
	}
	ints := []struct {
		name string
		dst  *int
	}{
		{"context_window", &b.ContextWindow},
		{"answer_reserve", &b.AnswerReserve},
		{"preview_chars", &b.PreviewChars},
		{"max_steps", &b.MaxSteps},
		{"history_turns", &b.HistoryTurns},
		{"history_chars", &b.HistoryChars},
	}
	for _, f := range ints {
		if v, ok := e.values[f.name]; ok {
			*f.dst = v.v.(int)
		}
		def(f.name, *f.dst)
	}
	if v, ok := e.values["static_share"]; ok {
		b.StaticShare = v.v.(float64)
	}
	def("static_share", b.StaticShare)

	if b.AnswerReserve >= b.ContextWindow {
		w, r := e.values["context_window"], e.values["answer_reserve"]
		err := fmt.Errorf("answer_reserve %d (%s) must be less than context_window %d (%s)", b.AnswerReserve, r.src, b.ContextWindow, w.src)
		if fromCommandLine(w.src) && fromCommandLine(r.src) {
			return &UsageError{Err: err}
		}
		return err
	}
	if err := b.Validate(); err != nil {
		return fmt.Errorf("invalid budget: %w", err)
	}
	s.Budget = b
	return nil
}

// fromCommandLine reports whether a source is a flag or a default, so a
// conflict between them is a usage error rather than a configuration one.
func fromCommandLine(src string) bool {
	return src == sourceDefault || strings.HasPrefix(src, "flag ")
}

// flagLayer reads the agent flags given on the command line.
func (a *agentFlags) flagLayer() (configLayer, error) {
	l := configLayer{}
	for _, k := range configKeys {
		if k.flag == "" {
			continue
		}
		s, ok := a.given(k.flag)
		if !ok {
			continue
		}
		v, err := parseString(k, "--"+k.flag, s)
		if err != nil {
			return nil, &UsageError{Err: err}
		}
		l[k.name] = configValue{v: v, src: "flag --" + k.flag}
	}
	return l, nil
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
		"model":          a.Model,
		"base-url":       a.BaseURL,
		"store":          a.Store,
		"off-diff":       a.OffDiff,
		"tokenizer":      a.Tokenizer,
		"fail-on":        a.FailOn,
		"context-window": itoa(a.ContextWindow),
		"answer-reserve": itoa(a.AnswerReserve),
		"static-share":   strconv.FormatFloat(a.StaticShare, 'g', -1, 64),
		"preview-chars":  itoa(a.PreviewChars),
		"max-steps":      itoa(a.MaxSteps),
		"history-turns":  itoa(a.HistoryTurns),
		"history-chars":  itoa(a.HistoryChars),
	}[name]
	return v, v != "" && v != "0"
}

// envLayer reads the settings environment variables give.
func envLayer(getenv func(string) string) (configLayer, error) {
	l := configLayer{}
	for _, k := range configKeys {
		if k.env == "" {
			continue
		}
		s := getenv(k.env)
		if s == "" {
			continue
		}
		v, err := parseString(k, "$"+k.env, s)
		if err != nil {
			return nil, err
		}
		l[k.name] = configValue{v: v, src: "env " + k.env}
	}
	return l, nil
}

func (a *agentFlags) register(fl *pflag.FlagSet) {
	a.flags = fl
	fl.StringVar(&a.Model, "model", "", "model name (default: $REVIEW_MODEL, the configuration files, or "+DefaultModel+")")
	fl.StringVar(&a.BaseURL, "base-url", "", "OpenAI-compatible endpoint, including /v1 for Ollama, vLLM or llama.cpp (default: $OPENAI_BASE_URL, the configuration files, or "+llm.DefaultBaseURL+")")
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
	fl.StringVar(&a.FailOn, "fail-on", "", "exit with code 3 when a finding is at or above this severity: none, info, low, medium, high or critical (default: $REVIEW_FAIL_ON, the configuration files, or none)")
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
