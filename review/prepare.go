package review

import (
	"context"
	"fmt"
	"slices"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/redact"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/learn"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/record"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/tools"
	"github.com/reviewdev/review/tools/symbols"
)

// Options are what Prepare plans: which change, with which configuration.
type Options struct {
	Dir  string // any directory inside the repository
	Base string
	Head string
	// Since, when set, reviews only the commits since this revision (an
	// ancestor of Head); the rest of the change is context.
	Since string
	// HeadLabel, when set, names Head for people and the model: "the work
	// tree" for the commit diffctx.Snapshot made of it.
	HeadLabel string
	// Resolved, when set, is Base and Head as diffctx.ResolveSoon read
	// them while the command read its settings.
	Resolved func() (diffctx.Revisions, bool)
	// Question, if set, is the first turn instead of the review task.
	Question string
	// CI says the review runs in CI, as the command layer decided: an
	// unknown revision's hint then says how to fetch in a shallow clone.
	CI bool
	result.Config

	// counter, when Run made it (newCounter), counts the plan.
	counter *conversation.Counter
	// forecast, when Run read one from the store, is what earlier
	// reviews like this one did: the plan expects it of each unit.
	forecast *forecast
	// reviewing, when Run set it (Env.Reviewing), is told the change has
	// files, as soon as it is read.
	reviewing func(root string)
	// dryRun, when Run set it, keeps no file's section of the diff whole
	// for the tools (diffctx.Options.Patches): a dry run calls none.
	dryRun bool
}

// Plan is everything the first request of a review is built from: the diff,
// its rendered context, and the messages and tools the model will see.
type Plan struct {
	Diff    *diffctx.Diff
	Context *diffctx.Context
	// Units, for a diff whose hunks do not fit the static context, are the
	// shares of its hunks reviewed one per turn, within the caps; Context
	// then holds the header and overview only, and the first turn carries
	// the first unit.
	Units []diffctx.Unit
	// Estimate is what the review is planned to send, and what the caps
	// leave out.
	Estimate result.Estimate
	// Jobs is how many units run side by side (Config.Jobs).
	Jobs int
	// Sources, for a dry run, says where the window and Jobs came from.
	Sources result.DryRunSources
	// Messages are the static layer followed by the first turn's task.
	Messages []conversation.Message
	Tools    []tools.Definition
	// ToolTokens is our count of the tool definitions as sent.
	ToolTokens int
	Budget     conversation.Budget
	// Counter counts exactly; the plan's own figures (ToolTokens,
	// Context.Tokens, Estimate.FirstRequestTokens) are estimates when
	// Estimated is set: the plan was far from every limit, so bounds
	// decided it and nothing was counted.
	Counter   *conversation.Counter
	Estimated bool
	// price prices the expectation, when the model's price is known.
	price *llm.Price
	// verify plans a verification request after each unit.
	verify bool
	// bounded says upper bounds decided the plan, far from every limit.
	bounded bool

	// Leaks are the secrets the change adds, each reported as a finding
	// of its own; Redact is what replaced them, for the tools to use.
	Leaks  []diffctx.Leak
	Redact *redact.Redactor
	// Injections are the text the change adds that speaks to the
	// reviewer, each reported as a finding of its own.
	Injections []diffctx.Injection
	// Learnings are the team's learnings the static layer holds;
	// LearningsLeft those in force that its share of the budget left out.
	Learnings, LearningsLeft []learn.Learning
	LearningsFrom            string
	// force are the learnings in force for the change (learn.InForce).
	force []learn.Learning

	split *diffctx.Split
	// forecast is what the plan expects of each unit (nil: the prior);
	// budget the prompt-token budget it was planned under (0: none).
	forecast *forecast
	budget   int
	// symbols is the head's symbol index the overview's symbol lines came
	// from, handed to the run's tools (nil: none was read).
	symbols *symbols.Index
	// packedBy is the cap that bounded the units packed:
	// result.ReasonMaxUnits or result.ReasonPromptBudget.
	packedBy string
	guard    *guard
	hunks    int // hunkTokens, once known; -1 before
}

