package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/reviewdev/review/review/result"
)

// Target is a built case as a review sees it: the repository, the commits,
// and the tool memory its runs are recorded in.
type Target struct {
	Dir, Base, Head string
	Store           string
}

// Reviewed is what a review of a target came to: its result, or the error
// that stopped it, and the run it was recorded as, if it was.
type Reviewed struct {
	Result *result.Result
	RunID  string
	Err    error
	// Kind, if set, is the kind of failure Err is (a Fail constant);
	// otherwise Err is taken for FailTimeout when a deadline ended it, else
	// FailError.
	Kind string
}

// Reviewer runs the reviews of a bench. The command's runs each target
// through the same entry as `review --base`, with the same settings.
type Reviewer interface {
	// Plan is the plan of a review of t, before any request: the dry run.
	Plan(ctx context.Context, t Target) (result.Estimate, error)
	// Review reviews t.
	Review(ctx context.Context, t Target) Reviewed
}

// Judge tells whether a finding describes a defect: a second opinion on
// the findings that matched by location, reported apart from the score.
type Judge interface {
	// Describes says whether f describes defect (the expected issue's
	// description, or its case's). A verdict comes with what asking cost
	// even when err says it could not be read.
	Describes(ctx context.Context, defect string, f result.Finding) (Verdict, error)
}

// Verdict is a judge's answer: yes or no, in its own words, and what
// asking cost in US dollars.
type Verdict struct {
	Yes    bool
	Answer string
	Cost   float64
}

// Options bound and shape a bench.
type Options struct {
	// Slack widens each expected range by this many lines on each side.
	Slack int
	// Repeat runs each case this many times (at least once).
	Repeat int
	// Jobs is how many cases run side by side (at least one).
	Jobs int
	// MaxCost, if above 0, is the US dollars the bench may spend: once
	// spent, no more cases start.
	MaxCost float64
	// Shard and Of select every Of-th case from the Shard-th (from 1);
	// Of 0 runs them all.
	Shard, Of int
	// Journal is the file each case's score is appended to once it is
	// scored; with Resume, the cases it holds scored are not run again.
	Journal string
	Resume  bool
	// Stores is the directory of the tool memories, one a case.
	Stores string
	// Planned, if set, is told the plan of the cases to run, summed,
	// before any is run; an error stops the bench.
	Planned func(Plan) error
	// Progress, if set, is told of each case once it is scored.
	Progress func(Progress)
	// Judge, if set, is asked of every matched finding whether it
	// describes the defect it matched.
	Judge Judge
}

// Plan is what a bench is expected to take, the dry runs of its cases
// summed, each times the repeats.
type Plan struct {
	// Each is every case to run, as built and planned.
	Each    []PlannedCase
	Cases   int
	Resumed int
	// Failed are the cases that could not be built or planned.
	Failed       int
	Requests     int
	MaxRequests  int
	PromptTokens int
	// Cost is the expected cost, when every case's price is known.
	Cost *float64
}

// PlannedCase is one case as built and planned: the commits, what it
// expects, the plan of one review of it, or why it could not be built.
type PlannedCase struct {
	ID         string
	Base, Head string
	Expected   []Expected
	Derived    bool
	Estimate   result.Estimate
	Err        error
}

// ErrPlanOnly, returned by Options.Planned, ends a bench after its plan
// (a dry run): Run then returns no scorecard and no error.
var ErrPlanOnly = errors.New("plan only")

// Progress is a case done.
type Progress struct {
	Done, Of int
	Case     *CaseScore
	// Spent is what the bench has cost so far.
	Spent float64
}

// Bench runs the cases of a corpus and scores them.
type Bench struct {
	Workspace *Workspace
	Reviewer  Reviewer
	Options
}

// Select returns the cases of shard k of n (from 1): every n-th from the
// k-th. n 0 selects all.
func Select(cases []Case, k, n int) []Case {
	if n <= 0 {
		return cases
	}
	var out []Case
	for i := k - 1; i < len(cases); i += n {
		out = append(out, cases[i])
	}
	return out
}

// ErrMaxCost is the bound that stopped a bench before its last case.
var ErrMaxCost = errors.New("the bench's cost bound was spent")

