package seam

import (
	"slices"
	"strings"

	"github.com/reviewdev/review/internal/lazy"
)

// A host acts on text posted with the bot's token: GitLab runs the quick
// actions of a note created through its API (a line "/merge" merges the
// merge request with the token's rights), both hosts notify whoever an
// "@name" mentions, and both render raw HTML and links. The model's text
// may have been steered by the change it reviews, so none of that may
// pass: Neutralize is applied to every text the model wrote (summary,
// titles, bodies, suggestions, notes) before it is posted.

var (
	// charRef is a character reference, which a host resolves before it
	// looks for mentions or schemes: "&#64;all" is "@all" there. HTML
	// resolves a numeric one without its ";" too ("&#64all" is "@all" in
	// a browser and to Go's html.UnescapeString); a named one spells "@"
	// or ":" only with it ("&commat;", "&colon;": no legacy name without
	// ";" spells either).
	charRef = lazy.Regexp(`&(#[0-9]+;?|#[xX][0-9A-Fa-f]+;?|[A-Za-z][A-Za-z0-9]*;)`)
	// linkScheme is a link destination's scheme: "](javascript:…)".
	linkScheme = lazy.Regexp(`\]\(\s*<?\s*([A-Za-z][A-Za-z0-9+.-]*):`)
	// refScheme is a link reference definition: "[x]: javascript:…".
	refScheme = lazy.Regexp(`^(\s{0,3})\[([^\]]*)\]:\s*<?\s*([A-Za-z][A-Za-z0-9+.-]*):`)
)

// plainRefs are the references that spell only what is shown as text
// ("<" is written "&lt;" here, and TidyMarkdown writes "<!--" so).
var plainRefs = map[string]bool{"&lt;": true, "&gt;": true, "&amp;": true, "&quot;": true}

// wordJoiner follows the "@" of a mention shown as code: invisible, and
// no login starts with it, so the mention stays inert wherever the code
// span's backticks end up pairing (after a "\\" or another backtick).
const wordJoiner = "\u2060"

// safeSchemes are the link schemes a posted body may keep.
var safeSchemes = map[string]bool{"http": true, "https": true, "mailto": true}

// Neutralize returns a model's Markdown as a host may show it with no
// effect but being read: fences it left open are closed and suggestion
// blocks shown as code (see TidyMarkdown and NeutralizeSuggestions), and
//
//   - no line is a GitLab quick action, by GitLab's grammar rather than
//     ours (see QuickAction): carriage returns, which GitLab deletes before
//     it looks, are deleted; outside code a line starting with "/" is
//     escaped as "\/", which renders as "/"; a code block holding a line
//     GitLab could run is shown indented, as the one form in which no
//     release reads its lines (see indentBlock);
//
// and outside code
//
//   - no raw HTML, comment or copy of the review's own markers: "<" is
//     written as its entity;
//   - no link with a scheme but http, https and mailto (javascript:,
//     data:…): its brackets are escaped, so it reads as text;
//   - no mention: "@name" is shown as code, with an invisible word joiner
//     after the "@", which notifies no one by GitHub's published rule;
//   - no character reference ("&#64;", "&#64" without its ";",
//     "&colon;"), which would spell a mention or a scheme only once
//     resolved: its "&" is escaped.
//
// Code blocks and spans are otherwise left as written: neither host runs
// mentions or HTML in them.
func Neutralize(s string) string {
	s = NeutralizeSuggestions(TidyMarkdown(strings.ReplaceAll(s, "\r", "")))
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	open, start := "", 0 // the fence of the code block under way, and where it starts in out
	for _, line := range lines {
		t := strings.TrimSpace(line)
		if fence := fenceOf(line); fence != "" {
			switch {
			case open == "":
				open, start = fence, len(out)
				out = append(out, openingFence(line, fence))
				continue
			case fence[0] == open[0] && len(fence) >= len(open) && len(t) == len(fence):
				out = append(out[:start], indentBlock(out[start:], line, start > 0 && out[start-1] != "")...)
				open = ""
				continue
			}
		}
		if open != "" {
			out = append(out, line)
			continue
		}
		out = append(out, neutralLine(line))
	}
	// TidyMarkdown closed every block, so none is left open here.
	return strings.Join(out, "\n")
}