// Prepare loads the diff, builds the first request's context and plans the
// review within the caps, before any request. A diff with no files yields a
// Plan with no messages; callers report "nothing to review".
//
// The first request never exceeds the input budget: the overview is kept
// to half of the diff context's share, and a unit's hunks to the rest. A
// window too small for the system prompt, the tool definitions, the
// smallest overview and a minimal tool loop is an error matching
// ErrWindowTooSmall; caps too low for the first unit, ErrCapTooLow.
func Prepare(ctx context.Context, opts Options) (*Plan, error) {
	if err := opts.Budget.Validate(); err != nil {
		return nil, err
	}
	counter := opts.counter
	if counter == nil {
		c, err := newCounter(ctx, &opts.Config, Env{}, false, false)
		if err != nil {
			return nil, err
		}
		counter = c
	}
	d, err := diffctx.Load(ctx, diffctx.Options{Dir: opts.Dir, Base: opts.Base, Head: opts.Head, Ignore: opts.Ignore, FindCopies: opts.FindCopies, Since: opts.Since, ReviewData: opts.ReviewData, Label: opts.HeadLabel, CI: opts.CI, Resolved: opts.Resolved, Patches: patchesFor(opts.dryRun)})
	if err != nil {
		return nil, err
	}
	if opts.reviewing != nil && len(d.Files) > 0 {
		opts.reviewing(d.Root)
	}
	red := opts.Redactor()
	p := &Plan{Diff: d, Budget: opts.Budget, Counter: counter, Redact: red, hunks: -1, Jobs: opts.Jobs, forecast: opts.forecast}
	if len(d.Files) == 0 {
		return p, nil
	}
	if red != nil {
		p.Leaks = allowLeaks(d.Redact(red), opts.AllowSecrets, opts.AllowSecretRules, opts.ReportAllSecrets)
		opts.Instructions, _ = red.Redact(opts.Instructions)
		opts.Question, _ = red.Redact(opts.Question)
	}
	// After redaction: a finding quotes the text as the model sees it.
	p.Injections = d.Injections()
	set := tools.New(tools.Env{Root: d.Root, Head: d.HeadSHA, Base: d.MergeBase, Resolved: true, Checkout: d.Checkout, Ignore: opts.Ignore, FindCopies: opts.FindCopies, NoNavigation: opts.NoNavigation})
	if opts.OverviewSymbols && !opts.NoNavigation {
		p.symbols = touchedSymbols(ctx, set, d)
	}
	paths := make([]string, 0, len(d.Files))
	for _, f := range d.Files {
		paths = append(paths, f.Path)
	}
	p.force, p.LearningsFrom = learn.InForce(opts.Learnings, paths), opts.LearningsFrom
	p.Tools = offered(set, p.force, nil).Definitions()
	// Far from every limit, bounds settle the plan without counting (a
	// BPE encoding, or a round trip to the server a text): the plan they
	// make is the one exact counts would make (see far), and its figures
	// are then estimates. Caps on tokens or cost are limits
	// every request is held to: they are planned with exact counts.
	if !opts.ExactCounts && counter.Mode() != conversation.Estimate && opts.Caps.MaxPromptTokens <= 0 && opts.Caps.MaxCost <= 0 {
		q := *p
		if far, err := q.fill(opts, counter.Bounds()); err == nil && far {
			q.estimated(opts, counter)
			q.tooLarge()
			return &q, nil
		}
		p.hunks = q.hunks
	}
	if _, err := p.fill(opts, counter); err != nil {
		return nil, err
	}
	p.tooLarge()
	return p, nil
}

