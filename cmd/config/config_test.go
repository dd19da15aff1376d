package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/reviewdev/review/cmd/config/configtest"

	"github.com/spf13/pflag"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/review/learn"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/toolmem"
)

// configEnv is a configtest.Env with a way to resolve command lines.
type configEnv struct{ *configtest.Env }

func newConfigEnv(t *testing.T) *configEnv { return &configEnv{configtest.New(t)} }

// resolveArgs parses args as the command line's flags and loads the
// settings. The flags are strings here: the commands register them typed,
// but hand their text to Load alike.
func (c *configEnv) resolveArgs(args []string, env map[string]string) (*Effective, error) {
	fl := pflag.NewFlagSet("review", pflag.ContinueOnError)
	for _, k := range Keys() {
		if k.Flag != "" {
			fl.String(k.Flag, "", "")
		}
	}
	if err := fl.Parse(args); err != nil {
		return nil, err
	}
	flag := func(name string) (string, bool) {
		f := fl.Lookup(name)
		return f.Value.String(), f.Changed
	}
	return Load(Sources{Flag: flag, Getenv: c.Getenv(env), Dir: c.Repo})
}

func TestResolvePrecedence(t *testing.T) {
	c := newConfigEnv(t)
	user := c.UserFile()
	tests := []struct {
		name       string
		key        string
		user, repo string
		env        map[string]string
		args       []string
		want       any
		wantSrc    string
	}{
		{"model default", "model", "", "", nil, nil, DefaultModel, "default"},
		{"model user", "model", "model: u\n", "", nil, nil, "u", user + ":1"},
		{"model repo over user", "model", "model: u\n", "\nmodel: r\n", nil, nil, "r", ".review.yaml:2"},
		{"model env over repo", "model", "model: u\n", "model: r\n", map[string]string{"REVIEW_MODEL": "e"}, nil, "e", "env REVIEW_MODEL"},
		{"model flag over env", "model", "model: u\n", "model: r\n", map[string]string{"REVIEW_MODEL": "e"}, []string{"--model", "f"}, "f", "flag --model"},

		{"base_url default", "base_url", "", "", nil, nil, llm.DefaultBaseURL, "default"},
		{"base_url user", "base_url", "base_url: http://u/v1\n", "", nil, nil, "http://u/v1", user + ":1"},
		{"base_url repo", "base_url", "base_url: http://u/v1\n", "base_url: http://r/v1\n", nil, nil, "http://r/v1", ".review.yaml:1"},
		{"base_url env", "base_url", "", "base_url: http://r/v1\n", map[string]string{"OPENAI_BASE_URL": "http://e/v1"}, nil, "http://e/v1", "env OPENAI_BASE_URL"},
		{"base_url flag", "base_url", "", "", map[string]string{"OPENAI_BASE_URL": "http://e/v1"}, []string{"--base-url=http://f/v1"}, "http://f/v1", "flag --base-url"},

		{"fail_on default", "fail_on", "", "", nil, nil, result.Severity(""), "default"},
		{"fail_on user", "fail_on", "fail_on: low\n", "", nil, nil, result.Low, user + ":1"},
		{"fail_on repo", "fail_on", "fail_on: low\n", "fail_on: Medium\n", nil, nil, result.Medium, ".review.yaml:1"},
		{"fail_on env", "fail_on", "fail_on: low\n", "fail_on: medium\n", map[string]string{"REVIEW_FAIL_ON": "high"}, nil, result.High, "env REVIEW_FAIL_ON"},
		{"fail_on unreviewed", "fail_on", "fail_on: high, unreviewed\n", "", nil, nil, FailOn{Severity: result.High, Unreviewed: true}, user + ":1"},
		{"fail_on unreviewed alone", "fail_on", "", "", nil, []string{"--fail-on", "unreviewed"}, FailOn{Unreviewed: true}, "flag --fail-on"},
		{"fail_on flag none", "fail_on", "fail_on: low\n", "fail_on: medium\n", map[string]string{"REVIEW_FAIL_ON": "high"}, []string{"--fail-on", "none"}, result.Severity(""), "flag --fail-on"},

		{"max_steps default", "max_steps", "", "", nil, nil, 20, "default"},
		{"max_steps user", "max_steps", "max_steps: 3\n", "", nil, nil, 3, user + ":1"},
		{"max_steps repo", "max_steps", "max_steps: 3\n", "max_steps: 4\n", nil, nil, 4, ".review.yaml:1"},
		{"max_steps flag", "max_steps", "max_steps: 3\n", "max_steps: 4\n", nil, []string{"--max-steps", "5"}, 5, "flag --max-steps"},

		// A flag given as its own default still wins over the files.
		{"off_diff flag equal to default", "off_diff", "", "off_diff: drop\n", nil, []string{"--off-diff", "file"}, "file", "flag --off-diff"},
		{"off_diff repo", "off_diff", "", "off_diff: drop\n", nil, nil, "drop", ".review.yaml:1"},
		{"tokenizer user", "tokenizer", "tokenizer: estimate\n", "", nil, nil, "estimate", user + ":1"},

		// Files replace each other's lists and mappings whole.
		{"ignore repo replaces user", "ignore", "ignore: [a/**]\n", "ignore: [b/**, c]\n", nil, nil, []string{"b/**", "c"}, ".review.yaml:1"},
		{"ignore emptied by repo", "ignore", "ignore: [a/**]\n", "ignore: []\n", nil, nil, []string{}, ".review.yaml:1"},
		{"null counts as unset", "ignore", "ignore: [a/**]\n", "ignore:\n", nil, nil, []string{"a/**"}, user + ":1"},
		{"severity repo replaces user", "severity", "severity: {style: info}\n", "severity: {Security: high}\n", nil, nil, map[string]result.Severity{"security": result.High}, ".review.yaml:1"},
		{"instructions user", "instructions", "instructions: be brief\n", "", nil, nil, "be brief", user + ":1"},

		// Budget defaults follow the model and the window.
		{"window default per model", "context_window", "", "model: gpt-4\n", nil, nil, 8192, "default"},
		{"reserve follows window", "answer_reserve", "", "context_window: 4000\n", nil, nil, 1000, "default"},
		{"reserve set below window", "answer_reserve", "answer_reserve: 100\n", "", nil, []string{"--context-window", "4000"}, 100, user + ":1"},
		{"static_share flag", "static_share", "static_share: 0.25\n", "", nil, []string{"--static-share", "0.75"}, 0.75, "flag --static-share"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.Write(t, tt.repo, tt.user)
			e, err := c.resolveArgs(tt.args, tt.env)
			if err != nil {
				t.Fatal(err)
			}
			got := e.values[tt.key]
			if !reflect.DeepEqual(got.v, tt.want) || got.src != tt.wantSrc {
				t.Errorf("%s = %#v from %q, want %#v from %q", tt.key, got.v, got.src, tt.want, tt.wantSrc)
			}
		})
	}
}

