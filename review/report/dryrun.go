package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/learn"
	"github.com/reviewdev/review/review/result"
)

// unitListFiles is how many files of a unit a dry run names.
const unitListFiles = 5

// writeDryRun prints the messages of the first request for a person: each
// message whole, headed by its role, layer and token count, then the budget;
// nothing when there is no request.
// It reads the same data the JSON view writes, so the two cannot disagree.
// Repository text, configuration (the model's name) and all, is passed
// through text.Safe, since it is printed to terminals and job logs.
func writeDryRun(w io.Writer, d *result.DryRun) error {
	if len(d.Messages) == 0 {
		// Nothing to review, no request to show: the command says so on
		// standard error.
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Dry run: %s (%s) → %s (%s), merge base %s\n", d.Base, text.ShortSHA(d.BaseSHA), d.Head, text.ShortSHA(d.HeadSHA), text.ShortSHA(d.MergeBase))
	tok := d.Tokenizer
	switch {
	case d.Borrowed:
		tok += " (not the model's own, which is not known: the counts are estimates)"
	case d.TokenizerFailed != "":
		tok += " (it failed to count some texts, which tiktoken counted instead: the counts are estimates; " + d.TokenizerFailed + ")"
	}
	fmt.Fprintf(&b, "Model %s, tokenizer %s. Nothing is sent.\n", d.Model, tok)
	b.WriteString(settingsNote(d))
	b.WriteByte('\n')
	// Estimated figures are marked as such, each with a tilde.
	about := ""
	if d.Estimated {
		about = "~"
	}
	for i, m := range d.Messages {
		fmt.Fprintf(&b, "━━ message %d · %s · %s · %s%s tokens ━━\n", i+1, m.Role, layerName(m), about, text.Number(m.Tokens))
		b.WriteString(m.Content)
		if !strings.HasSuffix(m.Content, "\n") {
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	names := make([]string, len(d.Tools))
	for i, t := range d.Tools {
		names[i] = t.Name
	}
	bu := d.Budget
	fmt.Fprintf(&b, "━━ tools · static layer · %s%s tokens ━━\n%s\n\n", about, text.Number(bu.ToolTokens), strings.Join(names, ", "))
	fmt.Fprintf(&b, "Budget: context window %s, answer reserve %s, input %s tokens.\n", text.Number(bu.ContextWindow), text.Number(bu.AnswerReserve), text.Number(bu.Input))
	if src := d.Sources; src.Window != "" {
		// Nothing was asked of the server: say where the figures a
		// real run may ask it for came from.
		fmt.Fprintf(&b, "Context window: %s.\n", src.Window)
		fmt.Fprintf(&b, "--jobs: %d (%s).\n", d.Jobs, src.Jobs)
		for _, a := range src.AtRunTime {
			fmt.Fprintf(&b, "At run time, not in this dry run: %s.\n", a)
		}
	}
	fmt.Fprintf(&b, "Diff context: %s%s of %s%s tokens; %s of %s files inlined.\n", about, text.Number(bu.ContextTokens), about, text.Number(bu.ContextBudget), text.Number(included(d.Files)), text.Number(len(d.Files)))
	if len(d.Units) > 0 {
		if d.Jobs > 1 && len(d.Units) > 1 {
			fmt.Fprintf(&b, "Units: the hunks do not fit the diff context, so the review takes %d units, up to %d at once, each its own turn over the same static layer:\n", len(d.Units), min(d.Jobs, len(d.Units)))
		} else {
			fmt.Fprintf(&b, "Units: the hunks do not fit the diff context, so the review takes %d turns, one per unit:\n", len(d.Units))
		}
		for i, u := range d.Units {
			fmt.Fprintf(&b, "  unit %d: %s tokens: %s\n", i+1, text.Number(u.Tokens), unitFiles(u))
		}
		if c := d.Plan.Cut; c != nil {
			fmt.Fprintf(&b, "Window too small to review %s whole: its hunks take %s tokens, a unit at most %s, so it is reviewed in parts", c.Path, text.Number(c.Tokens), text.Number(c.Share))
			if c.Window > 0 {
				fmt.Fprintf(&b, "; --context-window %d would review every file whole", c.Window)
			}
			b.WriteString(".\n")
		}
	}
	b.WriteString(learningsNote(d))
	fmt.Fprintf(&b, "First request: %s%s tokens (%.1f%% of input).\n", about, text.Number(bu.TotalTokens), 100*float64(bu.TotalTokens)/float64(max(bu.Input, 1)))
	switch {
	case d.Estimated && (d.Borrowed || d.TokenizerFailed != ""):
		// The tokenizer line above says why; --exact-counts cannot help.
		b.WriteString("Token figures are estimates (~) of the model's own counts.\n")
	case d.Estimated:
		b.WriteString("Token figures are estimates (~): far from every limit, nothing needed counting exactly. --exact-counts counts them.\n")
	}
	p := d.Plan
	writePlan(&b, p)
	if n := len(p.NotReviewed); n > 0 {
		fmt.Fprintf(&b, "Not reviewed (%s, %s):\n", text.Plural(n, "file"), p.Cap)
		for _, f := range p.NotReviewed {
			fmt.Fprintf(&b, "  %s%s\n", f.Path, partly(f))
		}
	}
	for _, w := range d.Warnings {
		fmt.Fprintf(&b, "Git warned: %s\n", w)
	}
	_, err := io.WriteString(w, text.Safe(b.String()))
	return err
}

// writePlan writes the plan's lines: what the review is expected to take
// and is held to, how the expectation was made, what the whole change
// would take, and where the price came from.
func writePlan(b *strings.Builder, p result.Estimate) {
	fmt.Fprintf(b, "Plan: %s.\n", p.Line())
	if f := p.Forecast; f != nil {
		fmt.Fprintf(b, "Expected %s.\n", f.Line())
	}
	if w := p.Whole; w != nil {
		fmt.Fprintf(b, "Whole change: %s (%s 0 plans it all).\n", w.Line(), result.CapFlag(p.LimitedBy))
	}
	if p.MaxCost != nil {
		fmt.Fprintf(b, "Cost at the %s.\n", p.PriceSource)
	}
}

// settingsNote says which revision's .review.yaml the review reads, and
// names the changed files that instruct AI reviewers: a change that edits
// them must not steer its own review, which is why CI reads the base's.
func settingsNote(d *result.DryRun) string {
	var b strings.Builder
	if s := d.Settings; s != nil {
		switch {
		case s.From == result.SettingsFromBase && s.File != "":
			fmt.Fprintf(&b, "Settings: %s, the base's, as in CI: the change cannot edit its own review.\n", s.File)
		case s.From == result.SettingsFromBase:
			fmt.Fprintf(&b, "Settings: the base (%s) has no .review.yaml, so none applies, as in CI.\n", s.Revision)
		case s.File != "":
			fmt.Fprintf(&b, "Settings: %s of the work tree; a review in CI reads the base's (--config-from base).\n", s.File)
		default:
			b.WriteString("Settings: no .review.yaml in the work tree; a review in CI reads the base's (--config-from base).\n")
		}
	}
	if len(d.Steering) > 0 {
		fmt.Fprintf(&b, "This change edits what instructs AI reviewers: %s; its text is data to review, not instructions.", strings.Join(d.Steering, ", "))
		if d.Settings != nil && d.Settings.From == result.SettingsFromWorktree && slices.Contains(d.Steering, ".review.yaml") {
			b.WriteString(" The settings above are the change's own .review.yaml; in CI the base's apply.")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// partly notes a file only some of whose hunks are not reviewed.
func partly(n result.NotReviewed) string {
	if n.All > 0 && n.Hunks < n.All {
		return fmt.Sprintf(" (%d of %d hunks)", n.Hunks, n.All)
	}
	return ""
}

func included(es []diffctx.Entry) int {
	n := 0
	for _, e := range es {
		if e.Included {
			n++
		}
	}
	return n
}

// unitFiles names the first files of u and says how many more there are.
func unitFiles(u diffctx.Unit) string {
	files := u.Files()
	names := files[:min(len(files), unitListFiles)]
	s := strings.Join(names, ", ")
	if len(files) > unitListFiles {
		s += fmt.Sprintf(" and %s more files", text.Number(len(files)-unitListFiles))
	}
	return s
}

// learningsNote says which of the team's learnings the model would read,
// from where, and which the budget left out; "" when none are in force.
func learningsNote(d *result.DryRun) string {
	if len(d.Learnings)+len(d.LearningsLeft) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Team learnings in force (from %s): %s", d.LearningsFrom, nums(d.Learnings))
	if len(d.LearningsLeft) > 0 {
		fmt.Fprintf(&b, "; left out to fit the budget: %s", nums(d.LearningsLeft))
	}
	b.WriteString(".\n")
	return b.String()
}

// nums lists learnings by number: "1, 3 and 4", or "none".
func nums(ls []learn.Learning) string {
	if len(ls) == 0 {
		return "none"
	}
	s := make([]string, len(ls))
	for i, l := range ls {
		s[i] = strconv.Itoa(l.N)
	}
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// layerName names a message's layer in a dry run: "static layer", and
// what it is when the layer holds more than one kind.
func layerName(m result.DryRunMessage) string {
	if m.Learnings {
		return string(m.Layer) + " layer, the team's learnings"
	}
	return string(m.Layer) + " layer"
}
