package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"

	"github.com/reviewdev/review/cmd/config"
	"github.com/reviewdev/review/internal/gittest"
)

// configEnv is a repository and a user configuration directory for tests,
// isolated from the machine's git and user configuration.
type configEnv struct {
	repo, xdg string
	env       map[string]string
}

func newConfigEnv(t *testing.T) *configEnv {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	gittest.Isolate(t)
	dir := t.TempDir()
	c := &configEnv{repo: filepath.Join(dir, "repo"), xdg: filepath.Join(dir, "xdg")}
	gittest.Init(t, c.repo)
	if err := os.MkdirAll(filepath.Join(c.xdg, "review"), 0o755); err != nil {
		t.Fatal(err)
	}
	c.env = map[string]string{"XDG_CONFIG_HOME": c.xdg}
	return c
}

func (c *configEnv) userFile() string { return filepath.Join(c.xdg, "review", "config.yaml") }

// write sets the repository and user files; "" removes one.
func (c *configEnv) write(t *testing.T, repo, user string) {
	t.Helper()
	for path, text := range map[string]string{filepath.Join(c.repo, ".review.yaml"): repo, c.userFile(): user} {
		if text == "" {
			if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func (c *configEnv) getenv(extra map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := extra[k]; ok {
			return v
		}
		return c.env[k]
	}
}

// TestResolveWithoutFlagSet covers agent flags filled in code: non-zero
// fields count as given.
func TestResolveWithoutFlagSet(t *testing.T) {
	c := newConfigEnv(t)
	c.write(t, "model: r\nmax_steps: 4\n", "")
	a := agentFlags{Model: "f", HistoryTurns: 2}
	e, err := a.effective(c.getenv(nil), c.repo)
	if err != nil {
		t.Fatal(err)
	}
	if e.Model != "f" || e.Budget.MaxSteps != 4 || e.Budget.HistoryTurns != 2 {
		t.Errorf("model %q, max steps %d, history turns %d; want f, 4, 2", e.Model, e.Budget.MaxSteps, e.Budget.HistoryTurns)
	}
}

// TestAgentFlagsCoverKeys keeps the agent flags in step with the settings
// that name a flag: each is registered, and given reads each when filled in
// code.
func TestAgentFlagsCoverKeys(t *testing.T) {
	fl := pflag.NewFlagSet("review", pflag.ContinueOnError)
	var registered agentFlags
	registered.register(fl)
	filled := agentFlags{
		Model: "m", BaseURL: "http://x/v1", Store: "s", OffDiff: "drop", Tokenizer: "estimate", FailOn: "high",
		ContextWindow: 1, AnswerReserve: 1, StaticShare: 0.5, PruneTarget: 0.5, PreviewChars: 1, MaxSteps: 1, HistoryTurns: 1, HistoryChars: 1,
		Timeout: "1m", Deadline: "1h", Stream: true, FirstByteTimeout: "30s",
		MaxUnits: 1, Jobs: 1, SummarizeUnits: true, MaxPrompt: 1, MaxCost: 1, FindCopies: true, ReviewData: true, ExactCounts: true, NoRedact: true, HistorySelect: "recency",
	}
	for _, k := range config.Keys() {
		if k.Flag == "" {
			continue
		}
		if fl.Lookup(k.Flag) == nil {
			t.Errorf("setting %s names flag --%s, which is not registered", k.Name, k.Flag)
		}
		if _, ok := filled.given(k.Flag); !ok {
			t.Errorf("given(%q) does not read the field of --%s", k.Flag, k.Flag)
		}
	}
}
