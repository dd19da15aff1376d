package review

import (
	"encoding/json"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/review/record"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/toolmem"
)

// A plan expects of each unit what the units of earlier reviews like it
// did: the store records every request of every run, with its turn (a
// unit's) and its tokens. Reviews like this one are complete reviews with
// the same model and the same --max-steps, the newest first, up to
// forecastUnits units; with none, the plan expects the prior
// (expectedSteps requests a unit, each carrying the one before and a tool
// output's preview).

// priorBudgetFactor is how far past the prompt-token budget a plan on the
// prior may expect to go. The prior is a guess at how a model explores
// (expectedSteps requests a unit); the reviews of issue 49's shapes
// (internal/e2e TestShapesDefault), each unit reading once and
// submitting, took 2 requests a unit and 45-50 % of the prompt tokens it
// expected, at every shape and window. The budget is held to what such a
// review takes, so that the prior's guess alone leaves no file of a
// change out, while a review that explores as the prior expects still
// takes at most twice the budget. Once the store holds a review like it,
// the expectation is what that review did, and the budget holds as set.
const priorBudgetFactor = 2

// forecastUnits bounds the earlier units a forecast reads: enough to
// average over, few enough that planning reads little of a large store.
const forecastUnits = 256

// unitCost is what one unit of an earlier review did: its requests, and
// the tokens each added to the one before, on average.
type unitCost struct{ requests, growth int }

// forecast is what the units of earlier reviews like this one did.
type forecast struct {
	units []unitCost
	runs  int
}

// forecastFrom reads the forecast for reviews with model and max steps
// from st; nil when it holds no review like it. It reads the newest run
// records alone, as far as it needs (RunHeadsNewest): a review records its
// units' costs in its own (runCosts); only a run recorded before that is
// read through its settings and steps.
func forecastFrom(st *toolmem.Store, model string, maxSteps int) *forecast {
	f := &forecast{}
	err := st.RunHeadsNewest(func(r toolmem.Run) bool {
		if r.Model != model || r.Status != toolmem.StatusComplete {
			return true
		}
		var units []unitCost
		if c, ok := costsOf(r); ok {
			if c.MaxSteps != maxSteps {
				return true
			}
			units = c.unitCosts()
		} else {
			units = unitCostsRead(st, r.ID, maxSteps)
		}
		if len(units) > 0 {
			f.units = append(f.units, units...)
			f.runs++
		}
		return len(f.units) < forecastUnits
	})
	if err != nil || len(f.units) == 0 {
		return nil
	}
	return f
}

// unitCostsRead is the costs of the units of run, read from its settings
// and steps, as a run recorded before runCosts is; nil when it ran with
// other max steps.
func unitCostsRead(st *toolmem.Store, id string, maxSteps int) []unitCost {
	r, err := st.Run(id)
	if err != nil {
		return nil
	}
	ranWith, units, ok := stepCosts(st, r)
	if !ok || ranWith != maxSteps {
		return nil
	}
	return units
}

// stepCosts reads from run's settings and steps in st the --max-steps it
// ran with and its units' costs; false when they cannot be read.
func stepCosts(st *toolmem.Store, run toolmem.Run) (maxSteps int, units []unitCost, ok bool) {
	var set Settings
	if st == nil || len(run.Settings) == 0 || json.Unmarshal(run.Settings, &set) != nil {
		return 0, nil, false
	}
	steps, err := st.StepHeads(run.ID)
	if err != nil {
		return 0, nil, false
	}
	return set.Budget.MaxSteps, unitCosts(steps, max(len(set.Units), 1)), true
}

// runCosts is what a complete review records of its units in its run
// record (toolmem.Run.Costs), for the forecasts of later plans: the
// --max-steps it ran with, and each unit's cost.
type runCosts struct {
	MaxSteps int            `json:"max_steps"`
	Units    []unitCostJSON `json:"units"`
}

// unitCostJSON is a unitCost as a run record holds it.
type unitCostJSON struct {
	Requests int `json:"requests"`
	Growth   int `json:"growth"`
}

