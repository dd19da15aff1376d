package config

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/review/learn"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/toolmem"
)

// Settings are the effective values of a model command after flags,
// environment, configuration files and defaults have been applied.
type Settings struct {
	// Config is what the review itself is made with.
	result.Config
	// Store is the tool memory directory, or "" for the repository's
	// default.
	Store string
	// FailOn is the least severity that fails the command with exit 3, or
	// "" for none.
	FailOn result.Severity
	// FailUnreviewed fails the command with exit 3 when the review left
	// part of the change out (--fail-on unreviewed).
	FailUnreviewed bool
	// Severity overrides the severity of findings by category.
	Severity map[string]result.Severity
	// Deadline bounds the whole run, all requests and retries; 0 is none.
	Deadline time.Duration
	// RepoConfig names the repository file the settings came from, with
	// its revision when read from one (".review.yaml@origin/main"); empty
	// when there is none.
	RepoConfig string
	// LearningsSetting is the learnings setting as given ("none", a
	// file); LearningsChosen says a flag or a variable gave it, so the
	// file is the person's own rather than the repository's.
	LearningsSetting string
	LearningsChosen  bool
}

// Effective is the resolved configuration and where each value came from,
// as `review config` shows it.
type Effective struct {
	Settings
	// values holds every key of keys with its source.
	values map[string]value
	// files are the configuration files looked for, the repository's
	// first.
	files []configFile
	// dir is where the command runs.
	dir string
}

// Sources are where the settings of a command come from.
type Sources struct {
	// Flag returns the value of a flag, by its name without dashes, and
	// whether it was given on the command line. A flag left at its
	// default must report false, so that it never hides an environment
	// variable or a configuration file. Nil means no flags.
	Flag func(name string) (string, bool)
	// Getenv reads the environment.
	Getenv func(string) string
	// Dir is where the command runs: the .review.yaml at the top of its
	// git work tree is read, if it is in one.
	Dir string
	// RepoRev, if set, is the revision whose .review.yaml is read instead
	// of the work tree's: the base of a pull request, so that the change
	// under review cannot loosen its own review (severities, ignore
	// globs, fail_on). A revision without the file sets nothing.
	RepoRev string
	// CI says the command runs unattended in CI, as the command layer
	// decided from the environment: a repository file may not switch
	// redaction off there.
	CI bool
}

// FlagError is a mistake in the command line: a bad flag value, or flags
// (and defaults) that contradict each other. Errors of environment
// variables and files are not FlagErrors.
type FlagError struct{ Err error }

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// EnvError is a bad value in an environment variable that sets a key
// ($REVIEW_TIMEOUT=abc): a mistake in how the command was invoked, as a
// bad flag is, for a CI job sets both the same way.
type EnvError struct{ Err error }

func (e *EnvError) Error() string { return e.Err.Error() }
func (e *EnvError) Unwrap() error { return e.Err }

// Resolve computes the settings of a command. Precedence: flags, then
// environment, then the repository's .review.yaml, then the user's
// configuration file, then defaults. A bad flag is a *FlagError, a bad
// variable an *EnvError; a bad file is an error naming it.
func Resolve(src Sources) (*Settings, error) {
	e, err := Load(src)
	if err != nil {
		return nil, err
	}
	// A pull request can change .review.yaml: it must not be able to send
	// the API key to a host of its choosing.
	if s := e.values["base_url"].src; strings.HasPrefix(s, repoConfigName+":") && src.Getenv("OPENAI_API_KEY") != "" {
		return nil, fmt.Errorf("%s sets base_url, but a repository file may not choose where OPENAI_API_KEY is sent: set OPENAI_BASE_URL or --base-url instead, or unset OPENAI_API_KEY for a keyless local server", s)
	}
	// Nor switch off the redaction of its own secrets where it runs
	// unattended.
	if s := e.values["redact"]; !e.Settings.Redact && strings.HasPrefix(s.src, repoConfigName+":") && src.CI {
		return nil, fmt.Errorf("%s sets redact: false, which a repository file may not do in CI: a pull request could send its secrets to the model; pass --no-redact in a trusted job instead", s.src)
	}
	return &e.Settings, nil
}

