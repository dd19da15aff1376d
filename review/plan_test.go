package review

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/review/reviewtest"
)

func TestPrepareWindowTooSmall(t *testing.T) {
	dir := unitsRepo(t)
	for _, tc := range []struct {
		window int
		ok     bool
	}{{2000, false}, {3000, false}, {6000, true}, {9000, true}} {
		b := conversation.DefaultBudget(tc.window)
		p, err := Prepare(context.Background(), Options{Dir: dir, Base: "main", Config: result.Config{Model: "gpt-4o", Budget: b, Caps: result.Caps{Budget: result.DefaultPromptBudget}}})
		if tc.ok {
			if err != nil {
				t.Fatalf("window %d: %v", tc.window, err)
			}
			// Whatever the window, the first request fits its input.
			if p.Tokens() > b.Input() {
				t.Errorf("window %d: first request %d tokens, input %d", tc.window, p.Tokens(), b.Input())
			}
			continue
		}
		var we *WindowError
		if !errors.Is(err, ErrWindowTooSmall) || !errors.As(err, &we) || we.Window != tc.window || we.Want <= tc.window {
			t.Errorf("window %d: error %v, want one saying the window is too small and a larger one", tc.window, err)
		}
	}
}

func TestPrepareCaps(t *testing.T) {
	dir := unitsRepo(t)
	prepare := func(c result.Caps) (*Plan, error) {
		return Prepare(context.Background(), Options{Dir: dir, Base: "main", Config: result.Config{Model: "gpt-4o", Budget: unitsBudget(), Caps: c}})
	}
	all, err := prepare(result.Caps{Budget: result.DefaultPromptBudget})
	if err != nil {
		t.Fatal(err)
	}
	e := all.Estimate
	steps := unitsBudget().MaxSteps + finalRequests
	if len(all.Units) != 3 || e.Units != 3 || e.TotalUnits != 3 || e.MinRequests != 3 || e.MaxRequests != 3*steps ||
		e.MaxPromptTokens != 3*steps*unitsBudget().Input() || e.MaxCost == nil || e.LimitedBy != "" || len(e.NotReviewed) != 0 {
		t.Fatalf("estimate %+v", e)
	}
	if e.FirstRequestTokens != all.Tokens() || e.FirstRequestTokens > unitsBudget().Input() {
		t.Errorf("first request %d tokens, plan %d, input %d", all.Tokens(), e.FirstRequestTokens, unitsBudget().Input())
	}

	// A summary written by the model from the units' reviews is one
	// request more, within the bound.
	summed, err := Prepare(context.Background(), Options{Dir: dir, Base: "main", Config: result.Config{Model: "gpt-4o", Budget: unitsBudget(), Caps: result.Caps{Budget: result.DefaultPromptBudget}, SummarizeUnits: true}})
	if err != nil {
		t.Fatal(err)
	}
	if got := summed.Estimate.MaxRequests; got != 3*steps+1 {
		t.Errorf("with --summarize-units: at most %d requests, want %d", got, 3*steps+1)
	}

	// Two units at most: gamma.go is not reviewed, and the overview says
	// so.
	two, err := prepare(result.Caps{MaxUnits: 2})
	if err != nil {
		t.Fatal(err)
	}
	if e := two.Estimate; len(two.Units) != 2 || e.LimitedBy != result.ReasonMaxUnits || e.Cap != "--max-units 2" ||
		len(e.NotReviewed) != 1 || e.NotReviewed[0].Path != "gamma.go" || e.NotReviewed[0].Hunks != 1 {
		t.Errorf("two units: %+v", e)
	}
	static := two.Messages[1].Content
	for _, want := range []string{"This review covers the first 2 of the 3 units the hunks take (--max-units 2)", "- `gamma.go` — added, +41 -0 — not reviewed: `get_file_diff {\"path\": \"gamma.go\"}`"} {
		if !strings.Contains(static, want) {
			t.Errorf("overview lacks %q:\n%s", want, static)
		}
	}
	if !strings.Contains(two.Messages[2].Content, "This is unit 1 of 2") {
		t.Errorf("first turn: %s", two.Messages[2].Content)
	}

	// A cap on tokens that affords two units' first two requests (the
	// second's counting the earlier turns it may carry).
	firsts := 2*all.guard.firsts[0] + 2*all.guard.firsts[1]
	tok, err := prepare(result.Caps{MaxPromptTokens: firsts + 100})
	if err != nil {
		t.Fatal(err)
	}
	if e := tok.Estimate; e.Units != 2 || e.LimitedBy != result.ReasonMaxPromptTokens || e.MaxPromptTokens != firsts+100 || e.MaxRequests > (firsts+100)/all.Tokens()*2 {
		t.Errorf("token cap: %+v", e)
	}
	var ce *CapError
	if _, err := prepare(result.Caps{MaxPromptTokens: all.Tokens()}); !errors.Is(err, ErrCapTooLow) || !errors.As(err, &ce) || ce.Reason != result.ReasonMaxPromptTokens {
		t.Errorf("a cap below two first requests: %v", err)
	}
	// A cost cap at a configured price.
	price := &llm.Price{Prompt: 10, Cached: 5, Completion: 20}
	cost, err := prepare(result.Caps{MaxCost: 0.2, Price: price})
	if err != nil {
		t.Fatal(err)
	}
	if e := cost.Estimate; e.LimitedBy != result.ReasonMaxCost || e.MaxCost == nil || *e.MaxCost > 0.2 || e.PriceSource != "configured" || e.Units < 1 || e.Units >= 3 {
		t.Errorf("cost cap: %+v", e)
	}
}

