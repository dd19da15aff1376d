package github

import (
	"strings"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review"
)

// findingMarkdown is a finding's body, suggestion and note as Markdown,
// the body cut to limit runes (0: no limit). Fences the model left open are
// closed so they cannot swallow what follows.
func findingMarkdown(f review.Finding, limit int) string {
	var parts []string
	if f.Body != "" {
		body := f.Body
		if limit > 0 {
			body = text.Truncate(body, limit)
		}
		parts = append(parts, tidyMarkdown(body))
	}
	if f.Suggestion != "" {
		parts = append(parts, labelled("Suggestion", tidyMarkdown(f.Suggestion)))
	}
	if f.Note != "" {
		parts = append(parts, "_"+text.OneLine(f.Note, 0)+"_")
	}
	return strings.Join(parts, "\n\n")
}

// labelled puts a bold label before Markdown text: on the same line for a
// line of prose, on a line of its own before anything longer, where a
// fence must start a line to be one.
func labelled(label, md string) string {
	if strings.Contains(md, "\n") || review.FenceOf(md) != "" {
		return "**" + label + ":**\n\n" + md
	}
	return "**" + label + ":** " + md
}

// mdCode is s as a Markdown code span, with a fence longer than any run of
// backticks inside it.
func mdCode(s string) string {
	fence := strings.Repeat("`", text.LongestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// tidyMarkdown keeps a model's Markdown from spilling into what follows
// it: a fenced code block left open is closed, and an HTML comment opened
// outside code, which would hide the rest of the page, is shown as text.
func tidyMarkdown(s string) string { return tidy(s, true) }

// closeFences closes a fenced code block left open at the end of s.
func closeFences(s string) string { return tidy(s, false) }

func tidy(s string, comments bool) string {
	lines := strings.Split(s, "\n")
	open := ""
	for i, line := range lines {
		t := strings.TrimSpace(line)
		fence := review.FenceOf(t)
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

// neutralizeSuggestions turns fenced "suggestion" blocks into plain code
// blocks.
func neutralizeSuggestions(s string) string {
	if !strings.Contains(s, "suggestion") {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if fence := review.FenceOf(t); fence != "" && strings.HasPrefix(strings.TrimSpace(t[len(fence):]), "suggestion") {
			lines[i] = strings.Replace(l, t, fence, 1)
		}
	}
	return strings.Join(lines, "\n")
}