// Load resolves the settings as Resolve does, keeping the source of each
// value for `review config`. It does not refuse a repository's base_url:
// `review config` shows what a file sets, and sends nothing.
func Load(src Sources) (*Effective, error) {
	flags, err := flagLayer(src.Flag)
	if err != nil {
		return nil, err
	}
	env, err := envLayer(src.Getenv)
	if err != nil {
		return nil, err
	}
	e := &Effective{values: map[string]value{}, dir: src.Dir}
	repo := configFile{display: repoConfigName}
	if top := repoTop(src.Dir); top != "" {
		repo.path, repo.within = filepath.Join(top, repoConfigName), top
	}
	user := configFile{path: userConfig(src.Getenv)}
	user.display = user.path
	var repoLayer layer
	if src.RepoRev != "" {
		repo.display, repo.rev = repoConfigName+"@"+src.RepoRev, src.RepoRev
		repoLayer, err = loadConfigAt(&repo, src.Dir)
	} else {
		repoLayer, err = loadConfig(&repo)
	}
	if err != nil {
		return nil, err
	}
	if repo.found {
		e.Settings.RepoConfig = repo.display
	}
	userLayer, err := loadConfig(&user)
	if err != nil {
		return nil, err
	}
	e.files = []configFile{repo, user}

	layers := []layer{flags, env, repoLayer, userLayer}
	for _, k := range keys {
		for _, l := range layers {
			if v, ok := l[k.Name]; ok {
				e.values[k.Name] = v
				break
			}
		}
	}
	if err := e.loadLearnings(src); err != nil {
		return nil, err
	}
	if err := e.apply(); err != nil {
		return nil, err
	}
	return e, nil
}

