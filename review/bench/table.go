package bench

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/reviewdev/review/internal/text"
)

// rate formats a rate as a share with two decimals, or "-" when unknown.
func rate(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", *p)
}

func usd(v float64) string { return fmt.Sprintf("$%.4f", v) }

func seconds(v float64) string { return fmt.Sprintf("%.1fs", v) }

// WriteTable writes the scorecard for people: one line per case, the
// totals last, then what the totals hide (recall by severity, clean cases,
// failures, the spread of repeats).
func WriteTable(w io.Writer, s *Scorecard) error {
	rows := [][]string{{"case", "tp", "fp", "fn", "precision", "recall", "f1", "requests", "tokens", "cost", "wall", "note"}}
	for i := range s.Cases {
		c := &s.Cases[i]
		name := text.OneLine(c.ID, 60)
		if c.Clean {
			name += " (clean)"
		}
		rows = append(rows, []string{name, fmt.Sprint(c.TP), fmt.Sprint(c.FP), fmt.Sprint(c.FN),
			rate(c.Precision), rate(c.Recall), rate(c.F1), fmt.Sprint(c.Requests), text.Number(c.PromptTokens + c.CompletionTokens), usd(c.CostUSD), seconds(c.WallS), caseNote(c)})
	}
	t := &s.Total
	rows = append(rows, []string{fmt.Sprintf("total (%s)", text.Plural(t.Cases, "case")), fmt.Sprint(t.TP), fmt.Sprint(t.FP), fmt.Sprint(t.FN),
		rate(t.Precision), rate(t.Recall), rate(t.F1), fmt.Sprint(t.Requests), text.Number(t.PromptTokens + t.CompletionTokens), usd(t.CostUSD), seconds(t.WallS), failNote(t.Failures)})
	if err := writeColumns(w, rows); err != nil {
		return err
	}
	var lines []string
	if len(t.RecallBySeverity) > 0 {
		var parts []string
		for _, k := range severityOrder(t.RecallBySeverity) {
			r := t.RecallBySeverity[k]
			parts = append(parts, fmt.Sprintf("%s %s (%d/%d)", k, rate(r.Recall), r.Found, r.Expected))
		}
		lines = append(lines, "recall by severity: "+strings.Join(parts, ", "))
	}
	if t.CleanCases > 0 {
		lines = append(lines, fmt.Sprintf("clean cases: %d, with %s (%s a case)", t.CleanCases, text.Plural(t.CleanFP, "false positive"), rate(t.CleanFPPerCase)))
	}
	if t.Judged > 0 || t.JudgeFailures > 0 {
		lines = append(lines, fmt.Sprintf("described correctly (the judge, apart from the score): %d of %d matched findings (%s); %d not judged; judge cost %s", t.Described, t.Judged, rate(t.DescribedRate), t.JudgeFailures, usd(t.JudgeCostUSD)))
	}
	if t.Unplaced > 0 {
		lines = append(lines, fmt.Sprintf("findings not placed on a changed line: %d", t.Unplaced))
	}
	if t.Failures > 0 {
		var kinds []string
		for k, n := range t.FailureKinds {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
		}
		sort.Strings(kinds)
		lines = append(lines, fmt.Sprintf("failures: %d (%s), not scored: no recall or precision comes from a failed run", t.Failures, strings.Join(kinds, ", ")))
	}
	if r := t.Repeat; r != nil {
		lines = append(lines, fmt.Sprintf("over %d repeats: precision %s, recall %s, f1 %s", r.N, spreadText(r.Precision), spreadText(r.Recall), spreadText(r.F1)))
	}
	if len(t.NotRun) > 0 {
		lines = append(lines, fmt.Sprintf("not run: %s (%s)", strings.Join(t.NotRun, ", "), s.Meta.Stopped))
	}
	for _, l := range lines {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	return nil
}

// writeColumns writes rows in columns two spaces apart: the first and
// the last (names and notes) aligned left, the figures between right.
func writeColumns(w io.Writer, rows [][]string) error {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			switch {
			case i == 0:
				b.WriteString(c + pad)
			case i == len(r)-1:
				b.WriteString("  " + c)
			default:
				b.WriteString("  " + pad + c)
			}
		}
		if _, err := fmt.Fprintln(w, strings.TrimRight(b.String(), " ")); err != nil {
			return err
		}
	}
	return nil
}