// Run builds, plans, reviews and scores the cases, and returns the
// scorecard of those it scored, and of those it resumed. A bench
// interrupted (ctx) returns what it scored with ctx's error; the journal
// has it too.
func (b *Bench) Run(ctx context.Context, cases []Case, meta Meta) (*Scorecard, error) {
	if b.Repeat < 1 {
		b.Repeat = 1
	}
	if b.Jobs < 1 {
		b.Jobs = 1
	}
	index := map[string]int{}
	for i, c := range cases {
		index[c.ID] = i + 1
	}
	cases = Select(cases, b.Shard, b.Of)
	done, err := b.resumed(index)
	if err != nil {
		return nil, err
	}
	var todo []Case
	for _, c := range cases {
		if _, ok := done[c.ID]; !ok {
			todo = append(todo, c)
		}
	}
	if err := b.startJournal(done); err != nil {
		return nil, err
	}
	// Build and plan every case first: the plan is summed before any
	// request, and a corpus that cannot be built says so at once.
	built := make([]*Built, len(todo))
	plans := make([]result.Estimate, len(todo))
	berr := make([]error, len(todo))
	b.each(ctx, len(todo), func(i int) {
		bl, err := b.Workspace.Build(ctx, todo[i])
		if err != nil {
			berr[i] = err
			return
		}
		built[i] = bl
		if plans[i], err = b.Reviewer.Plan(ctx, b.target(bl)); err != nil {
			berr[i] = &BuildError{ID: todo[i].ID, Err: fmt.Errorf("planning its review: %w", err)}
		}
	})
	defer func() {
		for _, bl := range built {
			if bl != nil {
				bl.Remove()
			}
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	plan := b.sumPlan(todo, built, plans, berr, len(done))
	if b.Planned != nil {
		if err := b.Planned(plan); errors.Is(err, ErrPlanOnly) {
			return nil, nil
		} else if err != nil {
			return nil, err
		}
	}

	st := &runState{b: b, index: index, todo: todo, built: built, berr: berr, scored: make([]*CaseScore, len(todo)), n: len(done), of: len(cases)}
	b.each(ctx, len(todo), func(i int) { st.run(ctx, i) })
	scored, notRun, stopped := st.scored, st.notRun, st.stopped
	for i, cs := range scored {
		if cs != nil {
			done[todo[i].ID] = cs
		}
	}
	card := &Scorecard{Meta: meta}
	for _, c := range cases {
		if cs, ok := done[c.ID]; ok {
			card.Cases = append(card.Cases, *cs)
		}
	}
	card.Total.NotRun = notRun
	if stopped {
		card.Meta.Stopped = fmt.Sprintf("$%.4f, the bound on cost, spent: %d case(s) not run", b.MaxCost, len(notRun))
	}
	if ctx.Err() != nil {
		card.Meta.Stopped = fmt.Sprintf("interrupted: %d of %d case(s) scored", len(card.Cases), len(cases))
	}
	card.Summarize()
	if err := ctx.Err(); err != nil {
		return card, err
	}
	if stopped {
		return card, ErrMaxCost
	}
	return card, nil
}

// sumPlan adds up the plans of the cases to run, each repeated.
func (b *Bench) sumPlan(todo []Case, built []*Built, plans []result.Estimate, berr []error, resumed int) Plan {
	plan := Plan{Cases: len(todo), Resumed: resumed}
	costKnown := true
	for i, p := range plans {
		pc := PlannedCase{ID: todo[i].ID, Estimate: p, Err: berr[i]}
		if bl := built[i]; bl != nil {
			pc.Base, pc.Head, pc.Expected, pc.Derived = bl.Base, bl.Head, bl.Expected, bl.Derived
		}
		plan.Each = append(plan.Each, pc)
		if berr[i] != nil {
			plan.Failed++
			continue
		}
		plan.Requests += p.Requests * b.Repeat
		plan.MaxRequests += p.MaxRequests * b.Repeat
		plan.PromptTokens += p.PromptTokens * b.Repeat
		if p.Cost == nil {
			costKnown = false
		} else {
			plan.Cost = addCost(plan.Cost, *p.Cost*float64(b.Repeat))
		}
	}
	if !costKnown {
		plan.Cost = nil
	}
	return plan
}

// runState is what the cases of one Run share as they run side by side.
type runState struct {
	b      *Bench
	index  map[string]int
	todo   []Case
	built  []*Built
	berr   []error
	scored []*CaseScore

	mu      sync.Mutex
	spent   float64
	notRun  []string
	stopped bool
	n, of   int
}

// run reviews the ith case to run, its repeats, and scores it.
func (st *runState) run(ctx context.Context, i int) {
	b, c := st.b, st.todo[i]
	cs := &CaseScore{ID: c.ID, Index: st.index[c.ID], Description: c.Description, Repo: c.Repo, RevertOf: c.RevertOf, Clean: c.Clean, Expected: c.Expected}
	if st.berr[i] != nil {
		cs.Error = st.berr[i].Error()
	} else if !st.repeat(ctx, i, cs) {
		return
	}
	cs.sum()
	st.mu.Lock()
	defer st.mu.Unlock()
	st.scored[i] = cs
	st.n++
	if err := b.journal(cs); err != nil {
		// The score stands; only a resume would miss it.
		cs.Error = strings.TrimSpace(cs.Error + " (not journalled: " + err.Error() + ")")
	}
	if b.Progress != nil {
		b.Progress(Progress{Done: st.n, Of: st.of, Case: cs, Spent: st.spent})
	}
}

// repeat reviews a built case its number of times, within the bound on
// cost; false when no run was made.
func (st *runState) repeat(ctx context.Context, i int, cs *CaseScore) bool {
	b, c, bl := st.b, st.todo[i], st.built[i]
	cs.Base, cs.Head, cs.Expected, cs.Derived = bl.Base, bl.Head, bl.Expected, bl.Derived
	cs.Store = b.target(bl).Store
	for r := 0; r < b.Repeat; r++ {
		st.mu.Lock()
		over := b.MaxCost > 0 && st.spent >= b.MaxCost
		if over {
			st.stopped = true
		}
		st.mu.Unlock()
		if over || ctx.Err() != nil {
			break
		}
		run := b.review(ctx, bl, cs.Expected, c.Description)
		if ctx.Err() != nil && run.Failure != nil {
			break // interrupted: not a failure of the model
		}
		cs.Runs = append(cs.Runs, run)
		st.mu.Lock()
		st.spent += run.CostUSD + run.JudgeCostUSD
		st.mu.Unlock()
	}
	// The scratch clone goes as soon as its case is done: a large
	// corpus is not held on disk all at once.
	bl.Remove()
	st.built[i] = nil
	if len(cs.Runs) == 0 {
		st.mu.Lock()
		if ctx.Err() == nil {
			st.notRun = append(st.notRun, c.ID)
		}
		st.mu.Unlock()
		return false
	}
	return true
}

// target is the review of a built case.
func (b *Bench) target(bl *Built) Target {
	store := ""
	if b.Stores != "" {
		store = filepath.Join(b.Stores, bl.Case.ID)
	}
	return Target{Dir: bl.Dir, Base: bl.Base, Head: bl.Head, Store: store}
}

// review runs one review of a built case and scores it.
func (b *Bench) review(ctx context.Context, bl *Built, expected []Expected, about string) RunScore {
	start := time.Now()
	rv := b.Reviewer.Review(ctx, b.target(bl))
	wall := time.Since(start).Seconds()
	var s RunScore
	res := rv.Result
	switch {
	case rv.Err != nil:
		s.Failure = &Failure{Kind: rv.Kind, Error: rv.Err.Error()}
		if s.Failure.Kind == "" {
			s.Failure.Kind = FailError
			if errors.Is(rv.Err, context.DeadlineExceeded) {
				s.Failure.Kind = FailTimeout
			}
		}
	case res == nil:
		s.Failure = &Failure{Kind: FailError, Error: "the review returned no result"}
	case len(res.FailedUnits) > 0:
		f := res.FailedUnits[0]
		s.Failure = &Failure{Kind: FailUnit, Error: fmt.Sprintf("%d unit(s) failed; unit %d (%s): %s", len(res.FailedUnits), f.Unit, strings.Join(f.Files, ", "), f.Error)}
	case !res.Submitted:
		s.Failure = &Failure{Kind: FailNotSubmitted, Error: "the model did not submit its review"}
	default:
		// What the review reports: the findings posted on lines and
		// those it lists as not checked against the code they name
		// (--ungrounded summary); --ungrounded drop leaves the latter
		// out, which is what a bench of it measures.
		reported := append(slices.Clone(res.Findings), res.Ungrounded...)
		s = Score(expected, reported, res.Dropped, b.Slack)
		if b.Judge != nil {
			b.judge(ctx, &s, expected, reported, about)
		}
	}
	s.RunID = rv.RunID
	if res != nil {
		if s.RunID == "" {
			s.RunID = res.RunID
		}
		s.Requests = res.Usage.Requests
		s.PromptTokens = res.Usage.Prompt
		s.CompletionTokens = res.Usage.Completion
		if res.Cost != nil {
			s.CostUSD = *res.Cost
		}
	}
	if s.Failure != nil {
		s.Failures = 1
		s.Findings = []Scored{}
	}
	s.WallS = wall
	return s
}

// judge asks the judge of each matched finding whether it describes the
// defect it matched. A derived expected issue says only where; its case's
// description says what.
func (b *Bench) judge(ctx context.Context, s *RunScore, expected []Expected, fs []result.Finding, about string) {
	for i := range s.Findings {
		m := s.Findings[i].Match
		if m < 0 {
			continue
		}
		defect := expected[m].Description
		if defect == "" || defect == derivedDescription {
			defect = about
		}
		v, err := b.Judge.Describes(ctx, defect, fs[i])
		s.JudgeCostUSD += v.Cost
		s.Findings[i].Judge = oneLine(v.Answer)
		if err != nil {
			s.JudgeFailures++
			if s.Findings[i].Judge == "" {
				s.Findings[i].Judge = "error: " + oneLine(err.Error())
			}
			continue
		}
		yes := v.Yes
		s.Findings[i].Described = &yes
		s.Judged++
		if yes {
			s.Described++
		}
	}
}

// each runs fn(0..n-1), b.Jobs at a time, and stops starting new ones
// once ctx is done.
func (b *Bench) each(ctx context.Context, n int, fn func(int)) {
	sem := make(chan struct{}, b.Jobs)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			fn(i)
		}(i)
	}
	wg.Wait()
}

