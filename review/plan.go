package review

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/toolmem"
)

// A review is planned, and priced, before any request: how many units it
// takes, how many requests and prompt tokens that can cost at most, and
// what the caps leave out. When prompt tokens or cost are capped, a guard
// holds the run to that plan: no request is sent that would pass the
// bound on requests, prompt tokens or cost.

// ErrWindowTooSmall is a context window too small for any review: the
// system prompt, the tool definitions, the smallest overview and a minimal
// tool loop do not fit its input budget.
var ErrWindowTooSmall = errors.New("context window too small for a review")

// ErrCapTooLow is a cap that does not allow even the first unit.
var ErrCapTooLow = errors.New("cap too low for a review")

// minUnitShare is the share of a unit's hunks below which, in a small
// window, a unit takes what the loop is not promised (unitMost): about
// sixty lines of code, so that a unit is never a few lines of one file.
const minUnitShare = 1024

// unitMost is the most the overview, a unit turn's words and its hunks may
// take in a small window: what leaves the loop, before its stop line, the
// least it is promised (loopFloor), one tool call and the final request.
// fixed is the count of the system prompt and the tool definitions.
func unitMost(b conversation.Budget, fixed int, c *conversation.Counter) int {
	return b.StopLine() - fixed - loopFloor(b, c)
}

// unitRoom is what the overview, a unit turn's words and its hunks may
// take: the input budget less the system prompt and tool definitions
// (fixed) and the room the loop is promised (Budget.LoopRoom), never past
// what leaves the smallest loop before the stop line (unitMost), and
// never less than the static share leaves. It is not a share of the
// window: a file that fits beside the loop's room is reviewed whole in
// one unit.
func unitRoom(b conversation.Budget, fixed int, c *conversation.Counter) int {
	return max(min(b.Input()-fixed-b.LoopRoom(), unitMost(b, fixed, c)), b.Static()-fixed)
}

// unitShare is what a unit's hunks may take in a window under b, as
// SplitUnits decides it, with other the count of the overview and a unit
// turn's words.
func unitShare(b conversation.Budget, fixed, other int, c *conversation.Counter) int {
	share := unitRoom(b, fixed, c) - other
	if most := unitMost(b, fixed, c) - other; share < minUnitShare && most > share {
		share = most
	}
	return share
}

// wholeWindow is the smallest context window, in round thousands, whose
// units hold a file of tokens whole; 0 past ten million.
func wholeWindow(b conversation.Budget, fixed, other, tokens int, c *conversation.Counter) int {
	for w := roundUp(b.ContextWindow+1, 1000); w <= 10_000_000; w += 1000 {
		wb := b
		wb.ContextWindow = w
		if b.AnswerReserve == conversation.DefaultReserve(b.ContextWindow) {
			wb.AnswerReserve = conversation.DefaultReserve(w)
		}
		if unitShare(wb, fixed, other, c) >= tokens {
			return w
		}
	}
	return 0
}

// minUnitTokens bounds units from below: when the context window leaves
// less room than this for a unit's hunks, the static share gives way to it
// (within the input budget), so units are never a line or two each.
const minUnitTokens = 256

// loopFloor is what the smallest tool loop adds to the first request: one
// tool call with its preview, and the message asking for the final review.
func loopFloor(b conversation.Budget, c *conversation.Counter) int {
	return 64 + previewTokens(b) + c.Count(final)
}

// previewTokens bounds the tokens of one tool output's preview: the
// store's limits, about three characters a token at most.
func previewTokens(b conversation.Budget) int {
	return previews(b).Chars / 3
}

// previews are the limits the store holds a preview to under b: never
// over the cap on an earlier message (Budget.PreviewCharsCap).
func previews(b conversation.Budget) toolmem.Limits {
	l := toolmem.Limits{Chars: b.PreviewChars, Lines: b.PreviewLines}.Normalized()
	l.Chars = max(b.PreviewCharsCap(l.Chars), toolmem.MinPreviewChars)
	return l
}

// WindowError is a context window too small for any review; it matches
// ErrWindowTooSmall. The figures are tokens.
type WindowError struct {
	Fixed    int // the system prompt and the tool definitions
	Overview int // the smallest overview of the changed files
	Turn     int // a minimal review turn
	Window   int // the context window
	Reserve  int // the answer reserve
	Input    int // what the window leaves for a request
	// Want is the smallest window, in round thousands, whose input
	// budget holds the review with the default answer reserve.
	Want int
}

