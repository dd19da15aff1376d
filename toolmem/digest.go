package toolmem

import (
	"bytes"
	"cmp"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reviewdev/review/internal/lazy"
)

// Kind says what an output holds, so that its preview can summarise it
// rather than show an arbitrary head and tail. The tool that made the
// output declares it; tool memory knows nothing else of tools.
type Kind string

const (
	// Text is any output: its preview is a head and a tail.
	Text Kind = ""
	// Matches are search results, one "path:line: text" per matching line
	// (context lines "path-line- text", groups separated by "--").
	Matches Kind = "matches"
	// Paths are file lists, one "path size" per line (or "path symlink",
	// "path submodule").
	Paths Kind = "paths"
	// Deps are dependency listings: a "path: kind" line per manifest, then
	// its groups as "  name (count):" with a dependency per line below.
	Deps Kind = "dependencies"
)

// PreviewKind is Preview for an output of a known kind. A search result
// that does not fit becomes the header, a line counting matches per file
// (the files with most first), then the first matches, grouped by file as
// the output is; a file list becomes the header, a line counting files per
// directory, then the first paths; a dependency listing becomes the
// header, a line counting dependencies per manifest, then the first lines.
// Other kinds, and outputs that fit, are previewed as by Preview. The
// limits hold as they do for Preview.
func PreviewKind(kind Kind, ref string, data []byte, lim Limits) string {
	lim = lim.Normalized()
	if kind == Text || fits(data, lim) || lim.Lines < 4 {
		return Preview(ref, data, lim)
	}
	var groups []group
	switch kind {
	case Matches:
		groups = countBy(data, matchPath, "matching lines", "files")
	case Paths:
		groups = countBy(data, pathDir, "files", "directories")
	case Deps:
		groups = countDeps(data)
	}
	if groups == nil {
		return Preview(ref, data, lim)
	}
	n := countLines(data)
	worst := view{n: n, bytes: len(data)}
	grep := true
	hdr := utf8.RuneCountInString(worst.header(ref, grep, true))
	marker := utf8.RuneCountInString(omitted(n)) + 1
	// The digest takes at most a third of the room left by the header.
	digest := digestLine(groups, max((lim.Chars-hdr-marker)/3, 40))
	room := lim.Chars - hdr - marker - 1 - utf8.RuneCountInString(digest)
	if room < minContent {
		return Preview(ref, data, lim)
	}
	var head []string
	used, rest := 0, data
	for len(head) < lim.Lines-3 && len(rest) > 0 {
		line, after := splitLine(rest)
		cost, ok := lineCost(line, room-used)
		if !ok {
			break
		}
		head, used, rest = append(head, sanitize(line)), used+cost, after
	}
	v := view{n: n, bytes: len(data), head: len(head), tail: n + 1}
	var b strings.Builder
	b.WriteString(v.header(ref, grep, false))
	b.WriteByte('\n')
	b.WriteString(digest)
	for _, l := range head {
		b.WriteByte('\n')
		b.WriteString(l)
	}
	if gap := n - len(head); gap > 0 {
		b.WriteByte('\n')
		b.WriteString(omitted(gap))
	}
	return b.String()
}

// group is a count of lines under one key: a file's matches, a
// directory's files.
type group struct {
	key   string
	count int
	// noun and of name what is counted and what it is counted by, for the
	// digest line; they are the same in every group.
	noun, of string
}

// matchLine finds the path of a matching line of a search result: the
// shortest prefix followed by ":<digits>: ".
var matchLine = lazy.Regexp(`^(.+?):\d+: `)

func matchPath(line []byte) (string, bool) {
	m := matchLine().FindSubmatch(line)
	if m == nil {
		return "", false
	}
	return string(m[1]), true
}

// pathLine is a line of a file list: a path, a space, a size or a kind.
var pathLine = lazy.Regexp(`^(\S.*) (\d+|symlink|submodule)$`)

