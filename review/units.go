package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/review/record"
	"github.com/reviewdev/review/review/result"
)

// A diff whose hunks do not fit the static diff context is reviewed in
// units, one user turn each: the static layer keeps the header and the
// overview of every file, and each turn's message carries the hunks of the
// next unit, in the overview's priority order. Earlier units' turns are
// pruned before each loop like follow-up turns are, and the findings of all
// units make one list.

// unitPrompt is the user message of unit k of n: what to do, then the
// unit's hunks (md).
func unitPrompt(d *diffctx.Diff, k, n int, md string) string {
	var b strings.Builder
	switch {
	case n == 1:
		fmt.Fprintf(&b, "Review the change from %s to %s. Its hunks did not fit the diff context above, so they are below. Explore with the tools as needed, then call "+toolname.SubmitReview+" with your findings.", d.Base, d.Head)
	case k == 1:
		fmt.Fprintf(&b, "Review the change from %s to %s. Its hunks do not fit one request, so it is reviewed in %d units, one per turn, in the priority order of the overview above, which names the unit of each file. ", d.Base, d.Head, n)
		fmt.Fprintf(&b, "This is unit 1 of %d; its hunks are below. The hunks of later units come with their turns: fetch them with "+toolname.GetFileDiff+" now only if this unit cannot be judged without them. Explore with the tools as needed, then call "+toolname.SubmitReview+" with the findings in this unit's hunks.", n)
	default:
		fmt.Fprintf(&b, "Review unit %d of %d: the hunks below. The findings you submitted for earlier units are kept; report only new ones. Explore with the tools as needed, then call "+toolname.SubmitReview+" with this unit's findings.", k, n)
		if k == n {
			b.WriteString(" This is the last unit: let the summary cover the whole change.")
		}
	}
	if md != "" {
		b.WriteString("\n\n" + md)
	}
	return b.String()
}

// units returns the units the run was planned with; none for a diff that
// fitted the static context.
func (s *Session) units() ([]diffctx.Unit, error) {
	if len(s.Run.Settings) == 0 {
		return nil, nil
	}
	var set Settings
	if err := json.Unmarshal(s.Run.Settings, &set); err != nil {
		return nil, fmt.Errorf("run %s has unreadable settings (%v): start a new review", s.Run.ID, err)
	}
	return set.Units, nil
}

// review runs the loop of the first turn and then, for a diff reviewed in
// units, a turn for each further unit, and merges what the model submitted.
// A request the plan's bounds refuse ends the review where it is: the units
// not finished are reported as not reviewed, with what was found so far.
func (s *Session) review(ctx context.Context) (*result.Result, error) {
	units, err := s.units()
	if err != nil {
		return nil, err
	}
	if sideBySide(s.Jobs, len(units)) {
		return s.reviewSide(ctx, units)
	}
	n := max(len(units), 1)
	opts := AskOptions{Limits: conversation.LimitsFrom(s.Budget)}
	// Units follow one another: the earliest are dropped first, and once
	// dropped stay in the summary. Relevance selection would weigh every
	// dropped unit again against each next one, whose prompt is hunks,
	// not a question: work that grows with the square of the units.
	opts.Limits.Select = conversation.SelectRecency
	var findings []result.Finding
	submitted := true
	summary := ""
	left := s.notReviewed
	for k := 1; k <= n; k++ {
		s.guard.start(k)
		if len(units) > 1 {
			s.unitNow, s.unitsAll = k, len(units)
		}
		if k <= len(units) {
			s.unitParts = units[k-1].Parts
		}
		if k > 1 {
			md, err := diffctx.RenderUnit(s.Diff, units[k-1])
			if err != nil {
				return nil, fmt.Errorf("unit %d of %d: %w", k, n, err)
			}
			s.History.Append(conversation.Message{Role: conversation.User, Content: unitPrompt(s.Diff, k, n, md),
				Layer: conversation.Loop, Turn: s.History.Turns() + 1, Hunks: true})
		}
		sub, text, err := s.turn(ctx, opts, false)
		var capped *capError
		if errors.As(err, &capped) {
			// Stopped by the plan's bounds: this unit and the later
			// ones are not reviewed, unless this one was submitted.
			rest := units[min(k-1, len(units)):]
			if sub != nil {
				findings = append(findings, sub.Findings...)
				summary = sub.Summary
				rest = units[min(k, len(units)):]
			}
			if len(units) == 0 && sub == nil {
				rest = wholeDiff(s.Diff)
			}
			left = mergeNotReviewed(left, notReviewed(rest, capped.Reason), s.Diff)
			s.Stopped = capped.Error()
			break
		}
		if err != nil {
			return nil, err
		}
		if k == 1 {
			// A first request refused as too long re-plans the review,
			// in more units or in units where there were none.
			if units, err = s.units(); err != nil {
				return nil, err
			}
			n = max(len(units), 1)
		}
		if sub == nil {
			submitted = false
			summary = text
			continue
		}
		findings = append(findings, sub.Findings...)
		summary = sub.Summary
	}
	if left == nil {
		left = []result.NotReviewed{}
	}
	r := &result.Result{
		RunID: s.Run.ID, Revisions: result.RevisionsOf(s.Diff),
		Model: s.Model, Usage: s.Usage, Steps: s.Steps,
		Summary: summary, Submitted: submitted,
		NotReviewed: left, Stopped: s.Stopped, Learnings: s.learnings,
	}
	// Checked together, findings of different units on the same line
	// are merged like duplicates of one unit.
	// The secrets first: a model's finding on the same line merges into
	// the one review made itself.
	r.Findings, r.Dropped = checkFindings(s.Diff, append(s.localFindings(), findings...), s.OffDiff)
	if r.Findings == nil {
		r.Findings = []result.Finding{}
	}
	return r, nil
}

