package hosttest

import (
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// GitLab runs the quick actions of a note created through its API, and
// decides which lines are quick actions in one of two ways, both of which
// teams run (self-managed instances stay on older releases for years).
// Both are ported here from Gitlab::QuickActions::Extractor as published
// (lib/gitlab/quick_actions/extractor.rb, gitlab-org/gitlab):
//
//   - the older extractor scans the whole note with one expression that
//     skips a block opening with ``` at the start of a line and closing
//     with ``` alone on a line (CODE_REGEX), text between backticks across
//     lines (INLINE_CODE_REGEX), an HTML block (HTML_BLOCK_REGEX) and a
//     >>> quote (QUOTE_BLOCK_REGEX); every other line that starts with
//     "/name" runs;
//   - the current one renders the note as Markdown first
//     (Banzai::Pipeline::QuickActionPipeline, whose QuickActionFilter keeps
//     the top-level paragraphs) and scans only those paragraphs' source
//     lines, with the line after each when it is blank, skipping text
//     between backticks and HTML blocks.
//
// Both delete every "\r" first. The Ruby expressions are multiline (^ and
// $ at every line), dot-all and case-insensitive; Go's (?ims) is the same,
// and both prefer the leftmost alternative as a backtracking engine does.
//
// Two choices make the oracle stricter than GitLab, never laxer:
//
//   - the command's name is any run of letters, digits, "_", "+", "-" or
//     characters beyond ASCII, where GitLab's is one of its command names
//     (all letters and "_"): a name GitLab adds later is still a command
//     here, and so is one spelt with a character that folds to an ASCII
//     letter under Ruby's case-insensitive match ("ſ" for "s", "ß" for
//     "ss", "K" for "k");
//   - every top-level paragraph is scanned (QuickActionFilter first asks
//     whether its text has a line starting with "/"), and the Markdown is
//     read as plain CommonMark by goldmark, where GitLab adds extensions
//     (front matter, >>> quotes, footnotes, tables) that only ever take
//     lines out of top-level paragraphs.
const name = `(?P<cmd>(?:[\w+-]|[^\x00-\x7F])+)`

// command is the pattern of one quick action, the same in both: at the
// start of a line, then a space and its argument, or only white space to
// the end of the line.
const command = `(?:^/` + name + `(?:[ ](?P<arg>[^\n]*))?(?:\s*\n|$))`

var (
	olderRE = regexp.MustCompile(`(?ims)` +
		"(?P<code>^```.+?\\n```$)" +
		"|(?P<inline>`\\n*.+?\\n*`)" +
		`|(?P<html>^<[^>]+?>\n.+?\n</[^>]+?>$)` +
		`|(?P<quote>^>>>.+?\n>>>$)` +
		`|` + command)
	currentRE = regexp.MustCompile(`(?ims)` +
		"(?P<inline>`.+?`)" +
		`|(?P<html>^<[^>]+?>\n.+?\n</[^>]+?>$)` +
		`|` + command)
)

// A Command is a quick action a GitLab release would run: its name and
// argument as written, and which generation runs it.
type Command struct {
	Name, Arg  string
	Generation string // "older" or "current"
}

// Commands returns the quick actions GitLab would run in body, under the
// older and the current extractor; none means neither runs anything.
func Commands(body string) []Command {
	body = strings.ReplaceAll(body, "\r", "")
	cmds := scan(olderRE, body, "older")
	lines := strings.SplitAfter(body, "\n")
	for _, p := range topParagraphs(body) {
		end := p.end
		if end+1 < len(lines) && lines[end+1] == "\n" {
			end++
		}
		cmds = append(cmds, scan(currentRE, strings.Join(lines[p.start:end+1], ""), "current")...)
	}
	return cmds
}

// scan runs one extractor's expression over s as gsub does: matches left
// to right, each an exclusion or a command.
func scan(re *regexp.Regexp, s, gen string) []Command {
	var cmds []Command
	ci, ai := re.SubexpIndex("cmd"), re.SubexpIndex("arg")
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		if m[2*ci] < 0 {
			continue
		}
		c := Command{Name: s[m[2*ci]:m[2*ci+1]], Generation: gen}
		if m[2*ai] >= 0 {
			c.Arg = s[m[2*ai]:m[2*ai+1]]
		}
		cmds = append(cmds, c)
	}
	return cmds
}

// lineSpan is a paragraph's first and last source line, from 0.
type lineSpan struct{ start, end int }

// topParagraphs returns the source lines of body's top-level paragraphs,
// as QuickActionFilter reads them from the rendered note's sourcepos.
func topParagraphs(body string) []lineSpan {
	src := []byte(body)
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	lineOf := func(off int) int { return strings.Count(body[:off], "\n") }
	var spans []lineSpan
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		p, ok := n.(*ast.Paragraph)
		if !ok || p.Lines().Len() == 0 {
			continue
		}
		first, last := p.Lines().At(0), p.Lines().At(p.Lines().Len()-1)
		stop := last.Stop
		if stop > last.Start {
			stop-- // a segment ends after its newline
		}
		spans = append(spans, lineSpan{lineOf(first.Start), lineOf(stop)})
	}
	return spans
}