// openingFence is the opening line of a code block with no mention in
// its info string: no host shows the info string, but the same line read
// in another block's context (a tilde fence may carry backticks, so text
// placed between backticks makes it a paragraph's line) would notify.
// Only the first word of the info string names a language, and a word
// joiner after "@" leaves it as it reads.
func openingFence(line, fence string) string {
	i := strings.Index(line, fence) + len(fence)
	return line[:i] + strings.ReplaceAll(line[i:], "@", "@\u2060")
}

// QuickAction reports whether a line of a note could be a GitLab quick
// action: "/" at its very start, a name, then white space or its end.
// GitLab's own pattern (Gitlab::QuickActions::Extractor) is
// ^/(name)(?:[ ](arg))?(?:\s*\n|$) in both of its generations, where a
// name is one of its commands, matched without regard to case; here a
// name is any run of ASCII letters, digits, "_", "+" and "-" and of bytes
// beyond ASCII, which holds every command GitLab has or adds and every
// spelling Ruby's case folding turns into one ("ſ" for "s", "ß" for "ss").
// A line that starts with white space, "\" or ">" is never one.
func QuickAction(line string) bool {
	if !strings.HasPrefix(line, "/") {
		return false
	}
	i := 1
	for i < len(line) && nameByte(line[i]) {
		i++
	}
	// Ruby's \s: space, tab, newline, vertical tab, form feed, return.
	return i > 1 && (i == len(line) || strings.IndexByte(" \t\n\v\f\r", line[i]) >= 0)
}