// TestReviewHeldToCap runs a review whose model only ever explores under
// a cap on prompt tokens: the loops are asked for their final review in
// time, nothing sent passes the cap, and what was not reviewed is said.
func TestReviewHeldToCap(t *testing.T) {
	dir := unitsRepo(t)
	explore := reviewtest.Step{ToolCalls: []reviewtest.ScriptCall{{Name: "read_file_hunk", Arguments: []byte(`{"path": "alpha.go", "start_line": 1, "end_line": 20, "revision": null}`)}}}
	srv := reviewtest.NewServer(&reviewtest.Script{Fallback: &explore}, "")
	defer srv.Close()
	b := unitsBudget()
	plan, err := Prepare(context.Background(), Options{Dir: dir, Base: "main", Config: result.Config{Model: "gpt-4o", Budget: b}})
	if err != nil {
		t.Fatal(err)
	}
	limit := 5 * plan.Tokens()
	s, _ := scratchSessionCaps(t, dir, b, srv, result.Caps{MaxPromptTokens: limit})
	res, err := s.Review(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s.guard.tokens > limit || res.Usage.Own > limit || res.Usage.Prompt > limit {
		t.Errorf("sent %d tokens (own %d, server %d), cap %d", s.guard.tokens, res.Usage.Own, res.Usage.Prompt, limit)
	}
	if len(res.NotReviewed) == 0 || res.Submitted {
		t.Errorf("not reviewed %+v, submitted %v", res.NotReviewed, res.Submitted)
	}
	for _, r := range srv.Requests() {
		if strings.Contains(string(r.Body), "exploration budget for this review is spent") {
			return
		}
	}
	t.Error("no loop was asked for its final review")
}

func TestGuard(t *testing.T) {
	price := &llm.Price{Prompt: 1, Completion: 2}
	g := &guard{hard: true, maxRequests: 3, maxTokens: 1000, maxCost: 0.01, price: price, reserve: 100, preview: 50, firsts: []int{200, 200}}
	if err := g.allow(300); err != nil {
		t.Fatal(err)
	}
	// Exploring with 300 leaves no room for a final of about 350 and the
	// second unit's two requests.
	if !g.tight(300) || g.tight(10) {
		t.Errorf("tight(300) %v, tight(10) %v", g.tight(300), g.tight(10))
	}
	g.spent(300, llm.Usage{Prompt: 320, Completion: 50})
	if g.tokens != 320 || g.requests != 1 {
		t.Errorf("spent: %d tokens, %d requests", g.tokens, g.requests)
	}
	var ce *capError
	if err := g.allow(700); !errors.As(err, &ce) || ce.Reason != result.ReasonMaxPromptTokens {
		t.Errorf("allow(700) = %v", err)
	}
	g.spent(100, llm.Usage{})
	g.spent(100, llm.Usage{})
	if err := g.allow(1); !errors.As(err, &ce) || ce.Reason != result.ReasonMaxRequests {
		t.Errorf("a fourth request: %v", err)
	}
	var none *guard
	if none.allow(1<<30) != nil || none.tight(1<<30) {
		t.Error("no guard, no bounds")
	}
	// Without caps on tokens or cost the guard only counts.
	soft := &guard{maxRequests: 1, maxTokens: 10}
	soft.spent(100, llm.Usage{})
	if soft.allow(1<<20) != nil || soft.tight(1<<20) || soft.tokens != 100 {
		t.Error("a guard without caps refused a request")
	}
}