func addCost(p *float64, v float64) *float64 {
	if p == nil {
		return &v
	}
	s := *p + v
	return &s
}

// resumed reads the journal's scored cases, when resuming: a case scored
// without a failure is not run again; one that failed is.
func (b *Bench) resumed(index map[string]int) (map[string]*CaseScore, error) {
	done := map[string]*CaseScore{}
	if !b.Resume || b.Journal == "" {
		return done, nil
	}
	data, err := os.ReadFile(b.Journal)
	if errors.Is(err, os.ErrNotExist) {
		return done, nil
	}
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var cs CaseScore
		if json.Unmarshal(sc.Bytes(), &cs) != nil {
			continue // a line cut by the interruption
		}
		if _, ok := index[cs.ID]; !ok || cs.Failures > 0 || cs.Error != "" {
			continue
		}
		cs.Index = index[cs.ID]
		done[cs.ID] = &cs
	}
	return done, nil
}

// startJournal starts the journal afresh with the cases resumed.
func (b *Bench) startJournal(done map[string]*CaseScore) error {
	if b.Journal == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(b.Journal), 0o755); err != nil {
		return err
	}
	var buf bytes.Buffer
	for _, cs := range done {
		line, err := json.Marshal(cs)
		if err != nil {
			return err
		}
		buf.Write(append(line, '\n'))
	}
	return os.WriteFile(b.Journal, buf.Bytes(), 0o644)
}

// journal appends a scored case to the journal.
func (b *Bench) journal(cs *CaseScore) error {
	if b.Journal == "" {
		return nil
	}
	line, err := json.Marshal(cs)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(b.Journal, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