// costsOf decodes the costs r records; false when it records none.
func costsOf(r toolmem.Run) (runCosts, bool) {
	var c runCosts
	if len(r.Costs) == 0 || json.Unmarshal(r.Costs, &c) != nil {
		return c, false
	}
	return c, true
}

func (c runCosts) unitCosts() []unitCost {
	var out []unitCost
	for _, u := range c.Units {
		out = append(out, unitCost{requests: u.Requests, growth: u.Growth})
	}
	return out
}

// recordCosts is the costs of run, complete, from its steps in st, for
// its record; nil when they cannot be read.
func recordCosts(st *toolmem.Store, run toolmem.Run) json.RawMessage {
	maxSteps, units, ok := stepCosts(st, run)
	if !ok {
		return nil
	}
	c := runCosts{MaxSteps: maxSteps}
	for _, u := range units {
		c.Units = append(c.Units, unitCostJSON{u.requests, u.growth})
	}
	data, err := json.Marshal(c)
	if err != nil {
		return nil
	}
	return data
}

// unitCosts are the costs of a review's n units from its steps: a unit's
// steps are those of its turn; follow-up turns come after the units and
// are not a unit's.
func unitCosts(steps []toolmem.Step, n int) []unitCost {
	first, last := make([]int, n), make([]int, n)
	count := make([]int, n)
	for _, s := range steps {
		k := s.Turn - 1
		if k < 0 || k >= n || s.Error != "" {
			continue
		}
		var fig record.StepFigures
		if json.Unmarshal(s.Figures, &fig) != nil || fig.Tokens <= 0 {
			continue
		}
		if count[k] == 0 {
			first[k] = fig.Tokens
		}
		last[k] = fig.Tokens
		count[k]++
	}
	var out []unitCost
	for k := range n {
		if count[k] == 0 {
			continue
		}
		g := 0
		if count[k] > 1 {
			g = max(last[k]-first[k], 0) / (count[k] - 1)
		}
		out = append(out, unitCost{requests: count[k], growth: g})
	}
	return out
}

// expected is the requests and prompt tokens units whose first requests
// are firsts are expected to take. Without a forecast, each unit takes the
// prior's expectedSteps requests, each carrying the one before and a tool
// output's preview (preview tokens); with one, each unit does what the
// earlier units did on average, from its own first request. Every request
// is within the input budget.
func (f *forecast) expected(firsts []int, b conversation.Budget, preview int) (requests, tokens int) {
	if f == nil {
		steps := min(expectedSteps, b.MaxSteps+1)
		for _, first := range firsts {
			for i := range steps {
				tokens += min(b.Input(), first+i*preview)
			}
			requests += steps
		}
		return requests, tokens
	}
	var reqs, toks int
	for _, first := range firsts {
		for _, u := range f.units {
			for i := range u.requests {
				toks += min(b.Input(), first+i*u.growth)
			}
			reqs += u.requests
		}
	}
	n := len(f.units)
	return (reqs + n/2) / n, (toks + n/2) / n
}

// budget is the prompt tokens a plan on f may be expected to take under a
// prompt-token budget of budget (0: no bound): the budget itself from
// earlier runs, priorBudgetFactor times it on the prior.
func (f *forecast) budget(budget int) int {
	if f == nil {
		return budget * priorBudgetFactor
	}
	return budget
}

// basis says how the plan's expectation was made, for the dry run.
func (f *forecast) basis(b conversation.Budget) result.Forecast {
	if f == nil {
		return result.Forecast{Source: result.ForecastPrior, RequestsPerUnit: float64(min(expectedSteps, b.MaxSteps+1)), Growth: expectedPreviewTokens(b)}
	}
	reqs, growth, weights := 0, 0, 0
	for _, u := range f.units {
		reqs += u.requests
		growth += u.growth * (u.requests - 1)
		weights += u.requests - 1
	}
	out := result.Forecast{Source: result.ForecastRuns, Runs: f.runs, Units: len(f.units), RequestsPerUnit: float64(reqs) / float64(len(f.units))}
	if weights > 0 {
		out.Growth = growth / weights
	}
	return out
}