// fill plans the first request with counts by c. It reports whether
// the plan is far from every limit: the context holds every file's line
// and every hunk it may inline with room to spare, the static share was
// not raised to the smallest overview, and the caps leave nothing out.
// A plan so made with upper bounds is the plan exact counts make, since
// every decision it took is "fits", which smaller counts and a larger
// share keep (TestBoundedPlanIsExact).
func (p *Plan) fill(opts Options, counter *conversation.Counter) (far bool, err error) {
	d := p.Diff
	p.Counter = counter
	p.ToolTokens = record.ToolTokens(counter, p.Tools)

	sys := conversation.Message{ID: "m1", Role: conversation.System, Content: SystemPrompt(opts.Instructions), Layer: conversation.Static}
	static := []conversation.Message{sys}
	if m, ok := p.learnings(opts, counter); ok {
		static = append(static, m)
	}
	fixed := p.ToolTokens
	for _, m := range static {
		fixed += counter.CountMessage(m)
	}
	// The diff context gets the static share of the input budget, less what
	// the system prompt and tool definitions already take of it; but never
	// less than the smallest overview and unit, which the loop's share
	// gives up when the window is small.
	b := opts.Budget
	intro := max(counter.Count(unitPrompt(d, 1, 99, "")), counter.Count(unitPrompt(d, 99, 99, "")))
	smallest := diffctx.Render(d, 0, counter).Tokens
	floor := smallest + minUnitTokens + intro
	if need := fixed + floor + loopFloor(b, counter); need > b.Input() {
		return false, windowError(b, fixed, smallest, need)
	}
	room := max(b.Static()-fixed, floor)
	// Bounds only settle a plan far from every limit: once it is not,
	// the rest is left to the exact count, not done twice.
	bounds := counter.Kind() == conversation.UpperBound
	far = b.Static()-fixed >= floor
	task := taskPrompt(d.Base, d.Head)
	// Filling the diff context only to learn that a diff many times its
	// size does not fit would count a great deal for nothing.
	huge := opts.Question == "" && p.hunkTokens() > 2*room
	if bounds && (!far || huge) {
		return false, nil
	}
	if !huge {
		p.Context = diffctx.Render(d, room, counter)
		far = far && whole(p.Context)
		if bounds && !far {
			return false, nil
		}
	} else {
		far = false
	}
	if opts.Question != "" {
		task = opts.Question
	} else if huge || !fits(p.Context) {
		// A review whose hunks do not fit is split into units; a question
		// is answered with what fits and the tools.
		p.splitUnits(opts, counter, room, fixed+smallest+intro, intro, fixed)
	}
	message := func(task string) []conversation.Message {
		return append(slices.Clone(static),
			conversation.Message{ID: "m2", Role: conversation.User, Content: p.Context.Markdown, Layer: conversation.Static},
			conversation.Message{ID: "m3", Role: conversation.User, Content: task, Layer: conversation.Loop, Turn: 1})
	}
	if p.split != nil {
		p.Context = p.split.Context
		p.Context.Budget = room
		task = unitTask(opts.Jobs, d, 1, len(p.Units), p.Units[0].Markdown)
	}
	p.Messages = message(task)
	n := len(p.Messages)
	p.Messages[n-1].Hunks = p.split != nil
	kept, reason, err := p.planUnits(opts.Caps, opts.Model, p.Tokens(), fixed+counter.CountMessage(p.Messages[n-2]), intro)
	if err != nil {
		return false, err
	}
	if opts.Verify {
		p.planVerify()
	}
	if opts.SummarizeUnits && kept > 1 {
		// The summary of the units' reviews is one request more.
		p.Estimate.MaxRequests++
		p.guard.maxRequests = p.Estimate.MaxRequests
	}
	if p.split != nil {
		p.keepUnits(kept, reason, room, func() {
			p.Messages = message(unitTask(opts.Jobs, d, 1, len(p.Units), p.Units[0].Markdown))
		})
		if sp := p.split; sp.Cut != "" {
			p.Estimate.Cut = &result.CutFile{Path: sp.Cut, Tokens: sp.CutTokens, Share: sp.Budget,
				Window: wholeWindow(b, fixed, p.Context.Tokens+intro, sp.CutTokens, counter)}
		}
	}
	if p.Estimate.NotReviewed == nil {
		p.Estimate.NotReviewed = []result.NotReviewed{}
	}
	return far && p.split == nil && reason == "", nil
}