func (e *WindowError) Error() string {
	return fmt.Sprintf("%v: the system prompt and tool definitions take %d tokens, the smallest overview of the changed files %d and a minimal review turn %d more, but a context window of %d with an answer reserve of %d leaves %d",
		ErrWindowTooSmall, e.Fixed, e.Overview, e.Turn, e.Window, e.Reserve, e.Input)
}

// Is makes errors.Is(err, ErrWindowTooSmall) true.
func (e *WindowError) Is(target error) bool { return target == ErrWindowTooSmall }

// windowError says how large a window a review needs.
func windowError(b conversation.Budget, fixed, overview, need int) error {
	// The smallest window whose input budget holds need, with the
	// default answer reserve (a quarter of the window, at most 8192).
	want := (need*4 + 2) / 3
	if need > 3*8192 {
		want = need + 8192
	}
	want = max(want, need+b.AnswerReserve)
	return &WindowError{Fixed: fixed, Overview: overview, Turn: need - fixed - overview,
		Window: b.ContextWindow, Reserve: b.AnswerReserve, Input: b.Input(), Want: roundUp(want, 1000)}
}

// CapError is a cap too low for even the first unit of a review; it
// matches ErrCapTooLow.
type CapError struct {
	Reason string // the cap: one of the Reason constants
	First  int    // the prompt tokens of the first request
	Need   int    // the prompt tokens of the two requests a review needs at least
	// Cost is what those two requests cost, when the price is known:
	// ", $0.02"; empty otherwise.
	Cost string
}

func (e *CapError) Error() string {
	return fmt.Sprintf("%v: the first request alone takes %d prompt tokens, and a review needs room for at least two (%d tokens%s)",
		ErrCapTooLow, e.First, e.Need, e.Cost)
}

// Is makes errors.Is(err, ErrCapTooLow) true.
func (e *CapError) Is(target error) bool { return target == ErrCapTooLow }

func roundUp(n, to int) int { return (n + to - 1) / to * to }

// historyAllowance is about what the earlier turns a unit's first request
// carries can take, in tokens: the window of turns and a summary.
func historyAllowance(b conversation.Budget) int {
	return b.HistoryChars/4 + 500
}

// planUnits decides how many of the units to review within the caps, and
// prices the review. first is our count of the first request, static that
// of its static layer with the tool definitions, and intro that of a unit
// turn's own words. It returns the units kept and the reason the others
// were dropped.
func (p *Plan) planUnits(caps result.Caps, model string, first, static, intro int) (int, string, error) {
	b := p.Budget
	n := max(len(p.Units), 1)
	// Units side by side start with no earlier turn; in sequence, each
	// carries what is kept of the ones before.
	history := historyAllowance(b)
	if sideBySide(p.Jobs, n) {
		history = 0
	}
	firsts := make([]int, n)
	firsts[0] = first
	for k := 1; k < n; k++ {
		firsts[k] = min(b.Input(), static+intro+p.Units[k].Tokens+history)
	}
	price, priced := caps.Price, caps.Price != nil
	if !priced {
		if lp, ok := llm.PriceFor(model); ok {
			price, priced = &lp, true
		}
	}
	reason := ""
	if len(p.Units) > 0 && p.split.Total > len(p.Units) {
		reason = p.packedBy
	}
	kept, over, err := capUnits(caps, b, firsts, p.forecast)
	if err != nil {
		return 0, over, err
	}
	if over != "" {
		reason = over
	}
	e := p.bound(caps, kept, first, static, reason)
	if priced {
		p.price = price
		e.MaxCost, e.PriceSource = boundCost(&e, caps, price, static, b.AnswerReserve), "list price of "+llm.PricesAsOf
		if caps.Price != nil {
			e.PriceSource = "configured"
		}
	}
	if e.TotalUnits > e.Units {
		e.Whole = p.whole(firsts, e.TotalUnits, static+intro+history, price)
	}
	p.Estimate = e
	p.budget = caps.Budget
	p.expect(firsts[:kept])
	p.guard = &guard{
		maxRequests: e.MaxRequests, maxTokens: e.MaxPromptTokens, reserve: b.AnswerReserve,
		preview: previewTokens(b), firsts: firsts[:kept],
		hard: caps.MaxPromptTokens > 0 || caps.MaxCost > 0,
	}
	if caps.MaxCost > 0 {
		p.guard.maxCost, p.guard.price = caps.MaxCost, caps.Price
	}
	return kept, reason, nil
}

