package result

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/llm"
)

// Reasons files are not reviewed.
const (
	ReasonMaxUnits        = "max_units"
	ReasonPromptBudget    = "prompt_budget"
	ReasonMaxPromptTokens = "max_prompt_tokens"
	ReasonMaxCost         = "max_cost"
	ReasonMaxRequests     = "max_requests"
	// ReasonTooLarge is a file whose diff is too large to hold
	// (diffctx.File.TooLarge): it is summarised, not reviewed.
	ReasonTooLarge = "too_large"
)

// ReasonUnitFailed is the reason a file is not reviewed when its unit
// failed (after its retries, or refused).
const ReasonUnitFailed = "unit_failed"

// NotReviewed is a changed file some or all of whose hunks the review did
// not cover, because a cap left them out.
type NotReviewed struct {
	diffctx.Left
	// Reason is the cap: one of the Reason constants.
	Reason string `json:"reason"`
}

// notReviewedJSON is NotReviewed as JSON writes it.
type notReviewedJSON struct {
	Path   string `json:"path"`
	Hunks  int    `json:"hunks_not_reviewed"`
	All    int    `json:"hunks"`
	Reason string `json:"reason"`
}

// MarshalJSON writes a path that is not UTF-8 quoted, as every path of
// the JSON outputs is (text.JSONPath), so it names the file exactly.
func (n NotReviewed) MarshalJSON() ([]byte, error) {
	return json.Marshal(notReviewedJSON{Path: text.JSONPath(n.Path), Hunks: n.Hunks, All: n.All, Reason: n.Reason})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (n *NotReviewed) UnmarshalJSON(b []byte) error {
	var j notReviewedJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*n = NotReviewed{Left: diffctx.Left{Path: text.PathFromJSON(j.Path), Hunks: j.Hunks, All: j.All}, Reason: j.Reason}
	return nil
}

// Unreviewed says in a few words how much of the change a review left out:
// "2 files (3 of 5 hunks) not reviewed", or "" when it reviewed it all.
// The first line of every report for people carries it.
func Unreviewed(nr []NotReviewed) string {
	if len(nr) == 0 {
		return ""
	}
	hunks, all := 0, 0
	for _, n := range nr {
		hunks += n.Hunks
		all += n.All
	}
	return fmt.Sprintf("%s (%d of %d hunks) not reviewed", text.Plural(len(nr), "file"), hunks, all)
}

// Estimate is what a review is planned to send, known before any request.
type Estimate struct {
	// Units are the turns the review takes, one per unit (1 for a diff
	// whose hunks fit the diff context); TotalUnits the units the whole
	// diff would take (past MaxUnits an estimate).
	Units      int `json:"units"`
	TotalUnits int `json:"total_units"`
	// MinRequests and MaxRequests bound the requests: at least one per
	// unit, at most max_steps and the final one.
	MinRequests int `json:"min_requests"`
	MaxRequests int `json:"max_requests"`
	// FirstRequestTokens is our count of the first request.
	FirstRequestTokens int `json:"first_request_tokens"`
	// MaxPromptTokens bounds the prompt tokens of the whole review.
	MaxPromptTokens int `json:"max_prompt_tokens"`
	// Requests, PromptTokens and Cost are what the review is expected to
	// take: what the units of earlier reviews like it did, or the prior
	// (Forecast says which), each request carrying the one before. Cost
	// is set when the price is known.
	Requests     int      `json:"expected_requests"`
	PromptTokens int      `json:"expected_prompt_tokens"`
	Cost         *float64 `json:"expected_cost_usd,omitempty"`
	// MaxCost bounds its cost in US dollars, when the price is known.
	MaxCost *float64 `json:"max_cost_usd,omitempty"`
	// PriceSource says where the price came from: "configured" or the
	// date of the list price.
	PriceSource string `json:"price_source,omitempty"`
	// LimitedBy names the cap that left units out, if one did: one of
	// the Reason constants; Cap is how it was set, e.g. "--max-units 12".
	LimitedBy string `json:"limited_by,omitempty"`
	Cap       string `json:"cap,omitempty"`
	// NotReviewed are the files the caps leave out, in priority order.
	NotReviewed []NotReviewed `json:"not_reviewed"`
	// Cut is the largest file reviewed in several units, when one is.
	Cut *CutFile `json:"split_file,omitempty"`
	// Whole is what reviewing the whole change is expected to take, when
	// a cap leaves part of it out.
	Whole *Whole `json:"whole,omitempty"`
	// Forecast says how the expectation (Requests, PromptTokens, Cost)
	// was made.
	Forecast *Forecast `json:"forecast,omitempty"`
}

// How a plan's expectation was made (Forecast.Source).
const (
	// ForecastRuns: from what the units of earlier reviews like it did.
	ForecastRuns = "earlier_runs"
	// ForecastPrior: the store holds no review like it.
	ForecastPrior = "prior"
)

// Forecast is how a plan's expectation was made: from the units of
// earlier reviews with the same model and --max-steps, or, with none in
// the store, from the prior.
type Forecast struct {
	Source string `json:"source"`
	// Runs and Units are the earlier reviews and their units it averages.
	Runs  int `json:"runs,omitempty"`
	Units int `json:"units,omitempty"`
	// RequestsPerUnit is the requests a unit is expected to make, Growth
	// the tokens each request adds to the one before, on average.
	RequestsPerUnit float64 `json:"requests_per_unit"`
	Growth          int     `json:"growth_tokens"`
	// BudgetFactor is how many times the prompt-token budget the plan
	// may be expected to take: 2 on the prior, which expects twice what
	// a review that reads once a unit and submits takes; unset from
	// earlier runs (the budget holds as set) and without a budget.
	BudgetFactor float64 `json:"budget_factor,omitempty"`
	// OverBudget is the expected prompt tokens over the budget, when the
	// plan on the prior expects more than the budget (1.28: 28 % more).
	OverBudget float64 `json:"over_budget,omitempty"`
}

// Line says f for people: "from the prior (...)" or "from 40 units of 2
// earlier reviews like it: ...".
func (f Forecast) Line() string {
	each := fmt.Sprintf("%s requests a unit, each adding %s tokens to the one before", strconv.FormatFloat(f.RequestsPerUnit, 'f', 1, 64), text.Number(f.Growth))
	if f.Source == ForecastPrior {
		s := "from the prior, as the store holds no earlier review like this one (same model and --max-steps): " + each + " (a tool output's preview)"
		if f.BudgetFactor > 0 {
			s += fmt.Sprintf("; on the prior, the plan may expect up to %s× --prompt-budget, as a unit that reads once and submits takes half of it", strconv.FormatFloat(f.BudgetFactor, 'f', -1, 64))
		}
		return s
	}
	return fmt.Sprintf("from %s of %s like this one (same model and --max-steps): %s", text.Plural(f.Units, "unit"), text.Plural(f.Runs, "earlier review"), each)
}

// CutFile is the largest file a review takes in several units, because
// its hunks do not fit one.
type CutFile struct {
	Path   string `json:"path"`
	Tokens int    `json:"tokens"`
	// Share is what a unit's hunks take at most at this window.
	Share int `json:"unit_tokens"`
	// Window is the smallest context window, in round thousands, whose
	// units hold it whole (0: none up to ten million).
	Window int `json:"window_for_whole"`
}

// Whole is what a review of the whole change is expected to take: past
// the units packed, an estimate.
type Whole struct {
	Units        int      `json:"units"`
	Requests     int      `json:"expected_requests"`
	PromptTokens int      `json:"expected_prompt_tokens"`
	Cost         *float64 `json:"expected_cost_usd,omitempty"`
}

// Line says w for people: "22 units; expected 88 requests, 4,115,020
// prompt tokens, $0.63".
func (w Whole) Line() string {
	s := fmt.Sprintf("%s; expected %s, %s prompt tokens", text.Plural(w.Units, "unit"), text.Plural(w.Requests, "request"), text.Number(w.PromptTokens))
	if w.Cost != nil {
		s += ", " + llm.FormatUSD(*w.Cost)
	}
	return s
}

// Line says the plan in one line for people: units, then what the review
// is expected to take, then the bound the caps hold it to, and what is
// left out: "1 unit; expected 4 requests, 9,800 prompt tokens, $0.0016;
// at most 21 requests, 2,515,968 prompt tokens and $0.4806".
func (e Estimate) Line() string {
	var b strings.Builder
	if e.TotalUnits > e.Units {
		fmt.Fprintf(&b, "%s of %s units", text.Number(e.Units), text.Number(e.TotalUnits))
	} else {
		b.WriteString(text.Plural(e.Units, "unit"))
	}
	if e.Requests > 0 {
		fmt.Fprintf(&b, "; expected %s, %s prompt tokens", text.Plural(e.Requests, "request"), text.Number(e.PromptTokens))
		if e.Cost != nil {
			fmt.Fprintf(&b, ", %s", llm.FormatUSD(*e.Cost))
		}
	}
	fmt.Fprintf(&b, "; at most %s, %s prompt tokens", text.Plural(e.MaxRequests, "request"), text.Number(e.MaxPromptTokens))
	if e.MaxCost != nil {
		fmt.Fprintf(&b, " and %s", llm.FormatUSD(*e.MaxCost))
	}
	if f := e.Forecast; f != nil && f.OverBudget > 0 {
		fmt.Fprintf(&b, "; %s× --prompt-budget on the prior", strconv.FormatFloat(f.OverBudget, 'f', 2, 64))
	}
	if n := len(e.NotReviewed); n > 0 {
		why := e.Cap
		if why == "" {
			why = capName(e.NotReviewed[0].Reason)
		}
		fmt.Fprintf(&b, "; %s not reviewed (%s)", text.Plural(n, "file"), why)
	}
	return b.String()
}

// CapFlag is how people set the cap a Reason constant names.
func CapFlag(reason string) string { return capName(reason) }

// capName is how people set a cap.
func capName(reason string) string {
	switch reason {
	case ReasonMaxUnits:
		return "--max-units"
	case ReasonPromptBudget:
		return "--prompt-budget"
	case ReasonMaxPromptTokens:
		return "--max-prompt-tokens"
	case ReasonMaxCost:
		return "--max-cost"
	case ReasonMaxRequests:
		return "the bound on requests"
	case ReasonTooLarge:
		return "the size a file's diff may have"
	}
	return reason
}
