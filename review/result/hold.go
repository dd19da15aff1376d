package result

import (
	"fmt"
	"sort"
	"strings"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/learn"
)

// UngroundedPolicy says what happens to a finding that is not grounded:
// one that cites lines the model was never shown.
type UngroundedPolicy string

// Ungrounded policies.
const (
	// UngroundedSummary keeps the finding out of inline comments,
	// annotations and the gate, and lists it in the summary as not
	// checked against the code it names.
	UngroundedSummary UngroundedPolicy = "summary"
	// UngroundedKeep treats it like any finding.
	UngroundedKeep UngroundedPolicy = "keep"
	// UngroundedDrop drops it, recording why.
	UngroundedDrop UngroundedPolicy = "drop"
)

// Quiet is which findings a review shows: what happens to the ungrounded
// ones, the least severity shown, and how many at most.
type Quiet struct {
	// Severity overrides the severity of findings by category, before
	// the minimum is compared with it.
	Severity    map[string]Severity
	Ungrounded  UngroundedPolicy
	MinSeverity Severity // "" shows every severity
	MaxFindings int      // 0 shows them all
	// Learnings are the team's learnings, which name why a finding the
	// model tied to one is withheld.
	Learnings []learn.Learning
}

// Reasons a finding is withheld.
const (
	reasonBelow = "below the minimum severity, %s"
	reasonOver  = "past the %d most severe findings"
)

// ByLearning is the reason a finding the model tied to learning n is
// withheld: "by learning 3: <its rule>".
func ByLearning(n int, ls []learn.Learning) string {
	for _, l := range ls {
		if l.N == n {
			return fmt.Sprintf("by learning %d: %s", n, text.OneLine(l.Rule, 80))
		}
	}
	return fmt.Sprintf("by learning %d", n)
}

// Hold applies q to r's findings, which are sorted most severe first:
// first the configured severities, then the rest. A
// finding that is not grounded is dropped (UngroundedDrop), listed in
// Ungrounded (UngroundedSummary), or kept. Findings below MinSeverity, and
// those after the first MaxFindings (by severity, then grounded first),
// move to Withheld with the reason: they stay in the JSON output and the
// run's record, and are not printed, posted, annotated or gated on.
func (r *Result) Hold(q Quiet) {
	r.Findings, r.Ungrounded, r.Withheld, r.Dropped = hold(q, r.Findings, r.Ungrounded, r.Withheld, r.Dropped)
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
}

// Hold applies q to the findings of a follow-up turn, as Result.Hold does.
func (a *Answer) Hold(q Quiet) {
	a.Findings, a.Ungrounded, a.Withheld, a.Dropped = hold(q, a.Findings, a.Ungrounded, a.Withheld, a.Dropped)
	if a.Findings == nil {
		a.Findings = []Finding{}
	}
}