// splitUnits splits the diff into units of room tokens each, as many as
// the caps could keep. Units the budget could never keep are not packed,
// only estimated: a change of many thousand files costs what the units
// reviewed do. least is the fewest tokens a unit's first request takes,
// fixed those of the system prompt and tool definitions.
func (p *Plan) splitUnits(opts Options, counter *conversation.Counter, room, least, intro, fixed int) {
	b := opts.Budget
	most, by := opts.Caps.MaxUnits, result.ReasonMaxUnits
	if n := budgetUnits(opts.Caps.Budget, b, least, p.forecast); n > 0 && (most == 0 || n < most) {
		most, by = n, result.ReasonPromptBudget
	}
	p.packedBy = by
	p.split = diffctx.SplitUnits(p.Diff, diffctx.SplitOptions{Room: room, Unit: max(unitRoom(b, fixed, counter), room), Intro: intro, Most: unitMost(b, fixed, counter), MinShare: minUnitShare,
		Max: most, Counter: counter, List: listShare(b)})
	p.Units = p.split.Units
}

// keepUnits keeps the first kept units, when the caps or the packing
// left some out: the overview then says which cap left files out
// (reason), the first turn how many units there are (retell writes it
// again), and the estimate lists the files not reviewed.
func (p *Plan) keepUnits(kept int, reason string, room int, retell func()) {
	if kept < len(p.Units) || len(p.split.Left) > 0 {
		p.split.Keep(kept, p.Estimate.Cap)
		p.Units = p.split.Units
		p.Context = p.split.Context
		p.Context.Budget = room
		retell()
		p.Estimate.FirstRequestTokens = p.Tokens()
	}
	for _, l := range p.split.Left {
		p.Estimate.NotReviewed = append(p.Estimate.NotReviewed, result.NotReviewed{Left: l, Reason: reason})
	}
}

// budgetUnits is the most units a budget of prompt tokens can keep, each
// unit's first request taking at least first tokens; 0 when budget is
// no bound.
func budgetUnits(budget int, b conversation.Budget, first int, f *forecast) int {
	if budget <= 0 {
		return 0
	}
	_, t := f.expected([]int{first}, b, expectedPreviewTokens(b))
	return f.budget(budget)/max(t, 1) + 1
}

// tooLarge lists the files whose diff was too large to hold as not
// reviewed: only their size and shape are known.
func (p *Plan) tooLarge() {
	for _, f := range p.Diff.Files {
		if f.TooLarge {
			p.Estimate.NotReviewed = append(p.Estimate.NotReviewed, result.NotReviewed{Left: diffctx.Left{Path: f.Path, Hunks: 1, All: 1}, Reason: result.ReasonTooLarge})
		}
	}
}

// listShareOfStatic is the share of the static budget a line for every
// changed file may take: 14 files fit it easily in an 8k window, and past
// it the overview collapses by directory.
const listShareOfStatic = 0.25

// listShare is what a line for every changed file may take, in tokens.
func listShare(b conversation.Budget) int { return int(listShareOfStatic * float64(b.Static())) }

// estimated turns a plan made far from every limit with upper bounds
// into the plan to run: c counts from here on, and the plan's figures,
// which bounds would overstate several times, are counted with it. A
// figure shown must not be below the count it stands for, which an
// estimate can be; the few texts of a first request cost little to count
// (the requests' figures load the encoding anyway). The expectation is
// made again from the first request as counted.
func (p *Plan) estimated(opts Options, c *conversation.Counter) {
	p.Counter, p.Estimated, p.bounded = c, c.Kind() != conversation.ExactCount, true
	p.ToolTokens = record.ToolTokens(c, p.Tools)
	p.Context.Tokens = c.Count(p.Context.Markdown)
	p.Context.Budget = opts.Budget.Static() - p.ToolTokens
	for _, m := range p.Messages {
		if m.Layer == conversation.Static && m.Role == conversation.System {
			p.Context.Budget -= c.CountMessage(m)
		}
	}
	p.Estimate.FirstRequestTokens = p.Tokens()
	p.guard.firsts = []int{p.Estimate.FirstRequestTokens}
	p.budget = opts.Caps.Budget
	p.expect(p.guard.firsts)
}

