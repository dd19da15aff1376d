package review

import (
	"context"
	"fmt"
	"testing"

	"github.com/reviewdev/review/tools/toolstest"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/review/reviewtest"
)

// BenchmarkFirstRequest measures what a review of a large change costs
// before its first request: loading and parsing the diff, rendering the
// overview, packing the units within the default cap, planning, and
// recording the run, for changes of 1,000, 3,000 and 10,000 files, with
// the estimate and with tiktoken. It reports the plan: units, the units
// the whole change takes, the first request's tokens and the bound on
// prompt tokens.
//
//	go test -run '^$' -bench FirstRequest -benchtime 3x ./review
func BenchmarkFirstRequest(b *testing.B) {
	isolateGit(b)
	budget := conversation.DefaultBudget(llm.Lookup(testModel).Window)
	for _, n := range []int{1000, 3000, 10000} {
		dir := b.TempDir()
		if err := reviewtest.GenerateRepo(dir, n, 0, nil); err != nil {
			b.Fatal(err)
		}
		for _, tok := range []string{conversation.Estimate, conversation.Tiktoken} {
			b.Run(fmt.Sprintf("files=%d/%s", n, tok), func(b *testing.B) {
				var plan *Plan
				for b.Loop() {
					var err error
					plan, err = Prepare(context.Background(), Options{Dir: dir, Base: "main", Config: result.Config{Model: testModel, Tokenizer: tok, Budget: budget, Caps: result.Caps{Budget: result.DefaultPromptBudget}}})
					if err != nil {
						b.Fatal(err)
					}
					st := toolstest.Store(b)
					a := &Agent{Config: result.Config{Model: testModel, Budget: budget}, Store: st, Counter: plan.Counter}
					if _, err := a.Start(plan, Settings{Budget: budget}); err != nil {
						b.Fatal(err)
					}
					st.Close()
				}
				e := plan.Estimate
				b.ReportMetric(float64(len(plan.Diff.Files)), "files")
				b.ReportMetric(float64(e.Units), "units")
				b.ReportMetric(float64(e.TotalUnits), "total-units")
				b.ReportMetric(float64(e.FirstRequestTokens), "first-request-tokens")
				b.ReportMetric(float64(e.MaxPromptTokens), "max-prompt-tokens")
				b.ReportMetric(float64(e.MaxRequests), "max-requests")
			})
		}
	}
}