// capUnits is how many of the units whose first requests are firsts the
// caps keep, and the cap that left the others out ("" when none did). A
// unit is planned only if the hard caps leave it at least one exploring
// request and the final one, and the budget keeps the units whose
// expected tokens fit it, the first always; a first unit the hard caps
// cannot hold is a CapError.
func capUnits(caps result.Caps, b conversation.Budget, firsts []int, f *forecast) (int, string, error) {
	kept, reason, tokens := len(firsts), "", 0
	for k := range firsts {
		t := tokens + 2*firsts[k]
		over := ""
		switch {
		case caps.MaxPromptTokens > 0 && t > caps.MaxPromptTokens:
			over = result.ReasonMaxPromptTokens
		case caps.MaxCost > 0 && requestCost(*caps.Price, t, 2*(k+1), b.AnswerReserve) > caps.MaxCost:
			over = result.ReasonMaxCost
		}
		if over != "" {
			if k == 0 {
				return 0, over, &CapError{Reason: over, First: firsts[0], Need: 2 * firsts[0], Cost: capCost(caps, 2*firsts[0], 2, b.AnswerReserve)}
			}
			kept, reason = k, over
			break
		}
		tokens = t
	}
	if budget := f.budget(caps.Budget); budget > 0 {
		spent := 0
		for k := range kept {
			_, t := f.expected(firsts[k:k+1], b, expectedPreviewTokens(b))
			if spent += t; k > 0 && spent > budget {
				return k, result.ReasonPromptBudget, nil
			}
		}
	}
	return kept, reason, nil
}

// bound is the plan's estimate for kept units before pricing: the
// requests and prompt tokens they may take at most, within the token cap.
// boundCost prices it.
func (p *Plan) bound(caps result.Caps, kept, first, static int, reason string) result.Estimate {
	b := p.Budget
	steps := b.MaxSteps + finalRequests
	e := result.Estimate{
		Units: kept, TotalUnits: max(kept, 1), MinRequests: kept, MaxRequests: kept * steps,
		FirstRequestTokens: first, MaxPromptTokens: kept * steps * b.Input(), LimitedBy: reason,
	}
	if reason != "" {
		e.Cap = result.CapFlag(reason) + capValue(caps, reason)
	}
	if len(p.Units) > 0 {
		e.TotalUnits = p.split.Total
	}
	if caps.MaxPromptTokens > 0 {
		e.MaxPromptTokens = min(e.MaxPromptTokens, caps.MaxPromptTokens)
	}
	// Every request carries the static layer: a cap on tokens is a cap
	// on requests too.
	if caps.MaxPromptTokens > 0 && static > 0 {
		e.MaxRequests = max(e.MinRequests, min(e.MaxRequests, caps.MaxPromptTokens/static))
	}
	return e
}

// boundCost is the most e may cost at price, each answer as long as the
// reserve, within the cost cap, which also bounds e's prompt tokens and
// so its requests.
func boundCost(e *result.Estimate, caps result.Caps, price *llm.Price, static, reserve int) *float64 {
	c := requestCost(*price, e.MaxPromptTokens, e.MaxRequests, reserve)
	if caps.MaxCost > 0 {
		c = min(c, caps.MaxCost)
		// The tokens the cost cap can buy, at most, and so the requests.
		e.MaxPromptTokens = min(e.MaxPromptTokens, int(caps.MaxCost/price.Prompt*1e6))
		if static > 0 {
			e.MaxRequests = max(e.MinRequests, min(e.MaxRequests, e.MaxPromptTokens/static))
		}
	}
	return &c
}

// whole is what the whole change of total units would take: the units
// packed as planned (firsts), those past them as full as a unit gets,
// each first request carrying perUnit tokens besides its diff.
func (p *Plan) whole(firsts []int, total, perUnit int, price *llm.Price) *result.Whole {
	b := p.Budget
	w := result.Whole{Units: total}
	w.Requests, w.PromptTokens = p.forecast.expected(firsts, b, expectedPreviewTokens(b))
	if more := total - len(firsts); more > 0 && p.split != nil {
		r, t := p.forecast.expected([]int{min(b.Input(), perUnit+p.split.Budget)}, b, expectedPreviewTokens(b))
		w.Requests += more * r
		w.PromptTokens += more * t
	}
	if price != nil {
		c := price.Cost(w.PromptTokens, 0, w.Requests*expectedAnswerTokens)
		w.Cost = &c
	}
	return &w
}

// finalRequests are the requests a unit may make past its max_steps
// exploring ones: the one asking for the final review, a nudge when the
// server ignores that forced choice, and one more when the provider
// refuses a request as longer than its window (the final review is then
// asked for again with less).
const finalRequests = 3