// learningsShare is the most of the static budget the team's learnings
// take: the diff context keeps the rest.
const learningsShare = 0.2

// learnings is the static layer's message that holds the team's
// learnings in force for the change (learn.InForce), within their share
// of the static budget, redacted like the instructions; ok is false when
// none are in force or none fits. The plan keeps those it holds, and
// those it left out, for the dry run and the result.
func (p *Plan) learnings(opts Options, counter *conversation.Counter) (conversation.Message, bool) {
	if len(p.force) == 0 {
		return conversation.Message{}, false
	}
	text, held := learn.Section(p.force, int(learningsShare*float64(opts.Budget.Static())), counter.Count)
	p.Learnings, p.LearningsLeft = held, nil
	for _, l := range p.force {
		if !slices.ContainsFunc(held, func(h learn.Learning) bool { return h.N == l.N }) {
			p.LearningsLeft = append(p.LearningsLeft, l)
		}
	}
	if text == "" {
		return conversation.Message{}, false
	}
	if p.Redact != nil {
		text, _ = p.Redact.Redact(text)
	}
	return conversation.Message{ID: "m1l", Role: conversation.System, Content: text, Layer: conversation.Static, Learnings: true}, true
}

// whole reports whether ctx names every file on a line of its own and
// shows every hunk it may inline.
func whole(ctx *diffctx.Context) bool {
	for _, e := range ctx.Files {
		if e.Group != "" {
			return false
		}
	}
	return fits(ctx)
}

// hunkTokens is hunkEstimate of the plan's diff, worked out once for
// both the plan on bounds and the exact one.
func (p *Plan) hunkTokens() int {
	if p.hunks < 0 {
		p.hunks = hunkEstimate(p.Diff)
	}
	return p.hunks
}

// hunkEstimate is about how many tokens d's hunks take, by
// text.EstimateTokens, which is cheap.
func hunkEstimate(d *diffctx.Diff) int {
	n := 0
	for _, f := range d.Files {
		if f.Binary || f.HasTag(diffctx.TagLockfile) || f.HasTag(diffctx.TagGenerated) {
			continue
		}
		for i := range f.Hunks {
			n += text.EstimateTokens(f.Hunks[i].Body)
		}
	}
	return n
}

// fits reports whether the context shows every hunk it may inline.
func fits(ctx *diffctx.Context) bool {
	for _, e := range ctx.Files {
		if e.Reason == diffctx.ReasonBudget {
			return false
		}
	}
	return true
}

// capValue is the value of the cap named by reason, as a flag takes it.
func capValue(c result.Caps, reason string) string {
	switch reason {
	case result.ReasonMaxUnits:
		return fmt.Sprintf(" %d", c.MaxUnits)
	case result.ReasonPromptBudget:
		return fmt.Sprintf(" %d", c.Budget)
	case result.ReasonMaxPromptTokens:
		return fmt.Sprintf(" %d", c.MaxPromptTokens)
	case result.ReasonMaxCost:
		return fmt.Sprintf(" %g", c.MaxCost)
	}
	return ""
}

// Tokens is our count of everything the first request carries: an
// estimate when the plan's figures are (Estimated).
func (p *Plan) Tokens() int {
	return p.counter().CountMessages(p.Messages) + p.ToolTokens
}

// counter counts the plan's figures.
func (p *Plan) counter() *conversation.Counter { return p.Counter }

// patchesFor is how many bytes of the diff's file sections a run keeps
// whole for get_file_diff: none for a dry run, which calls no tool.
func patchesFor(dryRun bool) int {
	if dryRun {
		return 0
	}
	return diffctx.DefaultPatches
}
