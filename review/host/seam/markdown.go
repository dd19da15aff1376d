package seam

import (
	"fmt"
	"strings"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/result"
)

// CommentMarkdown is a comment on a finding's line: its title, body and
// suggestion. suggestion is the info string of a block the host offers as
// a change to the lines the comment applies to ("suggestion" on GitHub,
// "suggestion:-0+2" on GitLab), or "" to show the finding's replacement as
// code. covers says the comment spans the finding's lines; when it does
// not, the title says where the finding ends. Suggestion blocks anywhere
// else are shown as code: the host would offer them as changes to the
// wrong lines.
func CommentMarkdown(f result.Finding, suggestion string, covers bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**[%s] %s** · %s", f.Severity, NeutralLine(text.OneLine(f.Title, 0)), NeutralLine(f.RuleID()))
	if !covers && f.EndLine > f.Line {
		fmt.Fprintf(&b, " · lines %d-%d", f.Line, f.EndLine)
	}
	b.WriteString("\n")
	if f.Body != "" {
		b.WriteString("\n" + Neutralize(f.Body) + "\n")
	}
	if code, prose, ok := f.Change(); ok {
		fence := text.CodeFence(code)
		block := fence + suggestion + "\n" + code + "\n" + fence
		switch {
		case code == "":
			// An empty suggested change deletes the lines; an empty
			// line inside the block would put one in their place.
			block = fence + suggestion + "\n" + fence
		case HasQuickAction(code):
			// No fence keeps GitLab from reading a line of it as a quick
			// action (see Neutralize): it is shown, not offered.
			block = indentLines(code) + "\n\n_(Shown as code, not offered as a change: a line of it starts with \"/\", which GitLab could run as a quick action.)_"
		}
		if prose != "" {
			block = Neutralize(prose) + "\n\n" + block
		}
		b.WriteString("\n" + Labelled("Suggestion", block) + "\n")
	} else if f.Suggestion != "" {
		b.WriteString("\n" + Labelled("Suggestion", Neutralize(f.Suggestion)) + "\n")
	}
	if f.Note != "" {
		b.WriteString("\n_" + NeutralLine(text.OneLine(f.Note, 0)) + "_\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// FindingMarkdown is a finding's body, suggestion and note as Markdown,
// the body cut to limit runes (0: no limit). Fences the model left open are
// closed so they cannot swallow what follows.
func FindingMarkdown(f result.Finding, limit int) string {
	var parts []string
	if f.Body != "" {
		body := f.Body
		if limit > 0 {
			body = text.Truncate(body, limit)
		}
		parts = append(parts, Neutralize(body))
	}
	if f.Suggestion != "" {
		parts = append(parts, Labelled("Suggestion", Neutralize(f.Suggestion)))
	}
	if f.Note != "" {
		parts = append(parts, "_"+NeutralLine(text.OneLine(f.Note, 0))+"_")
	}
	return strings.Join(parts, "\n\n")
}

// CoverageNote says, in Markdown, that a review is incomplete (never
// submitted) or partial (files left out by the caps), for a reader who
// would otherwise take it for a whole one; "" when it is neither.
func CoverageNote(r *result.Result) string {
	var b strings.Builder
	if !r.Submitted {
		fmt.Fprintf(&b, "**Incomplete review:** the model did not submit it, so findings may be missing. See what it saw with `review replay %s`.\n\n", r.RunID)
	}
	if n := len(r.NotReviewed); n > 0 {
		fmt.Fprintf(&b, "**Partial review:** %s not reviewed (past %s); every file is listed in the json output.\n\n",
			text.Plural(n, "file"), result.CapFlag(r.NotReviewed[0].Reason))
	}
	b.WriteString(HeldMarkdown(r))
	return b.String()
}

// HeldMarkdown lists, in Markdown, the findings a review holds back from
// its comments: how many were withheld and why, and the ones not checked
// against the code they name, which a reader should check first; "" when
// there are none.
func HeldMarkdown(r *result.Result) string {
	var b strings.Builder
	if len(r.Withheld) > 0 {
		fmt.Fprintf(&b, "_%s; they are in the json output._\n\n", heldWithheld(r))
	}
	if n := len(r.Ungrounded); n > 0 {
		fmt.Fprintf(&b, "**Not checked against the code it names** (%d): the model was never shown the lines %s, so %s not posted on them.\n\n",
			n, map[bool]string{true: "this finding cites", false: "these findings cite"}[n == 1], map[bool]string{true: "it is", false: "they are"}[n == 1])
		for _, f := range r.Ungrounded {
			fmt.Fprintf(&b, "- [%s] %s (%s): %s\n", f.Severity, NeutralLine(text.OneLine(f.Title, 0)), Code(f.Location()), NeutralLine(f.Unshown()))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// heldWithheld is the withheld part of the held line.
func heldWithheld(r *result.Result) string {
	only := result.Result{Withheld: r.Withheld}
	return only.HeldLine()
}

// UnnamedNote says, in a summary, why the findings on a file whose name
// is not UTF-8 are listed there and not on their lines (see Nameable).
func UnnamedNote(host string) string {
	return "_" + host + "'s API cannot name a file whose name is not UTF-8, so the findings on one are listed here, its name quoted as a Go string._\n\n"
}

// Labelled puts a bold label before Markdown text: on the same line for a
// line of prose, on a line of its own before anything longer, where a
// fence must start a line to be one.
func Labelled(label, md string) string {
	if strings.Contains(md, "\n") || result.FenceOf(md) != "" {
		return "**" + label + ":**\n\n" + md
	}
	return "**" + label + ":** " + md
}

// indentLines is s as an indented code block.
func indentLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Indent(l)
	}
	return strings.Join(lines, "\n")
}

// Code is s as a Markdown code span, with a fence longer than any run of
// backticks inside it, and an "@name" in it inert (see inCode): the text
// is a path or a name the change chose.
func Code(s string) string {
	// A span shows a line break as a space, but a host that reads lines
	// of the source (GitLab's quick actions) sees it: a path may hold one.
	s = inCode(strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(s))
	fence := strings.Repeat("`", text.LongestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// TidyMarkdown keeps a model's Markdown from spilling into what follows
// it: a fenced code block left open is closed, and an HTML comment opened
// outside code, which would hide the rest of the page, is shown as text.
func TidyMarkdown(s string) string { return tidy(s, true) }

// CapBody cuts a body a host would refuse as longer than max characters,
// keeping its start (where the marker is) and closing any code block it
// cut, and says why in host's name.
func CapBody(s string, max int, host string) string {
	if len(s) <= max {
		return s
	}
	// Cut at the end of a line: a line cut short could become one a host
	// acts on ("/merge!" cut to "/merge", see QuickAction).
	cut := text.Truncate(s, max)
	if i := strings.LastIndexByte(cut, '\n'); i >= 0 {
		cut = cut[:i]
	}
	return CloseFences(cut) + "\n\n_(cut to fit " + host + "'s length limit; the run's other outputs have it all)_"
}

// CloseFences closes a fenced code block left open at the end of s.
func CloseFences(s string) string { return tidy(s, false) }

func tidy(s string, comments bool) string {
	lines := strings.Split(s, "\n")
	open := ""
	for i, line := range lines {
		t := strings.TrimSpace(line)
		fence := fenceOf(line)
		switch {
		case fence != "" && open == "":
			open = fence
		case fence != "" && fence[0] == open[0] && len(fence) >= len(open) && len(t) == len(fence):
			// A closing fence: the opening character, at least as many,
			// and no info string.
			open = ""
		case open == "" && comments:
			lines[i] = strings.ReplaceAll(line, "<!--", "&lt;!--")
		}
	}
	s = strings.Join(lines, "\n")
	if open != "" {
		s += "\n" + open
	}
	return s
}

// fenceOf returns the fence that opens or closes a code block on line
// (see result.FenceOf), where CommonMark reads one: after at most three
// spaces. A line indented further, or by a tab, is code of an indented
// block or text of a paragraph, never a fence: taking it for one would
// take the text after it for code, and leave it as written.
func fenceOf(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return ""
	}
	return result.FenceOf(strings.TrimSpace(t))
}

// NeutralizeSuggestions turns fenced "suggestion" blocks (GitHub's, and
// GitLab's "suggestion:-1+0") into plain code blocks.
func NeutralizeSuggestions(s string) string {
	if !strings.Contains(s, "suggestion") {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if fence := result.FenceOf(t); fence != "" && strings.HasPrefix(strings.TrimSpace(t[len(fence):]), "suggestion") {
			lines[i] = strings.Replace(l, t, fence, 1)
		}
	}
	return strings.Join(lines, "\n")
}

// Repeated is a finding an earlier run posted already, with the address
// of that post ("" when unknown).
type Repeated struct {
	result.Finding
	URL string
}

// WriteRepeated writes the section of a summary that lists the findings
// an earlier run posted: under heading, each with a link named link.
func WriteRepeated(b *strings.Builder, heading, link string, rs []Repeated) {
	if len(rs) == 0 {
		return
	}
	b.WriteString("#### " + heading + "\n\n")
	for _, f := range rs {
		fmt.Fprintf(b, "- [%s] %s · %s", f.Severity, NeutralLine(text.OneLine(f.Title, 0)), Code(f.Location()))
		if f.URL != "" {
			fmt.Fprintf(b, " · [%s](%s)", link, f.URL)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// StateLine says the review's state (complete, partial, skipped or
// failed), as the commit status's description starts with it; "" when
// the result has none.
func StateLine(r *result.Result) string {
	if r.State == "" {
		return ""
	}
	return "Review state: `" + r.State + "`.\n\n"
}

// Link is a Markdown link to url named label, for an address a host
// answered: one that is not http(s), or holds what would end the link,
// is shown as code instead.
func Link(label, url string) string {
	if !(strings.HasPrefix(url, "https://") || strings.HasPrefix(url, "http://")) || strings.ContainsAny(url, " \t\n()<>[]`") {
		return NeutralLine(label) + " (" + Code(url) + ")"
	}
	return "[" + NeutralLine(label) + "](" + url + ")"
}
