package review

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/review/record"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/toolmem"
)

// TestUnitCosts reads each unit's requests and growth from its turn's
// steps, leaving out failed requests and the turns after the units.
func TestUnitCosts(t *testing.T) {
	step := func(turn, tokens int, failed bool) toolmem.Step {
		fig, _ := json.Marshal(record.StepFigures{Tokens: tokens})
		st := toolmem.Step{Turn: turn, Figures: fig}
		if failed {
			st.Error = "500"
		}
		return st
	}
	steps := []toolmem.Step{
		step(1, 1000, false), step(2, 2000, false), step(1, 1300, false), step(1, 1600, false),
		step(2, 2000, true), step(2, 2100, false), step(3, 9000, false), // a follow-up
	}
	got := unitCosts(steps, 2)
	want := []unitCost{{requests: 3, growth: 300}, {requests: 2, growth: 100}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("unit costs %+v, want %+v", got, want)
	}
}

// TestForecastExpected: without a forecast, the prior; with one, what the
// earlier units did on average, from each unit's own first request, within
// the input budget.
func TestForecastExpected(t *testing.T) {
	b := conversation.DefaultBudget(32000)
	var none *forecast
	if r, tok := none.expected([]int{10000}, b, 500); r != 4 || tok != 4*10000+6*500 {
		t.Errorf("prior: %d requests, %d tokens", r, tok)
	}
	f := &forecast{units: []unitCost{{requests: 2, growth: 100}, {requests: 4, growth: 50}}, runs: 1}
	// (10000 + 10100) and (10000 + 10050 + 10100 + 10150), averaged.
	if r, tok := f.expected([]int{10000}, b, 500); r != 3 || tok != (20100+40300)/2 {
		t.Errorf("forecast: %d requests, %d tokens", r, tok)
	}
	big := &forecast{units: []unitCost{{requests: 3, growth: 20000}}}
	if _, tok := big.expected([]int{10000}, b, 500); tok != 10000+2*b.Input() {
		t.Errorf("requests past the input budget: %d tokens", tok)
	}
	if fb := f.basis(b); fb.RequestsPerUnit != 3 || fb.Growth != (100+3*50)/4 || fb.Units != 2 || fb.Runs != 1 {
		t.Errorf("basis %+v", fb)
	}
}

// TestForecastFromRecordedCosts holds that a plan forecasts from the costs
// a complete review records in its run record what it forecast from the
// review's settings and steps, for reviews of one unit and of several,
// with follow-up turns and failed requests, and that it reads no steps
// then: the runs of a large store cost a start their records alone.
func TestForecastFromRecordedCosts(t *testing.T) {
	st, err := toolmem.Open(t.TempDir(), toolmem.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var runs []toolmem.Run
	for i, units := range []int{0, 1, 3, 5} {
		set := Settings{Budget: conversation.Budget{MaxSteps: 20}}
		for range units {
			set.Units = append(set.Units, diffctx.Unit{})
		}
		data, err := json.Marshal(set)
		if err != nil {
			t.Fatal(err)
		}
		r := toolmem.Run{ID: fmt.Sprintf("run-%d", i), Model: "m", Status: toolmem.StatusComplete, Started: time.Unix(int64(100+i), 0), Settings: data}
		n := 0
		for turn := 1; turn <= max(units, 1)+1; turn++ { // a follow-up turn besides
			for k := range 2 + turn%3 {
				n++
				fig, _ := json.Marshal(record.StepFigures{Tokens: 1000*turn + 300*k + i})
				step := toolmem.Step{Run: r.ID, N: n, Turn: turn, Figures: fig}
				if k == 1 && turn == 2 {
					step.Error = "500"
				}
				if err := st.PutStep(step); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := st.PutRun(r); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	read := forecastFrom(st, "m", 20)
	if read == nil || read.runs != 4 || len(read.units) != 1+1+3+5 {
		t.Fatalf("forecast from the steps: %+v", read)
	}
	for _, r := range runs {
		r.Costs = recordCosts(st, r)
		if r.Costs == nil {
			t.Fatalf("run %s: no costs", r.ID)
		}
		if err := st.PutRun(r); err != nil {
			t.Fatal(err)
		}
	}
	recorded := forecastFrom(st, "m", 20)
	if fmt.Sprint(recorded) != fmt.Sprint(read) {
		t.Fatalf("forecast from the recorded costs %+v, from the steps %+v", recorded, read)
	}
	if other := forecastFrom(st, "m", 12); other != nil {
		t.Fatalf("forecast for other --max-steps: %+v", other)
	}
	// The runs' steps gone, the forecast is the same: it read none.
	for _, r := range runs {
		steps, err := st.StepHeads(r.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range steps {
			s.Figures = nil
			if err := st.PutStep(s); err != nil {
				t.Fatal(err)
			}
		}
	}
	if again := forecastFrom(st, "m", 20); fmt.Sprint(again) != fmt.Sprint(read) {
		t.Fatalf("forecast without the steps' figures %+v, want %+v", again, read)
	}
}

// TestCapUnitsBudget: the budget keeps the units whose expected tokens fit
// it, the first always; on the prior it may be passed up to
// priorBudgetFactor times, from earlier runs not at all.
func TestCapUnitsBudget(t *testing.T) {
	b := conversation.DefaultBudget(32000)
	firsts := make([]int, 40)
	for k := range firsts {
		firsts[k] = 10000
	}
	runs := &forecast{units: []unitCost{{requests: 2, growth: 700}}, runs: 1}
	for _, tc := range []struct {
		name   string
		f      *forecast
		budget int
	}{{"prior", nil, 500_000}, {"prior", nil, 3_000_000}, {"earlier runs", runs, 400_000}, {"earlier runs", runs, 3_000_000}} {
		kept, reason, err := capUnits(result.Caps{Budget: tc.budget}, b, firsts, tc.f)
		if err != nil {
			t.Fatal(err)
		}
		_, unit := tc.f.expected(firsts[:1], b, expectedPreviewTokens(b))
		limit := tc.budget
		if tc.f == nil {
			limit *= priorBudgetFactor
		}
		// As many units as fit the limit, or all of them.
		want := min(len(firsts), max(limit/unit, 1))
		if kept != want || (kept < len(firsts)) != (reason == result.ReasonPromptBudget) {
			t.Errorf("%s, budget %d (a unit expects %d): kept %d (%q), want %d", tc.name, tc.budget, unit, kept, reason, want)
		}
	}
}