func nameByte(c byte) bool {
	return c >= 0x80 || c == '_' || c == '+' || c == '-' ||
		c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// HasQuickAction reports whether any line of s could be a GitLab quick
// action once GitLab has deleted its carriage returns.
func HasQuickAction(s string) bool {
	for _, line := range strings.Split(strings.ReplaceAll(s, "\r", ""), "\n") {
		if QuickAction(line) {
			return true
		}
	}
	return false
}

// indentBlock returns a fenced code block (its opening fence and lines,
// then closing) as written, unless one of its lines could be a quick
// action: then as an indented code block, after a blank line when gap
// says the line before it is not blank. GitLab's older extractor skips
// only a block fenced by ``` at the start of a line and closed by ``` alone
// on one, and only when the backticks before it pair up as it expects;
// the current one skips any code block. An indented block's lines start
// with spaces, which neither reads as a quick action wherever it is.
func indentBlock(block []string, closing string, gap bool) []string {
	body := block[1:]
	if !slices.ContainsFunc(body, QuickAction) {
		return append(block, closing)
	}
	out := make([]string, 0, len(body)+1)
	if gap {
		out = append(out, "")
	}
	for _, l := range body {
		out = append(out, Indent(l))
	}
	return out
}

// Indent is a line of an indented code block.
func Indent(line string) string {
	if strings.TrimSpace(line) == "" {
		return ""
	}
	return "    " + line
}

// NeutralLine is Neutralize for one line of the model's text, such as a
// finding's title, shown inside a line the review writes.
func NeutralLine(s string) string { return neutralLine(strings.ReplaceAll(s, "\r", "")) }

func neutralLine(line string) string {
	if m := refScheme().FindStringSubmatchIndex(line); m != nil && !safeSchemes[strings.ToLower(line[m[6]:m[7]])] {
		line = line[:m[3]] + `\` + line[m[3]:] // "\[x]: …" defines nothing
	}
	line = outsideCode(line, inCode, func(seg string) string {
		seg = charRef().ReplaceAllStringFunc(seg, func(ref string) string {
			if plainRefs[ref] {
				return ref
			}
			return "&amp;" + ref[1:]
		})
		seg = strings.ReplaceAll(seg, "<", "&lt;")
		seg = linkScheme().ReplaceAllStringFunc(seg, func(m string) string {
			scheme := linkScheme().FindStringSubmatch(m)[1]
			if safeSchemes[strings.ToLower(scheme)] {
				return m
			}
			return `\]\(` + m[2:]
		})
		return neutralMentions(seg)
	})
	// A line starting with "/" may be a quick action (QuickAction): it is
	// escaped, and so is one after spaces or a quote's ">", which GitLab
	// skips today but renders the same escaped.
	rest := strings.TrimLeft(line, " \t>")
	if strings.HasPrefix(rest, "/") {
		at := len(line) - len(rest)
		line = line[:at] + `\` + line[at:]
	}
	return line
}

// neutralMentions shows each "@name" of a line's text as code, with a
// word joiner after the "@": a mention by GitHub's published rule (see
// posttest.Mentions) is an "@" after anything but a letter, a digit or
// "_" as the page shows it, so "pkg/@types", "\\@all" and an "@" right
// after a code span notify too; "a@b.example" does not.
func neutralMentions(seg string) string { return inert(seg, true) }

// inert puts a word joiner after the "@" of each mention in s, by GitHub's
// rule, Gitea's (hosttest.GiteaMentions), whose names may also start
// with "-", and Bitbucket's (hosttest.BitbucketMentions), which also
// mentions an account by its ID in braces ("@{557058:…}"), and shows it
// as code when code is set.
func inert(seg string, code bool) string {
	if !strings.Contains(seg, "@") {
		return seg
	}
	var b strings.Builder
	word := false // the character before, as the page shows it, is a letter or a digit
	for i := 0; i < len(seg); {
		c := seg[i]
		if c == '@' && !word && i+1 < len(seg) && (loginByte(seg[i+1]) || seg[i+1] == '-' || seg[i+1] == '{') {
			j := i + 2
			for j < len(seg) && (loginByte(seg[j]) || seg[j] == '.' || seg[j] == '-') {
				j++
			}
			name := seg[i+1 : j]
			if seg[i+1] == '{' {
				// An ID in braces may hold an "@" of its own, which the
				// page reads when the span's backticks pair otherwise.
				j = braced(seg, i+1)
				name = inert(seg[i+1:j], false)
			}
			if code {
				b.WriteString("`@" + wordJoiner + name + "`")
				word = false // the page's text starts again after the span
			} else {
				b.WriteString("@" + wordJoiner + name)
				word = loginByte(seg[j-1]) && seg[j-1] != '_'
			}
			i = j
			continue
		}
		b.WriteByte(c)
		// A "_" may close an emphasis, which the page does not show: the
		// "@" after it starts a mention there ("_x_@all").
		word = loginByte(c) && c != '_'
		i++
	}
	return b.String()
}

// braced is the end of a Bitbucket mention by account ID, "{…}" from
// open: after its "}", or where a line, a code span or a space ends it.
func braced(seg string, open int) int {
	j := open + 1
	for j < len(seg) && !strings.ContainsRune("}` \t\n", rune(seg[j])) {
		j++
	}
	if j < len(seg) && seg[j] == '}' {
		j++
	}
	return j
}

// loginByte is an ASCII letter, digit or "_".
func loginByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// inCode is a code span as posted: as written, but for a word joiner
// after the "@" of a mention. A host notifies no one in a code span, but
// a span's backticks may pair otherwise in the note than in the line
// (after a backtick the model left open elsewhere in the paragraph), and
// its text would then be read.
func inCode(span string) string { return inert(span, false) }

// outsideCode applies fn to the parts of a line outside its code spans,
// and code to the spans.
func outsideCode(s string, code, fn func(string) string) string {
	var b strings.Builder
	start := 0
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		n := 1
		for i+n < len(s) && s[i+n] == '`' {
			n++
		}
		end := closeSpan(s[i+n:], n)
		if end < 0 {
			i += n
			continue
		}
		b.WriteString(fn(s[start:i]))
		b.WriteString(code(s[i : i+n+end+n]))
		i += n + end + n
		start = i
	}
	b.WriteString(fn(s[start:]))
	return b.String()
}

// closeSpan finds the run of exactly n backticks that closes a code span
// opened by n, and returns its offset in s, or -1.
func closeSpan(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		m := 1
		for i+m < len(s) && s[i+m] == '`' {
			m++
		}
		if m == n {
			return i
		}
		i += m
	}
	return -1
}