// shrinkFirst re-plans the first turn of a run whose first request the
// provider refused as longer than its context window, which happens when
// the window it was planned for (the model table, --context-window) is
// larger than the provider's. The static layer is written once and never
// pruned, but here the provider has taken no request with it, so nothing
// the model saw changes: the diff context gets half the tokens that it and
// the turn's hunks took, and a review's hunks that no longer fit go into
// units, as Prepare plans them for a smaller window; a question keeps its
// text. It reports whether the turn got smaller, and records the new plan
// with the run and as a "replan" event before the step it precedes.
func (s *Session) shrinkFirst(ask bool) (bool, error) {
	static, task, ok := s.History.FirstTurn()
	if !ok || s.lane != nil {
		// A unit side by side shares its static layer with the others,
		// which may have sent it already.
		return false, nil
	}
	d, c := s.Diff, s.Counter
	before := c.Count(static)
	if !ask {
		before += c.Count(task)
	}
	room := before / 2
	dctx := diffctx.Render(d, room, c)
	var units []diffctx.Unit
	var left []result.NotReviewed
	after := c.Count(dctx.Markdown)
	if !ask {
		task = taskPrompt(d.Base, d.Head)
		if !fits(dctx) {
			intro := max(c.Count(unitPrompt(d, 1, 99, "")), c.Count(unitPrompt(d, 99, 99, "")))
			// The budget holds as it did in the plan: a unit's first
			// request takes at least the room of its diff context.
			most, by := s.Caps.MaxUnits, result.ReasonMaxUnits
			if n := budgetUnits(s.Caps.Budget, s.Budget, room, nil); n > 0 && (most == 0 || n < most) {
				most, by = n, result.ReasonPromptBudget
			}
			sp := diffctx.SplitUnits(d, diffctx.SplitOptions{Room: room, Intro: intro, Max: most, Counter: c, List: listShare(s.Budget)})
			dctx, units = sp.Context, sp.Units
			dctx.Budget = room
			if len(units) > 0 {
				task = unitPrompt(d, 1, len(units), units[0].Markdown)
			}
			for _, l := range sp.Left {
				left = append(left, result.NotReviewed{Left: l, Reason: by})
			}
		}
		after = c.Count(dctx.Markdown) + c.Count(task)
	}
	if after >= before {
		return false, nil
	}
	s.notReviewed = mergeNotReviewed(s.notReviewed, left, d)
	// What the turn shows whole is the new plan's: the smaller diff
	// context, or the first of the new units.
	s.contextWhole, s.unitParts = nil, nil
	if len(units) > 0 {
		s.unitParts = units[0].Parts
	} else {
		s.contextWhole = wholeIn(dctx)
	}
	var set Settings
	if len(s.Run.Settings) > 0 {
		if err := json.Unmarshal(s.Run.Settings, &set); err != nil {
			return false, fmt.Errorf("run %s has unreadable settings (%v): start a new review", s.Run.ID, err)
		}
	}
	set.Units = units
	raw, err := json.Marshal(set)
	if err != nil {
		return false, err
	}
	s.Run.Settings = raw
	if err := s.History.Replan(dctx.Markdown, task); err != nil {
		return false, err
	}
	ev := record.Replan{Turn: 1, Reasons: []string{"context_length"}, Before: before, After: after, Units: len(units)}
	if err := s.eventNext(ev); err != nil {
		return false, err
	}
	return true, s.save()
}

// wholeDiff is the diff as one unit: every hunk of every file that may be
// inlined, for a review stopped in its only turn.
func wholeDiff(d *diffctx.Diff) []diffctx.Unit {
	var u diffctx.Unit
	for _, f := range d.Files {
		if len(f.Hunks) > 0 && !f.Binary {
			u.Parts = append(u.Parts, diffctx.Part{Path: f.Path, First: 1, Last: len(f.Hunks)})
		}
	}
	return []diffctx.Unit{u}
}
