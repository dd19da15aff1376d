package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/diffctx"
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
		fmt.Fprintf(&b, "Review the change from %s to %s. Its hunks did not fit the diff context above, so they are below. Explore with the tools as needed, then call submit_review with your findings.", d.Base, d.Head)
	case k == 1:
		fmt.Fprintf(&b, "Review the change from %s to %s. Its hunks do not fit one request, so it is reviewed in %d units, one per turn, in the priority order of the overview above, which names the unit of each file. ", d.Base, d.Head, n)
		fmt.Fprintf(&b, "This is unit 1 of %d; its hunks are below. The hunks of later units come with their turns: fetch them with get_file_diff now only if this unit cannot be judged without them. Explore with the tools as needed, then call submit_review with the findings in this unit's hunks.", n)
	default:
		fmt.Fprintf(&b, "Review unit %d of %d: the hunks below. The findings you submitted for earlier units are kept; report only new ones. Explore with the tools as needed, then call submit_review with this unit's findings.", k, n)
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
func (s *Session) review(ctx context.Context) (*Result, error) {
	units, err := s.units()
	if err != nil {
		return nil, err
	}
	n := max(len(units), 1)
	opts := AskOptions{Limits: conversation.LimitsFrom(s.Budget)}
	var findings []Finding
	submitted := true
	summary := ""
	left := s.notReviewed
	for k := 1; k <= n; k++ {
		if s.guard != nil {
			s.guard.unit = k - 1
		}
		if k > 1 {
			md, err := diffctx.RenderUnit(s.Diff, units[k-1])
			if err != nil {
				return nil, fmt.Errorf("unit %d of %d: %w", k, n, err)
			}
			s.Conv.Append(conversation.Message{Role: conversation.User, Content: unitPrompt(s.Diff, k, n, md),
				Layer: conversation.Loop, Turn: s.Conv.Turns() + 1})
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
		if sub == nil {
			submitted = false
			summary = text
			continue
		}
		findings = append(findings, sub.Findings...)
		summary = sub.Summary
	}
	if left == nil {
		left = []NotReviewed{}
	}
	r := &Result{
		RunID: s.Run.ID, Revisions: revisionsOf(s.Diff),
		Model: s.ModelName, Usage: s.Usage, Steps: s.Steps,
		Summary: summary, Submitted: submitted,
		NotReviewed: left, Stopped: s.Stopped,
	}
	// Checked together, findings of different units on the same line
	// are merged like duplicates of one unit.
	r.Findings, r.Dropped = checkFindings(s.Diff, findings, s.OffDiff)
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	return r, nil
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