// caseNote says what the numbers of a case do not: that it failed, or was
// not built.
func caseNote(c *CaseScore) string {
	if c.Error != "" && len(c.Runs) == 0 {
		return "not built: " + text.OneLine(c.Error, 100)
	}
	var kinds []string
	for _, r := range c.Runs {
		if r.Failure != nil {
			kinds = append(kinds, r.Failure.Kind)
		}
	}
	if len(kinds) == 0 {
		return ""
	}
	note := fmt.Sprintf("%d of %d run(s) failed (%s)", len(kinds), len(c.Runs), strings.Join(kinds, ", "))
	if !c.Scored() {
		note += ", not scored"
	}
	return note
}

func failNote(n int) string {
	if n == 0 {
		return ""
	}
	return text.Plural(n, "failure")
}

func spreadText(s Spread) string {
	if s.Mean == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f ± %.2f (%.2f–%.2f)", *s.Mean, *s.StdDev, *s.Min, *s.Max)
}

// severityOrder lists the keys most severe first, Unrated last.
func severityOrder[V any](m map[string]V) []string {
	rank := map[string]int{"critical": 0, "high": 1, "medium": 2, "low": 3, "info": 4, Unrated: 5}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		ri, ok := rank[keys[i]]
		if !ok {
			ri = 6
		}
		rj, ok := rank[keys[j]]
		if !ok {
			rj = 6
		}
		if ri != rj {
			return ri < rj
		}
		return keys[i] < keys[j]
	})
	return keys
}

// WriteCompare writes two scorecards side by side: how they were made
// where that differs, every total with the difference, and the cases
// whose scores differ.
func WriteCompare(w io.Writer, a, b *Scorecard, nameA, nameB string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\t%s\t%s\tdifference\n", nameA, nameB)
	t := compareRows{tw}
	t.meta(&a.Meta, &b.Meta)
	t.totals(&a.Total, &b.Total)
	if err := tw.Flush(); err != nil {
		return err
	}
	diffs := caseDiffs(a.Cases, b.Cases, nameA, nameB)
	if len(diffs) == 0 {
		_, err := fmt.Fprintln(w, "\nevery case scores the same")
		return err
	}
	fmt.Fprintf(w, "\n%s scored differently:\n", text.Plural(len(diffs), "case"))
	for _, d := range diffs {
		if _, err := fmt.Fprintln(w, "  "+d); err != nil {
			return err
		}
	}
	return nil
}

// compareRows writes the rows of a comparison: a name, the value in each
// scorecard and the difference.
type compareRows struct{ w io.Writer }

func (t compareRows) row(k, va, vb, d string) { fmt.Fprintf(t.w, "%s\t%s\t%s\t%s\n", k, va, vb, d) }

// text writes a row of text, whose difference is only that it differs.
func (t compareRows) text(k, x, y string) {
	d := ""
	if x != y {
		d = "differs"
	}
	t.row(k, x, y, d)
}

func (t compareRows) ints(k string, x, y int) {
	t.row(k, fmt.Sprint(x), fmt.Sprint(y), fmt.Sprintf("%+d", y-x))
}

// rates writes a row of two rates, with a difference when both are known.
func (t compareRows) rates(k string, x, y *float64) {
	d := ""
	if x != nil && y != nil {
		d = fmt.Sprintf("%+.2f", *y-*x)
	}
	t.row(k, rate(x), rate(y), d)
}

// meta writes how the two benches were made: the model, the server and
// every setting either has, always; the corpus and the slack only when
// they differ.
func (t compareRows) meta(a, b *Meta) {
	t.text("model", a.Model, b.Model)
	t.text("server", a.BaseURL, b.BaseURL)
	for _, k := range slices.Sorted(maps.Keys(keysOf(a.Settings, b.Settings))) {
		t.text(k, a.Settings[k], b.Settings[k])
	}
	if a.Corpus != b.Corpus {
		t.row("corpus", a.Corpus, b.Corpus, "differs")
	}
	if a.Slack != b.Slack {
		t.row("slack", fmt.Sprint(a.Slack), fmt.Sprint(b.Slack), "differs")
	}
}

