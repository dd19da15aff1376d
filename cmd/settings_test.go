package cmd

import (
	"testing"

	"github.com/reviewdev/review/cmd/config/configtest"

	"github.com/spf13/pflag"

	"github.com/reviewdev/review/cmd/config"
)

type configEnv = configtest.Env

func newConfigEnv(t *testing.T) *configEnv { return configtest.New(t) }

// TestResolveWithoutFlagSet covers agent flags filled in code: non-zero
// fields count as given.
func TestResolveWithoutFlagSet(t *testing.T) {
	c := newConfigEnv(t)
	c.Write(t, "model: r\nmax_steps: 4\n", "")
	a := agentFlags{Model: "f", HistoryTurns: 2}
	e, err := a.effective(c.Getenv(nil), c.Repo)
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
		MaxUnits: 1, PromptBudget: 1, Jobs: 1, SummarizeUnits: true, MaxPrompt: 1, MaxCost: 1, FindCopies: true, ReviewData: true, ExactCounts: true, NoRedact: true, HistorySelect: "recency",
		Ungrounded: "keep", MinSeverity: "high", MaxFindings: 3, Verify: true, Learnings: "none",
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