// expect sets the plan's expectation for units whose first requests are
// firsts: the requests and prompt tokens expected, and their cost when
// the price is known, and how far past the prompt-token budget
// (p.budget) the prior lets it go. It is an expectation, not a bound: each
// tool call adds an expected preview (expectedPreviewTokens), not the most
// one may.
func (p *Plan) expect(firsts []int) {
	e := &p.Estimate
	e.Requests, e.PromptTokens = p.forecast.expected(firsts, p.Budget, expectedPreviewTokens(p.Budget))
	basis := p.forecast.basis(p.Budget)
	e.Forecast = &basis
	if p.verify {
		e.Requests, e.PromptTokens = e.Requests+len(firsts), e.PromptTokens+len(firsts)*verifyExpectedTokens
	}
	if p.forecast == nil && p.budget > 0 {
		basis.BudgetFactor = priorBudgetFactor
		if e.PromptTokens > p.budget {
			basis.OverBudget = math.Floor(float64(e.PromptTokens)/float64(p.budget)*100) / 100
		}
	}
	if p.price != nil {
		ec := p.price.Cost(e.PromptTokens, 0, e.Requests*expectedAnswerTokens)
		e.Cost = &ec
	}
}

// expectedPreviewTokens is about what one tool output's preview adds to
// a request: a preview of the store's size, at about four characters a
// token as code and prose run (previewTokens bounds it at three).
func expectedPreviewTokens(b conversation.Budget) int {
	return previews(b).Chars / 4
}

// A review is expected to take expectedSteps requests a unit (a few tool
// calls to read around the change, then the submission), each answer
// about expectedAnswerTokens long. The bounds (max_steps, the window) are
// what a review may take; these are what one usually does.
const (
	expectedSteps        = 4
	expectedAnswerTokens = 300
)

// requestCost is the most that requests prompting tokens in all can cost,
// each answer as long as the answer reserve.
func requestCost(p llm.Price, tokens, requests, reserve int) float64 {
	return p.Cost(tokens, 0, requests*reserve)
}

func capCost(caps result.Caps, tokens, requests, reserve int) string {
	if caps.Price == nil {
		return ""
	}
	return ", " + llm.FormatUSD(requestCost(*caps.Price, tokens, requests, reserve))
}

// guard holds a run to its plan: it refuses a request that would pass the
// bound on requests, prompt tokens or cost, and tells a loop to ask for
// its final review while the caps still leave room for it and for the
// units after it. Without caps on tokens or cost it only keeps count: the
// loops' own bounds (max steps, the input budget) keep the plan then, but
// for a final request, which may pass the input budget by the tool
// results before it and is better sent than refused.
type guard struct {
	hard        bool // caps on tokens or cost are set: enforce
	maxRequests int
	maxTokens   int
	maxCost     float64
	price       *llm.Price
	reserve     int   // the answer reserve: the longest answer counted
	preview     int   // about what one tool call adds to a request
	firsts      []int // per unit, our count of its first request
	// started counts the units started: those after them still need
	// their first requests. Units side by side start several at once.
	started int

	requests int
	tokens   int
	cost     float64
	// held are requests allowed and not yet spent, heldTokens their
	// prompt tokens: units side by side send at once, and each must
	// leave room for the others' requests in flight.
	held, heldTokens int

	// mu makes the guard one for the whole run, whichever unit asks.
	mu sync.Mutex
}

// capsGuard holds a follow-up turn to the agent's caps on prompt tokens
// and cost; nil when there are none.
func (a *Agent) capsGuard() *guard {
	c := a.Caps
	if c.MaxPromptTokens <= 0 && c.MaxCost <= 0 {
		return nil
	}
	g := &guard{hard: true, maxTokens: c.MaxPromptTokens, reserve: a.Budget.AnswerReserve, preview: previewTokens(a.Budget)}
	if c.MaxCost > 0 && c.Price != nil {
		g.maxCost, g.price = c.MaxCost, c.Price
	}
	return g
}

// capError is a request the guard refused; Reason is one of the Reason
// constants.
type capError struct {
	Reason string
	detail string
}

func (e *capError) Error() string {
	return fmt.Sprintf("stopped before a request that would pass %s: %s", result.CapFlag(e.Reason), e.detail)
}

// enforced reports whether g holds requests to caps on tokens or cost.
func (g *guard) enforced() bool { return g != nil && g.hard }

