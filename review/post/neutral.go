package post

import (
	"regexp"
	"strings"

	"github.com/reviewdev/review/review/result"
)

// A host acts on text posted with the bot's token: GitLab runs the quick
// actions of a note created through its API (a line "/merge" merges the
// merge request with the token's rights), both hosts notify whoever an
// "@name" mentions, and both render raw HTML and links. The model's text
// may have been steered by the change it reviews, so none of that may
// pass: Neutralize is applied to every text the model wrote (summary,
// titles, bodies, suggestions, notes) before it is posted.

var (
	// mention is an "@name" that would notify: not inside a word or an
	// address (a@b.example), nor a path (pkg/@types).
	mention = regexp.MustCompile(`(^|[^\w.@/\\` + "`" + `-])@([A-Za-z0-9_][\w.-]*)`)
	// linkScheme is a link destination's scheme: "](javascript:…)".
	linkScheme = regexp.MustCompile(`\]\(\s*<?\s*([A-Za-z][A-Za-z0-9+.-]*):`)
	// refScheme is a link reference definition: "[x]: javascript:…".
	refScheme = regexp.MustCompile(`^(\s{0,3})\[([^\]]*)\]:\s*<?\s*([A-Za-z][A-Za-z0-9+.-]*):`)
)

// safeSchemes are the link schemes a posted body may keep.
var safeSchemes = map[string]bool{"http": true, "https": true, "mailto": true}

// Neutralize returns a model's Markdown as a host may show it with no
// effect but being read: fences it left open are closed and suggestion
// blocks shown as code (see TidyMarkdown and NeutralizeSuggestions), and
// outside code
//
//   - no line starts with "/", where GitLab reads a quick action: it is
//     escaped as "\/", which renders as "/";
//   - no raw HTML, comment or copy of the review's own markers: "<" is
//     written as its entity;
//   - no link with a scheme but http, https and mailto (javascript:,
//     data:…): its brackets are escaped, so it reads as text;
//   - no mention: "@name" is shown as code, which notifies no one.
//
// Code blocks and spans are left as written: neither host runs quick
// actions, mentions or HTML in them.
func Neutralize(s string) string {
	s = NeutralizeSuggestions(TidyMarkdown(s))
	lines := strings.Split(s, "\n")
	open := ""
	for i, line := range lines {
		t := strings.TrimSpace(line)
		if fence := result.FenceOf(t); fence != "" {
			switch {
			case open == "":
				open = fence
				continue
			case fence[0] == open[0] && len(fence) >= len(open) && len(t) == len(fence):
				open = ""
				continue
			}
		}
		if open != "" {
			continue
		}
		lines[i] = neutralLine(line)
	}
	return strings.Join(lines, "\n")
}

// NeutralLine is Neutralize for one line of the model's text, such as a
// finding's title, shown inside a line the review writes.
func NeutralLine(s string) string { return neutralLine(s) }

func neutralLine(line string) string {
	if m := refScheme.FindStringSubmatchIndex(line); m != nil && !safeSchemes[strings.ToLower(line[m[6]:m[7]])] {
		line = line[:m[3]] + `\` + line[m[3]:] // "\[x]: …" defines nothing
	}
	line = outsideCode(line, func(seg string) string {
		seg = strings.ReplaceAll(seg, "<", "&lt;")
		seg = linkScheme.ReplaceAllStringFunc(seg, func(m string) string {
			scheme := linkScheme.FindStringSubmatch(m)[1]
			if safeSchemes[strings.ToLower(scheme)] {
				return m
			}
			return `\]\(` + m[2:]
		})
		return mention.ReplaceAllString(seg, "$1`@$2`")
	})
	// A quick action is a line starting with "/", after spaces or a
	// quote's ">" (GitLab skips quotes today; a later version might not).
	rest := strings.TrimLeft(line, " \t>")
	if strings.HasPrefix(rest, "/") {
		at := len(line) - len(rest)
		line = line[:at] + `\` + line[at:]
	}
	return line
}

// outsideCode applies fn to the parts of a line outside its code spans.
func outsideCode(s string, fn func(string) string) string {
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
		b.WriteString(s[i : i+n+end+n])
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