func TestResolveSettings(t *testing.T) {
	c := newConfigEnv(t)
	c.Write(t, `# Repository settings.
instructions: |
  Errors are wrapped with %w.
  No panics on bad input.
ignore:
  - gen/**
  - "*.pb.go"
fail_on: high
severity:
  style: info
  Security: critical
max_steps: 8
preview_chars: 500
history_turns: 0
ungrounded: drop
min_severity: Medium
max_findings: 7
verify: true
`, `model: gpt-4o
base_url: http://localhost:11434/v1
tokenizer: estimate
off_diff: drop
context_window: 32000
answer_reserve: 2000
static_share: 0.4
history_chars: 9000
price: {prompt: 2.5, completion: 10}
max_units: 5
prompt_budget: 0
max_prompt_tokens: 100000
max_cost: 3
find_copies: true
`)
	e, err := c.resolveArgs(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{
		Config: result.Config{
			Model:        "gpt-4o",
			BaseURL:      "http://localhost:11434/v1",
			BaseURLFrom:  "base_url in " + c.UserFile() + ":2",
			Tokenizer:    conversation.Estimate,
			OffDiff:      result.DropOffDiff,
			Instructions: "Errors are wrapped with %w.\nNo panics on bad input.\n",
			Ignore:       []string{"gen/**", "*.pb.go"},
			// Without a cached price, cached input costs the prompt price.
			Price: &llm.Price{Prompt: 2.5, Cached: 2.5, Completion: 10},
			// The cost cap is reckoned at the configured price.
			Caps:       result.Caps{MaxUnits: 5, MaxPromptTokens: 100000, MaxCost: 3, Price: &llm.Price{Prompt: 2.5, Cached: 2.5, Completion: 10}},
			FindCopies: true,
			Redact:     true,
			ReserveSet: true,
			Quiet: result.Quiet{Ungrounded: result.UngroundedDrop, MinSeverity: result.Medium, MaxFindings: 7,
				Severity: map[string]result.Severity{"style": result.Info, "security": result.Critical}},
			Verify:     true,
			WindowFrom: "context_window in " + c.UserFile() + ":5",
		},
		FailOn:     result.High,
		Severity:   map[string]result.Severity{"style": result.Info, "security": result.Critical},
		RepoConfig: ".review.yaml", LearningsSetting: learn.Path,
	}
	want.Budget = conversation.DefaultBudget(llm.Lookup("gpt-4o").Window)
	want.Budget.ContextWindow = 32000
	want.Budget.AnswerReserve = 2000
	want.Budget.StaticShare = 0.4
	want.Budget.PreviewChars = 500
	want.Budget.PreviewLines = toolmem.DefaultPreviewLines // the store owns the preview defaults
	want.Budget.MaxSteps = 8
	want.Budget.HistoryTurns = 0
	want.Budget.HistoryChars = 9000
	want.Budget.HistorySelect = conversation.SelectRelevance
	want.Budget.PruneTarget = conversation.DefaultPruneTarget
	want.Timeout = llm.DefaultTimeout
	want.Stream, want.FirstByteTimeout = true, llm.DefaultFirstByteTimeout
	if !reflect.DeepEqual(e.Settings, want) {
		t.Errorf("settings:\n got %+v\nwant %+v", e.Settings, want)
	}
	for _, k := range keys {
		if _, ok := e.values[k.Name]; !ok {
			t.Errorf("no value for %s", k.Name)
		}
	}
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"unknown key", "model: a\n\nmodle: b\n", `.review.yaml:3: unknown key "modle" (did you mean "model"?)`},
		{"unknown key dashes", "max-steps: 3\n", `.review.yaml:1: unknown key "max-steps" (did you mean "max_steps"?)`},
		{"unknown key case", "Model: x\n", `.review.yaml:1: unknown key "Model" (did you mean "model"?)`},
		{"unknown key far", "colour: red\n", `.review.yaml:1: unknown key "colour"`},
		{"flag-only key", "store: /tmp/x\n", `.review.yaml:1: store cannot be set in a configuration file: use --store or REVIEW_STORE`},
		{"duplicate key", "model: a\nmodel: b\n", `.review.yaml:2: model is set twice (first on line 1); keep one`},
		{"string wanted", "model: [a, b]\n", `.review.yaml:1: model must be text, got a list`},
		{"int wanted", "context_window: 128k\n", `.review.yaml:1: context_window must be a whole number, got "128k"`},
		{"int not float", "max_steps: 2.5\n", `.review.yaml:1: max_steps must be a whole number, got "2.5"`},
		{"int not quoted", "max_steps: \"5\"\n", `.review.yaml:1: max_steps must be a whole number, got "5"`},
		{"float wanted", "static_share: half\n", `.review.yaml:1: static_share must be a number, got "half"`},
		{"share range", "static_share: 1.5\n", `.review.yaml:1: static_share must be more than 0 and at most 1, got 1.5 (it is the static share of the input budget)`},
		{"share nan", "static_share: .nan\n", `.review.yaml:1: static_share must be more than 0 and at most 1, got NaN (it is the static share of the input budget)`},
		{"positive budget", "context_window: 0\n", `.review.yaml:1: context_window must be at least 1, got 0`},
		{"negative history", "history_chars: -1\n", `.review.yaml:1: history_chars must be at least 0, got -1`},
		{"small preview", "preview_chars: 10\n", `.review.yaml:1: preview_chars must be at least 200, got 10`},
		{"enum", "tokenizer: words\n", `.review.yaml:1: unknown tokenizer "words": use tiktoken, estimate or server`},
		{"off_diff", "off_diff: keep\n", `.review.yaml:1: unknown off_diff "keep": use file or drop`},
		{"fail_on", "fail_on: severe\n", `.review.yaml:1: unknown fail_on "severe": use none, info, low, medium, high or critical, and unreviewed (high,unreviewed)`},
		{"empty model", "model: \"  \"\n", `.review.yaml:1: model must not be empty`},
		{"base url", "base_url: localhost:11434\n", `.review.yaml:1: base_url must be an http or https URL, such as https://api.openai.com/v1, got "localhost:11434"`},
		{"ignore not list", "ignore: gen/**\n", `.review.yaml:1: ignore must be a list of globs, such as ["gen/**", "*.pb.go"], got "gen/**"`},
		{"ignore bad glob", "ignore:\n  - ok/**\n  - \"gen/[\"\n", `.review.yaml:3: ignore entry "gen/[" is not a valid glob (check its brackets and braces)`},
		{"ignore empty entry", "ignore: [\"\"]\n", `.review.yaml:1: ignore entries must be globs, got ""`},
		{"severity not map", "severity: high\n", `.review.yaml:1: severity must map finding categories to severities, such as {style: info, security: high}, got "high"`},
		{"severity bad name", "severity:\n  style: info\n  security: urgent\n", `.review.yaml:3: severity "security" must be info, low, medium, high or critical, got "urgent"`},
		{"severity dup", "severity: {style: info, Style: low}\n", `.review.yaml:1: severity sets category "style" twice`},
		{"price unknown", "price: {prompt: 1, completion: 2, cache: 0.5}\n", `.review.yaml:1: price has unknown key "cache" (did you mean "cached"?)`},
		{"price negative", "price:\n  prompt: -1\n  completion: 2\n", `.review.yaml:2: price prompt must be a number of USD per million tokens, 0 or more, got "-1"`},
		{"price incomplete", "price: {prompt: 1}\n", `.review.yaml:1: price needs prompt and completion, such as {prompt: 2.5, completion: 10}`},
		{"not a mapping", "- model\n", `.review.yaml:1: must be a mapping of keys to values, such as "model: gpt-4o"`},
		{"syntax", "model: a\n  b: c\nd\n", `.review.yaml:2: invalid YAML: mapping values are not allowed in this context`},
		{"two documents", "model: a\n---\nmodel: b\n", `.review.yaml:2: holds a second YAML document; keep the settings in one`},
		{"tab indent", "ignore:\n\t- a\n", `.review.yaml:2: invalid YAML: found character that cannot start any token`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseConfig(".review.yaml", []byte(tt.in))
			if err == nil {
				t.Fatalf("no error, want %s", tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

func TestParseConfigAccepts(t *testing.T) {
	tests := []struct {
		name, in string
		want     layer
	}{
		{"empty", "", layer{}},
		{"comments", "# nothing yet\n", layer{}},
		{"document marker", "---\n", layer{}},
		{"null document", "~\n", layer{}},
		{"null value", "model:\nmax_steps: ~\n", layer{}},
		{"anchor", "model: &m gpt-4o\n", layer{"model": {v: "gpt-4o", src: "f:1"}}},
		{"float from int", "static_share: 1\n", layer{"static_share": {v: 1.0, src: "f:1"}}},
		{"fail_on none", "fail_on: none\n", layer{"fail_on": {v: result.Severity(""), src: "f:1"}}},
		{"price with cached", "price: {prompt: 2, cached: 0.5, completion: 8}\n", layer{"price": {v: llm.Price{Prompt: 2, Cached: 0.5, Completion: 8}, src: "f:1"}}},
		{"alias", "severity: {style: &s info, docs: *s}\n", layer{"severity": {v: map[string]result.Severity{"style": result.Info, "docs": result.Info}, src: "f:1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseConfig("f", []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

// TestResolveErrors checks that each kind of mistake names its source, and
// that only mistakes in the command line are FlagErrors.
func TestResolveErrors(t *testing.T) {
	c := newConfigEnv(t)
	tests := []struct {
		name       string
		repo, user string
		env        map[string]string
		args       []string
		want       string
		flag       bool // a mistake in the command line
	}{
		{"bad flag", "", "", nil, []string{"--tokenizer", "words"}, `unknown --tokenizer "words": use tiktoken, estimate or server`, true},
		{"zero window flag", "", "", nil, []string{"--context-window", "0"}, `--context-window must be at least 1, got 0`, true},
		{"bad env", "", "", map[string]string{"REVIEW_FAIL_ON": "bogus"}, nil, `unknown $REVIEW_FAIL_ON "bogus": use none, info, low, medium, high or critical`, false},
		{"bad base url env", "", "", map[string]string{"OPENAI_BASE_URL": "ftp://x"}, nil, `$OPENAI_BASE_URL must be an http or https URL, such as https://api.openai.com/v1, got "ftp://x"`, false},
		{"bad repo file", "modle: x\n", "", nil, nil, `.review.yaml:1: unknown key "modle" (did you mean "model"?)`, false},
		{"bad user file", "", "max_steps: many\n", nil, nil, c.UserFile() + `:1: max_steps must be a whole number, got "many"`, false},
		{"reserve over window from files", "answer_reserve: 5000\n", "context_window: 4000\n", nil, nil,
			"answer_reserve 5000 (.review.yaml:1) must be less than context_window 4000 (" + c.UserFile() + ":1)", false},
		{"reserve over window from flags", "", "", nil, []string{"--context-window", "4000", "--answer-reserve", "4000"},
			"answer_reserve 4000 (flag --answer-reserve) must be less than context_window 4000 (flag --context-window)", true},
		{"cost cap without a price", "", "", nil, []string{"--model", "my-local-model", "--max-cost", "2"},
			"max_cost (flag --max-cost) needs the price of model my-local-model, which is not known: set price:", true},
		{"cost cap in a file without a price", "model: my-local-model\nmax_cost: 2\n", "", nil, nil,
			"max_cost (.review.yaml:2) needs the price of model my-local-model", false},
		{"negative cost cap", "", "", nil, []string{"--max-cost", "-1"}, "--max-cost must be 0 (no limit) or more, got -1", true},
		{"bad find copies", "", "", nil, []string{"--find-copies=maybe"}, `--find-copies must be true or false, got "maybe"`, true},
		{"bad find copies in a file", "find_copies: yes please\n", "", nil, nil, `.review.yaml:1: find_copies must be true or false, got "yes please"`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.Write(t, tt.repo, tt.user)
			_, err := c.resolveArgs(tt.args, tt.env)
			if err == nil {
				t.Fatalf("no error, want %s", tt.want)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error\n got %s\nwant %s", err, tt.want)
			}
			var fe *FlagError
			if got := errors.As(err, &fe); got != tt.flag {
				t.Errorf("flag error %v, want %v", got, tt.flag)
			}
		})
	}
}

// TestRepoConfigLinks checks that the repository's file, which comes with
// the change under review, cannot make review read outside the repository
// or block on a device.
func TestRepoConfigLinks(t *testing.T) {
	c := newConfigEnv(t)
	outside := filepath.Join(t.TempDir(), "secret.yaml")
	if err := os.WriteFile(outside, []byte("model: leaked\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.Repo, "conf.yaml"), []byte("model: linked\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(c.Repo, ".review.yaml")
	tests := []struct {
		name, target string
		want         string // model, or the error
	}{
		{"inside", "conf.yaml", "linked"},
		{"outside", outside, ".review.yaml: is a link to a file outside the repository; commit the file itself"},
		{"device", os.DevNull, ".review.yaml: is not a regular file"},
		{"directory", ".git", ".review.yaml: is not a regular file"},
		{"dangling", "nothing-here", DefaultModel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(link)
			if err := os.Symlink(tt.target, link); err != nil {
				t.Skip("no symbolic links here:", err)
			}
			e, err := c.resolveArgs(nil, nil)
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				got = e.Model
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestResolveOutsideRepository(t *testing.T) {
	c := newConfigEnv(t)
	c.Write(t, "", "model: u\n")
	e, err := Load(Sources{Getenv: c.Getenv(nil), Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if e.Model != "u" || e.files[0].path != "" || !e.files[1].found {
		t.Errorf("model %q, files %+v; want the user file only", e.Model, e.files)
	}
}

func TestUserConfig(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"xdg", map[string]string{"XDG_CONFIG_HOME": "/x/cfg", "HOME": "/h"}, "/x/cfg/review/config.yaml"},
		{"home", map[string]string{"HOME": "/h"}, "/h/.config/review/config.yaml"},
		{"relative xdg ignored", map[string]string{"XDG_CONFIG_HOME": "cfg", "HOME": "/h"}, "/h/.config/review/config.yaml"},
		{"nothing", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := userConfig(func(k string) string { return tt.env[k] }); got != filepath.FromSlash(tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSuggest(t *testing.T) {
	known := FileKeys()
	tests := []struct{ in, want string }{
		{"modle", "model"},
		{"mdoel", "model"},
		{"base-url", "base_url"},
		{"baseurl", "base_url"},
		{"failon", "fail_on"},
		{"Instructions", "instructions"},
		{"ignores", "ignore"},
		{"severities", ""},
		{"x", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := suggest(tt.in, known); got != tt.want {
			t.Errorf("suggest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzParseConfig feeds configuration files, which arrive with the change
// under review, to the parser: it must never panic, and every error is one
// line that names the file.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		"",
		"model: gpt-4o\nignore: [gen/**]\nseverity: {style: info}\nprice: {prompt: 1, completion: 2}\n",
		"instructions: |\n  a\n  b\n",
		"a: &x [*x]\n",
		"severity: {? [a]: b}\n",
		"price: {prompt: .inf, completion: 1}\n",
		"ignore: [*a]\n",
		"- x\n- y\n",
		"model: a\n---\n",
		"\xff\xfe",
		"context_window: 99999999999999999999\n",
		"<<: {model: x}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := parseConfig("cfg.yaml", data)
		if err == nil {
			return
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "cfg.yaml:") {
			t.Errorf("error does not name the file: %q", msg)
		}
		if strings.ContainsAny(msg, "\n\r") {
			t.Errorf("error is not one line: %q", msg)
		}
	})
}

// TestResolveRepoBaseURL checks that a repository file, which comes with
// the change under review, cannot choose where the API key is sent, while
// review config still shows what it sets.
func TestResolveRepoBaseURL(t *testing.T) {
	c := newConfigEnv(t)
	c.Write(t, "base_url: http://evil.example/v1\n", "")
	keyed := map[string]string{"OPENAI_API_KEY": "sk-test"}
	_, err := Resolve(Sources{Getenv: c.Getenv(keyed), Dir: c.Repo})
	want := ".review.yaml:1 sets base_url, but a repository file may not choose where OPENAI_API_KEY is sent"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("with a key: %v, want %s...", err, want)
	}
	if e, err := Load(Sources{Getenv: c.Getenv(keyed), Dir: c.Repo}); err != nil || e.BaseURL != "http://evil.example/v1" {
		t.Errorf("Load with a key: %v, %v; want the file's base_url shown", e, err)
	}
	if s, err := Resolve(Sources{Getenv: c.Getenv(nil), Dir: c.Repo}); err != nil || s.BaseURL != "http://evil.example/v1" {
		t.Errorf("without a key: %v, %v; want the file's base_url", s, err)
	}
	env := map[string]string{"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": "http://local/v1"}
	if s, err := Resolve(Sources{Getenv: c.Getenv(env), Dir: c.Repo}); err != nil || s.BaseURL != "http://local/v1" {
		t.Errorf("variable over the file: %v, %v; want http://local/v1", s, err)
	}
}

func TestShow(t *testing.T) {
	c := newConfigEnv(t)
	c.Write(t, configtest.ShowRepo, configtest.ShowUser)
	e, err := c.resolveArgs([]string{"--max-steps", "7"}, map[string]string{"REVIEW_FAIL_ON": "low"})
	if err != nil {
		t.Fatal(err)
	}
	var table bytes.Buffer
	if err := e.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	c.CheckTable(t, table.String(), len(keys))

	e, err = c.resolveArgs([]string{"--model", "o3"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(e.Rows())
	if err != nil {
		t.Fatal(err)
	}
	c.CheckJSON(t, data, len(keys))
}