// allow checks a request of tokens prompt tokens against the bounds.
func (g *guard) allow(tokens int) error {
	if g == nil || !g.hard {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.check(tokens)
}

// check is allow with g.mu held: the requests in flight count as sent.
func (g *guard) check(tokens int) error {
	requests, sent := g.requests+g.held, g.tokens+g.heldTokens
	switch {
	case g.maxRequests > 0 && requests+1 > g.maxRequests:
		return &capError{result.ReasonMaxRequests, fmt.Sprintf("%d requests were planned", g.maxRequests)}
	case g.maxTokens > 0 && sent+tokens > g.maxTokens:
		return &capError{result.ReasonMaxPromptTokens, fmt.Sprintf("%d prompt tokens sent, %d more would pass %d", sent, tokens, g.maxTokens)}
	case g.maxCost > 0 && g.cost+requestCost(*g.price, g.heldTokens+tokens, g.held+1, g.reserve) > g.maxCost:
		return &capError{result.ReasonMaxCost, fmt.Sprintf("%s spent, the next request could pass %s", llm.FormatUSD(g.cost), llm.FormatUSD(g.maxCost))}
	}
	return nil
}

// take is allow for a request about to be sent: once allowed, it is held
// against the bounds until settle accounts it, so that units side by side
// cannot pass them together.
func (g *guard) take(tokens int) error {
	if g == nil || !g.hard {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.check(tokens); err != nil {
		return err
	}
	g.held++
	g.heldTokens += tokens
	return nil
}

// settle accounts a request take allowed with tokens: own is our count of
// its prompt, u what the server reported (zero when it failed or was not
// sent).
func (g *guard) settle(tokens, own int, u llm.Usage) {
	if g == nil {
		return
	}
	g.mu.Lock()
	if g.hard {
		g.held--
		g.heldTokens -= tokens
	}
	g.mu.Unlock()
	g.spent(own, u)
}

// release gives back a request take allowed that was never sent.
func (g *guard) release(tokens int) {
	if g == nil || !g.hard {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.held--
	g.heldTokens -= tokens
}

// start notes that unit k (from 1) starts: the units after the ones
// started still need their first requests (tight).
func (g *guard) start(k int) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.started = max(g.started, k)
}

// tight reports whether a loop should ask for its final review now rather
// than explore with a request of tokens: after it, the final request
// (about as large, plus a tool result) and the first two requests of each
// later unit would no longer fit the bounds.
func (g *guard) tight(tokens int) bool {
	if g == nil || !g.hard {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	later := 0
	for _, f := range g.firsts[min(max(g.started, 1), len(g.firsts)):] {
		later += 2 * f
	}
	need := tokens + (tokens + g.preview) + later
	switch {
	case g.maxTokens > 0 && g.tokens+g.heldTokens+need > g.maxTokens:
		return true
	case g.maxCost > 0 && g.cost+requestCost(*g.price, g.heldTokens+need, g.held+2, g.reserve) > g.maxCost:
		return true
	}
	return false
}

// spent accounts a request sent: own is our count of its prompt, u what
// the server reported (zero when it failed).
func (g *guard) spent(own int, u llm.Usage) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	prompt := max(own, u.Prompt)
	g.requests++
	g.tokens += prompt
	if g.price != nil {
		completion := u.Completion
		if u.Prompt == 0 && u.Completion == 0 {
			completion = g.reserve // unknown: count the longest
		}
		g.cost += g.price.Cost(prompt, min(u.Cached, prompt), completion)
	}
}

// notReviewed lists the files of units that were not reviewed, for reason.
func notReviewed(units []diffctx.Unit, reason string) []result.NotReviewed {
	var out []result.NotReviewed
	index := map[string]int{}
	for _, u := range units {
		seen := map[string]map[int]bool{}
		for _, p := range u.Parts {
			if seen[p.Path] == nil {
				seen[p.Path] = map[int]bool{}
			}
			for k := p.First; k <= p.Last; k++ {
				seen[p.Path][k] = true
			}
		}
		for _, path := range u.Files() {
			i, ok := index[path]
			if !ok {
				i = len(out)
				index[path] = i
				out = append(out, result.NotReviewed{Left: diffctx.Left{Path: path}, Reason: reason})
			}
			out[i].Hunks += len(seen[path])
		}
	}
	return out
}

// mergeNotReviewed adds more to list: a file in both counts the hunks of
// both, with the reason it had first.
func mergeNotReviewed(list, more []result.NotReviewed, d *diffctx.Diff) []result.NotReviewed {
	index := map[string]int{}
	for i, n := range list {
		index[n.Path] = i
	}
	for _, n := range more {
		if i, ok := index[n.Path]; ok {
			list[i].Hunks += n.Hunks
			continue
		}
		if f := d.File(n.Path); f != nil {
			n.All = len(f.Hunks)
		}
		index[n.Path] = len(list)
		list = append(list, n)
	}
	for i := range list {
		list[i].Hunks = min(list[i].Hunks, max(list[i].All, list[i].Hunks))
	}
	return list
}
