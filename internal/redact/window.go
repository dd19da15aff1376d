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
	// work counts the bytes the rules' expressions were run over: the
	// measure of a scan's cost that tests hold to the text's size.
	work int
	// matched is the end of the rule's last match in a window matched
	// at its keyword: a keyword inside it starts no other match, as in a
	// search of the whole line.
	matched int
}

// positions returns the offsets of rl's keywords, in order.
func (t *target) positions(rl *rule) []int {
	if t.hits == nil {
		return nil // no keyword at all
	}
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
// the matches that start before keep. A window around a keyword of a long
// line (see around) has at set to the keyword's offset, and limit to how
// far end may grow when a match reaches it; at is -1 for other windows.
type window struct {
	start, keep, end, at, limit int
	// anchored says the rule's anchored expression is matched at the
	// keyword (see rule.anchored).
	anchored bool
}

// whole is a window over all of text.
func whole(text string) window {
	return window{start: 0, keep: len(text), end: len(text), at: -1, limit: len(text)}
}

// maxWindow bounds the lines joined into one window, so that a regular
// expression runs over short texts, where Go's backtracking matcher
// (several times as fast as its automaton) is used.
const maxWindow = 2048

// longLine is the length past which a line is not run over whole: a
// minified bundle is one line of hundreds of kilobytes, holding a keyword
// every few hundred bytes, and gitleaks' generic rule alone took most of
// a second over one.
const longLine = maxWindow

// Reach of the windows around the keywords of a long line, for rules with
// no bound on their matches: how far before the keyword a match may start,
// and how far after it the window first ends (it grows while a match
// reaches its end).
const (
	aroundLead = 256
	aroundTail = 256
	// anchoredTail is where a window matched at its keyword first ends:
	// most keywords are followed by no match at all.
	anchoredTail = 128
)

// windows returns the parts of the text rl runs over: the lines holding
// its keywords, each with the next line if its matches can span a line
// break. A gitleaks rule is run over the whole text where it holds a
// keyword; running it only where a match can start on a keyword's line
// gives the same secrets, as the rules name a secret's kind (a name, a
// prefix, a command) before the secret, and is many times as fast on a
// large diff full of "key" and "token". What this leaves out: a match
// starting on a line above its keyword's, or ending more than one line
// below it (gitleaks' generic rule allows eight line breaks between a name
// and its value, its curl rules five lines of a command). Rules with no
// bound on their matches (a private key block) run over the whole text.
// On a line longer than longLine, a rule runs over the bytes around each
// keyword instead (see around).
func (t *target) windows(rl *rule) []window {
	pos := t.positions(rl)
	if len(pos) == 0 {
		return nil
	}
	rl.compile()
	if rl.ext.lines < 0 {
		return []window{whole(t.text)}
	}
	var out, long []window
	last := -1 // the line of the last keyword kept
	for _, p := range pos {
		if rl.assign && !t.operatorNear(p, rl.kwMax) {
			continue
		}
		l := t.line(p)
		s, e := t.lineStart(l), t.lineEnd(l)
		if e-s > longLine {
			long = t.around(long, rl, p, l)
			continue
		}
		if l == last {
			continue
		}
		if n := len(out); n > 0 && last == l-1 && e-out[n-1].start <= maxWindow {
			out[n-1].keep = e
		} else {
			out = append(out, window{start: s, keep: e, at: -1})
		}
		last = l
	}
	for i := range out {
		out[i].end, out[i].limit = out[i].keep, out[i].keep
		if rl.ext.lines > 0 {
			// Into the next line, as far as a match may reach: that
			// line may be a minified bundle's.
			out[i].limit = t.lineEnd(t.line(out[i].keep))
			out[i].end = out[i].limit
			if out[i].limit-out[i].keep > longLine {
				reach := aroundTail
				if rl.ext.bytes >= 0 {
					reach = rl.ext.bytes + 1
				}
				out[i].end = out[i].keep + reach
			}
		}
	}
	return append(out, long...)
}

// around adds to ws the window around the keyword at p of the long line
// l. For a rule with an anchored expression (gitleaks' rules for name =
// value, and rules whose matches start with a keyword: see rule.anchor),
// the window starts at the keyword and is matched there only. For the
// others it reaches as far before and after the keyword as a match
// holding it can (aroundLead and aroundTail for rules without a bound),
// and one byte more, so that a match the window's edges cut can be told
// from one in the text: see target.spans. Windows of nearby keywords are
// joined, up to maxWindow bytes.
func (t *target) around(ws []window, rl *rule, p, l int) []window {
	ls, limit := t.lineStart(l), t.lineEnd(l)
	if rl.ext.lines > 0 && l+1 < len(t.starts) {
		limit = t.lineEnd(l + 1)
	}
	if rl.anchored != nil && (rl.anchor == anchorName || p > ls) {
		return append(ws, window{start: p, keep: p + 1, end: min(limit, p+anchoredTail), at: p, limit: limit, anchored: true})
	}
	lead, tail := aroundLead, aroundTail
	if rl.ext.bytes >= 0 {
		lead, tail = rl.ext.bytes+1, rl.ext.bytes+1
	}
	s, e := max(ls, p-lead), min(limit, p+tail)
	for s > ls && !utf8.RuneStart(t.text[s]) {
		s--
	}
	if n := len(ws); n > 0 && ws[n-1].limit == limit && s <= ws[n-1].end && e-ws[n-1].start <= maxWindow {
		ws[n-1].end, ws[n-1].keep = max(ws[n-1].end, e), max(ws[n-1].keep, e)
		return ws
	}
	return append(ws, window{start: s, keep: e, end: e, at: p, limit: limit})
}

// spans returns where rl's expression matches in the window w of text,
// as offsets in text: the matches that start before w.keep, each as its
// start and end or, for a match at a keyword, as FindSubmatchIndex gives
// it (the match, then its groups). In a window
// around a keyword of a long line, a match that reaches the window's end
// may go on in the text, so the window grows until none does or it holds
// the rest of the line; a match at its start, where it cuts a line, is
// left to the windows of its own keyword. A rule for name = value matches
// from the keyword on, and its match starts at the name before it, as far
// back as the rule's expression reaches.
func (t *target) spans(rl *rule, w window) [][]int {
	text := t.text
	var out [][]int
	grow := func() { w.end = min(w.limit, w.end+max(aroundTail, w.end-w.start)) }
	if w.anchored {
		if w.at < t.matched {
			return nil
		}
		from := w.at
		if rl.anchor == anchorKeyword {
			from-- // the byte before the keyword, for a \b
		}
		for {
			t.work += w.end - from
			m := rl.anchored.FindStringSubmatchIndex(text[from:w.end])
			if m == nil {
				return nil
			}
			if from+m[1] == w.end && w.end < w.limit {
				grow()
				continue
			}
			for i := range m {
				if m[i] >= 0 {
					m[i] += from
				}
			}
			m[0] = w.at
			for rl.anchor == anchorName && m[0] > 0 && w.at-m[0] < assignLeadSpan && nameByte(text[m[0]-1]) {
				m[0]--
			}
			t.matched = m[1]
			return [][]int{m}
		}
	}
	for {
		t.work += w.end - w.start
		ms := rl.re.FindAllStringIndex(text[w.start:w.end], -1)
		if n := len(ms); n > 0 && w.start+ms[n-1][1] == w.end && w.end < w.limit {
			grow()
			continue
		}
		cut := w.at >= 0 && w.start > 0 && text[w.start-1] != '\n'
		for _, m := range ms {
			if w.start+m[0] >= w.keep {
				break
			}
			if m[0] == 0 && cut {
				continue
			}
			out = append(out, []int{w.start + m[0], w.start + m[1]})
		}
		return out
	}
}

// nameByte reports whether c is one of the characters gitleaks' rules
// for name = value allow in a name before its keyword: [\w.-].
func nameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-'
}

// operatorNear reports whether the keyword at p can be followed as
// gitleaks' template for name = value needs: within the keyword and at
// most 20 more characters of the name, or spaces, then at most 3 of space
// or quotes, an operator. Most mentions of "key" or "token" in code are
// not followed so, and the template's regular expression is among the
// slowest. Keywords are at most kwMax bytes of a name.
func (t *target) operatorNear(p, kwMax int) bool {
	s := t.lower
	i, end := p, min(len(s), p+kwMax+20)
	for i < end && (nameByte(s[i]) || s[i] == ' ' || s[i] == '\t') {
		i++
	}
	for n := 0; n < 3 && i < len(s) && strings.IndexByte(" \t\n\r\f\v'\"", s[i]) >= 0; n++ {
		i++
	}
	return i < len(s) && strings.IndexByte("=>:|?,", s[i]) >= 0
}