// apply fills in defaults for what no layer set and builds the settings.
func (e *Effective) apply() error {
	def := func(name string, v any) {
		if _, ok := e.values[name]; !ok {
			e.values[name] = value{v: v, src: sourceDefault}
		}
	}
	def("model", DefaultModel)
	def("base_url", llm.DefaultBaseURL)
	def("store", "")
	def("tokenizer", conversation.Tiktoken)
	def("off_diff", string(result.KeepFileLevel))
	def("fail_on", result.Severity(""))
	def("instructions", "")
	def("learnings", learn.Path)
	def("ignore", []string(nil))
	def("severity", map[string]result.Severity(nil))
	def("price", nil)
	def("timeout", llm.DefaultTimeout)
	def("deadline", time.Duration(0))
	def("stream", true)
	def("first_byte_timeout", llm.DefaultFirstByteTimeout)
	def("max_units", 0)
	def("prompt_budget", result.DefaultPromptBudget)
	if v, ok := e.values["jobs"]; ok {
		e.Settings.JobsFrom = setBy(v.src, "jobs")
	}
	// Unset, a run asks a self-hosted server how many requests it serves
	// at once; what is shown is the rule's answer when it does not say.
	jobs := result.DefaultJobs
	if llm.SelfHosted(e.values["base_url"].v.(string)) {
		jobs = result.LocalJobs
	}
	def("jobs", jobs)
	def("summarize_units", false)
	def("max_prompt_tokens", 0)
	def("max_cost", 0.0)
	def("find_copies", false)
	def("navigation", true)
	def("overview_symbols", false)
	def("review_data", false)
	def("exact_counts", false)
	def("redact", true)
	def("allow_secrets", []string(nil))
	def("allow_secret_rules", []string(nil))
	def("report_all_secrets", false)
	def("ungrounded", string(result.UngroundedSummary))
	def("min_severity", result.Severity(""))
	def("max_findings", 0)
	def("verify", false)
	def("headers", map[string]string(nil))
	def("extra_body", map[string]any(nil))

	s := &e.Settings
	s.Model = e.values["model"].v.(string)
	s.BaseURL = e.values["base_url"].v.(string)
	s.BaseURLFrom = setBy(e.values["base_url"].src, "base_url")
	s.Store = e.values["store"].v.(string)
	s.Tokenizer = e.values["tokenizer"].v.(string)
	s.OffDiff = result.OffDiff(e.values["off_diff"].v.(string))
	switch fo := e.values["fail_on"].v.(type) {
	case result.Severity:
		s.FailOn = fo
	case FailOn:
		s.FailOn, s.FailUnreviewed = fo.Severity, fo.Unreviewed
	}
	s.Instructions = e.values["instructions"].v.(string)
	s.Ignore = e.values["ignore"].v.([]string)
	s.Severity = e.values["severity"].v.(map[string]result.Severity)
	if p, ok := e.values["price"].v.(llm.Price); ok {
		s.Price = &p
	}
	s.Timeout = e.values["timeout"].v.(time.Duration)
	s.Deadline = e.values["deadline"].v.(time.Duration)
	s.Stream = e.values["stream"].v.(bool)
	s.FirstByteTimeout = e.values["first_byte_timeout"].v.(time.Duration)
	s.FindCopies = e.values["find_copies"].v.(bool)
	s.NoNavigation = !e.values["navigation"].v.(bool)
	s.OverviewSymbols = e.values["overview_symbols"].v.(bool)
	s.ReviewData = e.values["review_data"].v.(bool)
	s.ExactCounts = e.values["exact_counts"].v.(bool)
	s.Redact = e.values["redact"].v.(bool)
	s.AllowSecrets = e.values["allow_secrets"].v.([]string)
	s.AllowSecretRules = e.values["allow_secret_rules"].v.([]string)
	s.ReportAllSecrets = e.values["report_all_secrets"].v.(bool)
	s.Headers = e.values["headers"].v.(map[string]string)
	s.ExtraBody = e.values["extra_body"].v.(map[string]any)
	if s.JobsFrom != "" {
		// Unset, a run asks the server (review.JobsFor).
		s.Jobs = e.values["jobs"].v.(int)
	}
	s.SummarizeUnits = e.values["summarize_units"].v.(bool)
	s.Quiet = result.Quiet{
		Learnings:   s.Learnings,
		Ungrounded:  result.UngroundedPolicy(e.values["ungrounded"].v.(string)),
		MinSeverity: e.values["min_severity"].v.(result.Severity),
		MaxFindings: e.values["max_findings"].v.(int),
		Severity:    s.Severity,
	}
	s.Verify = e.values["verify"].v.(bool)
	s.Caps = result.Caps{
		MaxUnits:        e.values["max_units"].v.(int),
		Budget:          e.values["prompt_budget"].v.(int),
		MaxPromptTokens: e.values["max_prompt_tokens"].v.(int),
		MaxCost:         e.values["max_cost"].v.(float64),
	}
	if s.Caps.MaxCost > 0 {
		// A cost cap is only as good as the price it converts with.
		price, ok := llm.PriceFor(s.Model)
		if s.Price != nil {
			price, ok = *s.Price, true
		}
		if !ok || price.Prompt <= 0 {
			c := e.values["max_cost"]
			err := fmt.Errorf("max_cost (%s) needs the price of model %s, which is not known: set price: {prompt: …, cached: …, completion: …} (USD per million tokens) in the configuration, or cap with max_prompt_tokens", c.src, s.Model)
			if strings.HasPrefix(c.src, "flag ") {
				return &FlagError{Err: err}
			}
			return err
		}
		s.Caps.Price = &price
	}

	// Budgets default per model, and the answer reserve per window.
	w, windowSet := e.values["context_window"]
	if windowSet {
		s.WindowFrom = setBy(w.src, "context_window")
	}
	_, s.ReserveSet = e.values["answer_reserve"]
	s.WindowUnknown = !windowSet && llm.Lookup(s.Model).Name == ""
	b := conversation.DefaultBudget(llm.Lookup(s.Model).Window)
	b.PreviewChars, b.PreviewLines = toolmem.DefaultPreviewChars, toolmem.DefaultPreviewLines
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
	b.HistorySelect = conversation.SelectRelevance
	if v, ok := e.values["history_select"]; ok {
		b.HistorySelect = v.v.(string)
	}
	def("history_select", b.HistorySelect)
	b.PruneTarget = conversation.DefaultPruneTarget
	if v, ok := e.values["prune_target"]; ok {
		b.PruneTarget = v.v.(float64)
	}
	def("prune_target", b.PruneTarget)
	if v, ok := e.values["static_share"]; ok {
		b.StaticShare = v.v.(float64)
	}
	def("static_share", b.StaticShare)

	if b.AnswerReserve >= b.ContextWindow {
		w, r := e.values["context_window"], e.values["answer_reserve"]
		err := fmt.Errorf("answer_reserve %d (%s) must be less than context_window %d (%s)", b.AnswerReserve, r.src, b.ContextWindow, w.src)
		if fromCommandLine(w.src) && fromCommandLine(r.src) {
			return &FlagError{Err: err}
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
// conflict between them is a mistake in the command line rather than in a
// configuration file.
// setBy names, for advice in an error, what the user set a value with:
// "--base-url", "OPENAI_BASE_URL", "base_url in .review.yaml:3"; "" for
// a default.
func setBy(src, key string) string {
	switch {
	case src == sourceDefault:
		return ""
	case strings.HasPrefix(src, "flag "):
		return strings.TrimPrefix(src, "flag ")
	case strings.HasPrefix(src, "env "):
		return strings.TrimPrefix(src, "env ")
	}
	return key + " in " + src
}

func fromCommandLine(src string) bool {
	return src == sourceDefault || strings.HasPrefix(src, "flag ")
}

// flagLayer reads the flags given on the command line.
func flagLayer(flag func(string) (string, bool)) (layer, error) {
	l := layer{}
	if flag == nil {
		return l, nil
	}
	for _, k := range keys {
		if k.Flag == "" {
			continue
		}
		s, ok := flag(k.Flag)
		if !ok {
			continue
		}
		v, err := parseString(k, "--"+k.Flag, s)
		if err != nil {
			return nil, &FlagError{Err: err}
		}
		if k.negate {
			v = !v.(bool)
		}
		l[k.Name] = value{v: v, src: "flag --" + k.Flag}
	}
	return l, nil
}

// envLayer reads the settings environment variables give.
func envLayer(getenv func(string) string) (layer, error) {
	l := layer{}
	for _, k := range keys {
		if k.Env == "" {
			continue
		}
		s := getenv(k.Env)
		if s == "" {
			continue
		}
		v, err := parseString(k, "$"+k.Env, s)
		if err != nil {
			return nil, &EnvError{Err: err}
		}
		l[k.Name] = value{v: v, src: "env " + k.Env}
	}
	return l, nil
}
