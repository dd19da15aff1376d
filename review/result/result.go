package result

import (
	"fmt"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/review/learn"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/record"
)

// RunUsage totals a run's model usage.
type RunUsage struct {
	Requests   int `json:"requests"`
	Prompt     int `json:"prompt_tokens"`
	Completion int `json:"completion_tokens"`
	Cached     int `json:"cached_tokens"`
	// Reasoning is the part of Completion the server reports as spent on
	// reasoning.
	Reasoning int `json:"reasoning_tokens,omitempty"`
	// Own is our tiktoken count of every prompt sent, for comparison with
	// what the server reported.
	Own int `json:"own_prompt_tokens"`
	// Efficiency is what the run's context cost against a naive
	// transcript; recorded when the run ends.
	Efficiency *record.Efficiency `json:"efficiency,omitempty"`
}

// Add counts one request: the usage the server reported for it and our
// own count of its prompt.
func (u *RunUsage) Add(r llm.Usage, own int) {
	u.Requests++
	u.Prompt += r.Prompt
	u.Completion += r.Completion
	u.Cached += r.Cached
	u.Reasoning += r.Reasoning
	u.Own += own
}

// Revisions name what a review compares: the refs as given and the commits
// they resolved to.
type Revisions struct {
	Base      string `json:"base"`
	Head      string `json:"head"`
	BaseSHA   string `json:"base_sha"`
	HeadSHA   string `json:"head_sha"`
	MergeBase string `json:"merge_base"`
	// Since is the commit after which the review began (--since): only
	// the commits since it were reviewed.
	Since string `json:"since,omitempty"`
}

// RevisionsOf names what diff d compares.
func RevisionsOf(d *diffctx.Diff) Revisions {
	return Revisions{Base: d.Base, Head: d.Head, BaseSHA: d.BaseSHA, HeadSHA: d.HeadSHA, MergeBase: d.MergeBase, Since: d.SinceSHA}
}

// Result is the outcome of a review.
type Result struct {
	RunID string `json:"run_id"`
	// Config names the repository configuration file the review was run
	// with, and its revision when read from one (".review.yaml@origin/main").
	Config string `json:"config,omitempty"`
	// FailOn is the --fail-on severity the review ran with, if any: a
	// SARIF result at or above it is an error, which fails a code
	// scanning check; below it, a warning or a note.
	FailOn Severity `json:"fail_on,omitempty"`
	Revisions
	Model    string    `json:"model"`
	Summary  string    `json:"summary"`
	Findings []Finding `json:"findings"`
	Dropped  []Dropped `json:"dropped,omitempty"`
	// Ungrounded are findings that cite lines the model was never shown,
	// held out of inline comments, annotations and the gate and listed in
	// the summary as not checked against the code they name (Quiet).
	Ungrounded []Finding `json:"ungrounded,omitempty"`
	// Withheld are findings held back by the minimum severity or the
	// most findings shown, or by a team learning the model cited, with
	// the reason: not printed, posted, annotated or gated on.
	Withheld []Dropped `json:"withheld,omitempty"`
	// Learnings are the team's learnings in force for the change, as the
	// model read them (see package learn).
	Learnings []learn.Learning `json:"learnings,omitempty"`
	Usage     RunUsage         `json:"usage"`
	Steps     int              `json:"steps"`
	// Submitted is false when the model never called submit_review and its
	// last text became the summary.
	Submitted bool `json:"submitted"`
	// FailedUnits are the units of a review side by side that failed
	// (after their retries, or refused); their files are in NotReviewed.
	// The others' findings are kept.
	FailedUnits []FailedUnit `json:"failed_units,omitempty"`
	// NotReviewed are the files whose hunks, or some of them, the review
	// did not cover because a cap left them out, in priority order.
	NotReviewed []NotReviewed `json:"not_reviewed"`
	// Stopped says why the review stopped before its plan was done, if a
	// bound on requests, tokens or cost stopped it.
	Stopped string `json:"stopped,omitempty"`
	// Price is the configured price of the model's tokens, if any; without
	// one, cost is estimated from the model's list price when known.
	Price *llm.Price `json:"price,omitempty"`
	// Cost is the estimated cost in USD, when a price is known.
	Cost *float64 `json:"cost_usd,omitempty"`
	// Efficiency is what the run's context cost against a naive
	// transcript of it.
	Efficiency *record.Efficiency `json:"efficiency,omitempty"`
	// State is the review's state for its head commit: complete,
	// partial, skipped or failed (see State).
	State string `json:"state,omitempty"`
	// Suppressed are findings this review made that are not posted nor
	// counted, with why: a person dismissed them on the pull or merge
	// request before, or an earlier review posted them in other words.
	Suppressed []Dropped `json:"suppressed,omitempty"`
	// Ledger is what became of every finding posted on the pull or
	// merge request, this review's included, when posting.
	Ledger []LedgerEntry `json:"ledger,omitempty"`
}

// NothingToReview is the result of a review of a diff with no changes:
// complete, without findings or a run, so that every format still writes a
// valid document (an empty SARIF log, an rdjson with no diagnostics).
func NothingToReview(d *diffctx.Diff, model string) *Result {
	return &Result{
		Revisions: RevisionsOf(d), Model: model, Submitted: true,
		Summary:     fmt.Sprintf("Nothing to review: %s has no changes since its merge base with %s.", d.Head, d.Base),
		Findings:    []Finding{},
		NotReviewed: []NotReviewed{},
	}
}

// SetPrice prices the result: p if given, else the model's list price.
func (r *Result) SetPrice(p *llm.Price) {
	r.Price = p
	if c, ok := r.EstimateCost(); ok {
		r.Cost = &c
	}
}

// FailedUnit is a unit of a review in units that failed: what it
// covered, and why. Its files are reported as not reviewed.
type FailedUnit struct {
	Unit  int      `json:"unit"`
	Files []string `json:"files"`
	Error string   `json:"error"`
}

// Answer is the outcome of a follow-up turn.
type Answer struct {
	RunID    string `json:"run_id"`
	Turn     int    `json:"turn"`
	Question string `json:"question"`
	Answer   string `json:"answer"`
	// Findings are new findings, if the model submitted a review this turn.
	Findings []Finding `json:"findings"`
	Dropped  []Dropped `json:"dropped,omitempty"`
	// Known are findings of this turn that the review already reported:
	// not new.
	Known []Finding `json:"already_reported,omitempty"`
	// Ungrounded and Withheld are as a Result's.
	Ungrounded []Finding `json:"ungrounded,omitempty"`
	Withheld   []Dropped `json:"withheld,omitempty"`
	// Usage is this turn's; RunUsage the whole run's so far.
	Usage    RunUsage `json:"usage"`
	RunUsage RunUsage `json:"run_usage"`
	Model    string   `json:"model"`
}