// totals writes every total of the two benches with its difference, the
// recall of each severity either has among them.
func (t compareRows) totals(ta, tb *Total) {
	t.ints("cases", ta.Cases, tb.Cases)
	t.ints("tp", ta.TP, tb.TP)
	t.ints("fp", ta.FP, tb.FP)
	t.ints("fn", ta.FN, tb.FN)
	t.rates("precision", ta.Precision, tb.Precision)
	t.rates("recall", ta.Recall, tb.Recall)
	t.rates("f1", ta.F1, tb.F1)
	for _, k := range severityOrder(keysOf(ta.RecallBySeverity, tb.RecallBySeverity)) {
		t.rates("recall "+k, recallOf(ta.RecallBySeverity[k]), recallOf(tb.RecallBySeverity[k]))
	}
	if ta.Judged+tb.Judged > 0 {
		t.rates("described correctly", ta.DescribedRate, tb.DescribedRate)
	}
	t.ints("clean cases", ta.CleanCases, tb.CleanCases)
	t.ints("clean fp", ta.CleanFP, tb.CleanFP)
	t.ints("unplaced", ta.Unplaced, tb.Unplaced)
	t.ints("failures", ta.Failures, tb.Failures)
	t.ints("requests", ta.Requests, tb.Requests)
	t.ints("prompt tokens", ta.PromptTokens, tb.PromptTokens)
	t.ints("completion tokens", ta.CompletionTokens, tb.CompletionTokens)
	t.row("cost", usd(ta.CostUSD), usd(tb.CostUSD), fmt.Sprintf("%+.4f", tb.CostUSD-ta.CostUSD))
	t.row("wall", seconds(ta.WallS), seconds(tb.WallS), fmt.Sprintf("%+.1fs", tb.WallS-ta.WallS))
}

// recallOf is the recall of a severity, nil when the bench had no
// expected issue of it.
func recallOf(r *SeverityRecall) *float64 {
	if r == nil {
		return nil
	}
	return r.Recall
}

// precisionOf is the precision of a severity, nil when the bench had no
// finding of it.
func precisionOf(p *SeverityPrecision) *float64 {
	if p == nil {
		return nil
	}
	return p.Precision
}

// keysOf is the set of keys of a and b together.
func keysOf[A, B any](a map[string]A, b map[string]B) map[string]bool {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}

// caseDiffs says, for each case whose scores differ between the two
// benches, how; and names each case only one of them ran: first in a's
// order, then b's.
func caseDiffs(a, b []CaseScore, nameA, nameB string) []string {
	byID := map[string]*CaseScore{}
	for i := range b {
		byID[b[i].ID] = &b[i]
	}
	var diffs []string
	for i := range a {
		ca := &a[i]
		cb, ok := byID[ca.ID]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("%s: only in %s", ca.ID, nameA))
			continue
		}
		delete(byID, ca.ID)
		if ca.TP != cb.TP || ca.FP != cb.FP || ca.FN != cb.FN || ca.Failures != cb.Failures {
			diffs = append(diffs, fmt.Sprintf("%s: tp/fp/fn %d/%d/%d → %d/%d/%d%s", ca.ID, ca.TP, ca.FP, ca.FN, cb.TP, cb.FP, cb.FN, failDelta(ca, cb)))
		}
	}
	for i := range b {
		if _, ok := byID[b[i].ID]; ok {
			diffs = append(diffs, fmt.Sprintf("%s: only in %s", b[i].ID, nameB))
		}
	}
	return diffs
}

func failDelta(a, b *CaseScore) string {
	if a.Failures == b.Failures {
		return ""
	}
	return fmt.Sprintf(" (failures %d → %d)", a.Failures, b.Failures)
}