func hold(q Quiet, fs, ungrounded []Finding, withheld, dropped []Dropped) ([]Finding, []Finding, []Dropped, []Dropped) {
	changed := false
	for i := range fs {
		if s, ok := q.Severity[fs[i].Category]; ok && s != fs[i].Severity {
			fs[i].Severity, changed = s, true
		}
	}
	if changed {
		// Most severe first still, as the findings were sorted.
		sort.SliceStable(fs, func(i, j int) bool { return fs[i].Severity.Rank() > fs[j].Severity.Rank() })
	}
	var kept []Finding
	for _, f := range fs {
		switch {
		case f.Learning > 0:
			withheld = append(withheld, Dropped{Finding: f, Reason: ByLearning(f.Learning, q.Learnings)})
		case f.Grounded || q.Ungrounded == UngroundedKeep:
			kept = append(kept, f)
		case q.Ungrounded == UngroundedDrop:
			dropped = append(dropped, Dropped{Finding: f, Reason: "not grounded: " + f.Unshown()})
		default:
			ungrounded = append(ungrounded, f)
		}
	}
	below := func(list []Finding) []Finding {
		if q.MinSeverity == "" {
			return list
		}
		var out []Finding
		for _, f := range list {
			if f.Severity.Rank() < q.MinSeverity.Rank() {
				withheld = append(withheld, Dropped{Finding: f, Reason: fmt.Sprintf(reasonBelow, q.MinSeverity)})
				continue
			}
			out = append(out, f)
		}
		return out
	}
	kept, ungrounded = below(kept), below(ungrounded)
	if q.MaxFindings > 0 && len(kept) > q.MaxFindings {
		// The most severe first; among equals, the grounded ones, which
		// the model checked against the code.
		sort.SliceStable(kept, func(i, j int) bool {
			a, b := kept[i], kept[j]
			if a.Severity.Rank() != b.Severity.Rank() {
				return a.Severity.Rank() > b.Severity.Rank()
			}
			return a.Grounded && !b.Grounded
		})
		for _, f := range kept[q.MaxFindings:] {
			withheld = append(withheld, Dropped{Finding: f, Reason: fmt.Sprintf(reasonOver, q.MaxFindings)})
		}
		kept = kept[:q.MaxFindings]
	}
	return kept, ungrounded, withheld, dropped
}

// Unshown says which lines the finding cites that the model was never
// shown, as its evidence tells: "lines 40-44 of a.go were never shown to
// the model".
func (f Finding) Unshown() string {
	p := text.QuotePath(f.Path)
	start, end := f.Cites()
	if start == 0 {
		return "nothing of " + p + " was shown to the model"
	}
	var runs []string
	for l := start; l <= end; l++ {
		if f.shown(l) {
			continue
		}
		k := l
		for k < end && !f.shown(k+1) {
			k++
		}
		if k > l {
			runs = append(runs, fmt.Sprintf("%d-%d", l, k))
		} else {
			runs = append(runs, fmt.Sprint(l))
		}
		l = k
	}
	if len(runs) == 0 {
		return "every line it cites was shown to the model"
	}
	if len(runs) > 1 || strings.Contains(runs[0], "-") {
		return fmt.Sprintf("lines %s of %s were never shown to the model", strings.Join(runs, ", "), p)
	}
	return fmt.Sprintf("line %s of %s was never shown to the model", runs[0], p)
}

// shown reports whether the finding's evidence holds line.
func (f Finding) shown(line int) bool {
	for _, e := range f.Evidence {
		if e.Path == f.Path && line >= e.StartLine && line <= e.EndLine {
			return true
		}
	}
	return false
}

// HeldLine says how many findings the review holds back and why, in one
// line of plain text: "2 findings withheld (1 below the minimum severity,
// high; 1 past the 5 most severe findings); 1 not checked against the code
// it names". It is "" when none is held back.
func (r *Result) HeldLine() string { return heldLine(r.Withheld, r.Ungrounded) }

// HeldLine is Result.HeldLine for a follow-up turn.
func (a *Answer) HeldLine() string { return heldLine(a.Withheld, a.Ungrounded) }

func heldLine(withheld []Dropped, ungrounded []Finding) string {
	var parts []string
	if len(withheld) > 0 {
		counts := map[string]int{}
		var order []string
		for _, w := range withheld {
			if counts[w.Reason] == 0 {
				order = append(order, w.Reason)
			}
			counts[w.Reason]++
		}
		var why []string
		for _, r := range order {
			why = append(why, fmt.Sprintf("%d %s", counts[r], r))
		}
		parts = append(parts, fmt.Sprintf("%s withheld (%s)", text.Plural(len(withheld), "finding"), strings.Join(why, "; ")))
	}
	if n := len(ungrounded); n > 0 {
		names := "they name"
		if n == 1 {
			names = "it names"
		}
		parts = append(parts, fmt.Sprintf("%s not checked against the code %s", text.Plural(n, "finding"), names))
	}
	return strings.Join(parts, "; ")
}