func pathDir(line []byte) (string, bool) {
	m := pathLine().FindSubmatch(line)
	if m == nil {
		return "", false
	}
	d := path.Dir(string(m[1]))
	if d == "." {
		return "./", true
	}
	return d + "/", true
}

var (
	// manifestLine starts a manifest of a dependency listing: its path and
	// what it is.
	manifestLine = lazy.Regexp(`^(\S.*?): (.+)$`)
	// depGroup heads a group of a manifest's dependencies, with its count.
	depGroup = lazy.Regexp(`^  (\S.*) \((\d+)\):$`)
)

// countDeps counts the dependencies of each manifest of a dependency
// listing. It returns nil when no manifest has a group.
func countDeps(data []byte) []group {
	counts := map[string]int{}
	cur := ""
	for len(data) > 0 {
		var line []byte
		line, data = splitLine(data)
		line = bytes.TrimRight(line, "\r")
		if m := manifestLine().FindSubmatch(line); m != nil {
			cur = string(m[1])
			continue
		}
		if m := depGroup().FindSubmatch(line); m != nil && cur != "" {
			n, _ := strconv.Atoi(string(m[2]))
			counts[cur] += n
		}
	}
	return sortGroups(counts, "dependencies", "manifests")
}

// countBy counts the lines of data by the key of each; lines without one
// (headings, notes) are not counted. It returns nil when no line has one.
func countBy(data []byte, key func([]byte) (string, bool), noun, of string) []group {
	counts := map[string]int{}
	for len(data) > 0 {
		var line []byte
		line, data = splitLine(data)
		if k, ok := key(bytes.TrimRight(line, "\r")); ok {
			counts[k]++
		}
	}
	return sortGroups(counts, noun, of)
}

// sortGroups turns counts by key into groups, the largest first.
func sortGroups(counts map[string]int, noun, of string) []group {
	if len(counts) == 0 {
		return nil
	}
	groups := make([]group, 0, len(counts))
	for k, c := range counts {
		groups = append(groups, group{key: k, count: c, noun: noun, of: of})
	}
	slices.SortFunc(groups, func(a, b group) int {
		if c := cmp.Compare(b.count, a.count); c != 0 {
			return c
		}
		return strings.Compare(a.key, b.key)
	})
	return groups
}

// digestLine says how the counted lines spread over their groups, the
// largest first, in at most chars characters.
func digestLine(groups []group, chars int) string {
	total := 0
	for _, g := range groups {
		total += g.count
	}
	g0 := groups[0]
	start := fmt.Sprintf("[%d %s in %d %s", total, one(total, g0.noun), len(groups), one(len(groups), g0.of))
	var b strings.Builder
	b.WriteString(start)
	shown := 0
	for i, g := range groups {
		sep := "; most: "
		if i > 0 {
			sep = ", "
		}
		item := sep + sanitizeKey(g.key) + " " + strconv.Itoa(g.count)
		more := fmt.Sprintf(", +%d more]", len(groups)-i-1)
		if utf8.RuneCountInString(b.String())+utf8.RuneCountInString(item)+len(more) > chars {
			break
		}
		b.WriteString(item)
		shown++
	}
	if rest := len(groups) - shown; rest > 0 && shown > 0 {
		fmt.Fprintf(&b, ", +%d more", rest)
	}
	b.WriteByte(']')
	s := b.String()
	if utf8.RuneCountInString(s) > chars {
		// Even the counts alone are too long for the room: keep their
		// start, which says the most.
		r := []rune(s)
		s = string(r[:max(chars-2, 0)]) + "…]"
	}
	return s
}

// one is the singular of the plural nouns the digest counts, for a count
// of one.
func one(n int, plural string) string {
	if n != 1 {
		return plural
	}
	switch plural {
	case "directories":
		return "directory"
	case "dependencies":
		return "dependency"
	}
	return strings.TrimSuffix(plural, "s")
}

// sanitizeKey keeps a path readable on one line.
func sanitizeKey(s string) string {
	return strings.ToValidUTF8(s, "\uFFFD")
}
