package redact

import (
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// extent bounds the matches of a regular expression: at most bytes long
// and holding at most lines line breaks; -1 is no bound.
type extent struct{ bytes, lines int }

func unbounded() extent { return extent{-1, -1} }

func add(a, b extent) extent {
	s := func(x, y int) int {
		if x < 0 || y < 0 {
			return -1
		}
		return x + y
	}
	return extent{s(a.bytes, b.bytes), s(a.lines, b.lines)}
}

func most(a, b extent) extent {
	m := func(x, y int) int {
		if x < 0 || y < 0 {
			return -1
		}
		return max(x, y)
	}
	return extent{m(a.bytes, b.bytes), m(a.lines, b.lines)}
}

func times(a extent, n int) extent {
	m := func(x int) int {
		if x < 0 || n < 0 {
			if x == 0 {
				return 0
			}
			return -1
		}
		return x * n
	}
	return extent{m(a.bytes), m(a.lines)}
}

// extentOf computes the extent of re's matches.
func extentOf(re *syntax.Regexp) extent {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return extent{}
	case syntax.OpLiteral:
		e := extent{}
		for _, r := range re.Rune {
			e.bytes += utf8.RuneLen(r)
			if r == '\n' {
				e.lines++
			}
		}
		return e
	case syntax.OpCharClass:
		e := extent{bytes: 1}
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1] >= 0x80 {
				e.bytes = utf8.UTFMax
			}
			if re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
				e.lines = 1
			}
		}
		return e
	case syntax.OpAnyCharNotNL:
		return extent{bytes: utf8.UTFMax}
	case syntax.OpAnyChar:
		return extent{bytes: utf8.UTFMax, lines: 1}
	case syntax.OpCapture, syntax.OpQuest:
		return extentOf(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		return times(extentOf(re.Sub[0]), -1)
	case syntax.OpRepeat:
		return times(extentOf(re.Sub[0]), re.Max)
	case syntax.OpConcat:
		e := extent{}
		for _, s := range re.Sub {
			e = add(e, extentOf(s))
		}
		return e
	case syntax.OpAlternate:
		e := extent{}
		for _, s := range re.Sub {
			e = most(e, extentOf(s))
		}
		return e
	}
	return unbounded()
}

// target is a text being scanned, with its lines indexed on first use.
type target struct {
	text, lower string
	hits        [][]int // offsets of each keyword, by index
	starts      []int   // offsets of line starts
}

// positions returns the offsets of rl's keywords, in order.
func (t *target) positions(rl *rule) []int {
	var pos []int
	for _, k := range rl.kw {
		pos = append(pos, t.hits[k]...)
	}
	if len(rl.kw) > 1 {
		slices.Sort(pos)
	}
	return pos
}

// line returns the index of the line holding offset p.
func (t *target) line(p int) int {
	if t.starts == nil {
		t.starts = append(t.starts, 0)
		for off := 0; ; {
			i := strings.IndexByte(t.text[off:], '\n')
			if i < 0 {
				break
			}
			off += i + 1
			t.starts = append(t.starts, off)
		}
	}
	return sort.SearchInts(t.starts, p+1) - 1
}

// lineStart and lineEnd bound line i; the end includes its line break.
func (t *target) lineStart(i int) int { return t.starts[max(i, 0)] }

func (t *target) lineEnd(i int) int {
	if i+1 >= len(t.starts) {
		return len(t.text)
	}
	return t.starts[i+1]
}

// window is a part of the text a rule runs over: from start to end, for
// the matches that start before keep.
type window struct{ start, keep, end int }

// maxWindow bounds the lines joined into one window, so that a regular
// expression runs over short texts, where Go's backtracking matcher
// (several times as fast as its automaton) is used.
const maxWindow = 2048

// windows returns the parts of the text rl runs over, in order: the lines
// holding its keywords, each with the next line if its matches can span a
// line break. A gitleaks rule is run over the whole text where it holds a
// keyword; running it only where a match can start on a keyword's line
// gives the same secrets, as the rules name a secret's kind (a name, a
// prefix, a command) before the secret, and is many times as fast on a
// large diff full of "key" and "token". What this leaves out: a match
// starting on a line above its keyword's, or ending more than one line
// below it (gitleaks' generic rule allows eight line breaks between a name
// and its value, its curl rules five lines of a command). Rules with no
// bound on their matches (a private key block) run over the whole text.
func (t *target) windows(rl *rule) []window {
	pos := t.positions(rl)
	if len(pos) == 0 {
		return nil
	}
	rl.compile()
	if rl.ext.lines < 0 {
		return []window{{0, len(t.text), len(t.text)}}
	}
	var out []window
	last := -1 // the line of the last keyword kept
	for _, p := range pos {
		if rl.assign && !t.operatorNear(p) {
			continue
		}
		l := t.line(p)
		if l == last {
			continue
		}
		s, e := t.lineStart(l), t.lineEnd(l)
		if n := len(out); n > 0 && last == l-1 && e-out[n-1].start <= maxWindow {
			out[n-1].keep = e
		} else {
			out = append(out, window{start: s, keep: e})
		}
		last = l
	}
	for i := range out {
		out[i].end = out[i].keep
		if rl.ext.lines > 0 {
			out[i].end = t.lineEnd(t.line(out[i].keep))
		}
	}
	return out
}

// operatorNear reports whether an assignment operator's first character
// follows the keyword at p closely enough for gitleaks' name = value
// template: most mentions of "key" or "token" in code are not followed by
// one, and the template's regular expression is among the slowest.
func (t *target) operatorNear(p int) bool {
	// The keyword itself is at least two bytes and holds no operator.
	rest := t.lower[p+1 : min(p+2+assignReach, len(t.lower))]
	return strings.ContainsAny(rest, "=>:|?,")
}
