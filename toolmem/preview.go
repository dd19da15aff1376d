package toolmem

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reviewdev/review/internal/toolname"
)

// Preview bounds, defined here only: the conversation budget's defaults,
// its validation and the help text of review's flags are built from them.
const (
	DefaultPreviewChars = 2000
	DefaultPreviewLines = 40
	// MinPreviewChars and minPreviewLines leave room for the header and
	// some of the output; smaller limits are raised to them.
	MinPreviewChars = 200
	minPreviewLines = 3
)

// Limits bound a preview in characters (runes) and lines.
type Limits struct {
	Chars, Lines int
}

// Normalized fills unset limits with the defaults and raises those below
// the minimums to them: what a preview made with l is held to.
func (l Limits) Normalized() Limits {
	if l.Chars <= 0 {
		l.Chars = DefaultPreviewChars
	}
	if l.Lines <= 0 {
		l.Lines = DefaultPreviewLines
	}
	l.Chars = max(l.Chars, MinPreviewChars)
	l.Lines = max(l.Lines, minPreviewLines)
	return l
}

// Preview returns what a conversation carries instead of the output data
// stored under ref.
//
// An output within both limits is returned whole. A larger one becomes a
// header line, then its first lines, a line saying how many were left out,
// and its last lines (errors and summaries sit at the end). The header
// names the total lines and bytes, the lines shown and the exact
// read_tool_output call that gets more, for example:
//
//	[output k3f7a2bc4d: 5000 lines, 181234 bytes; showing lines 1-20 and 4981-5000; more: read_tool_output {"ref": "k3f7a2bc4d", "start_line": 21, "line_count": 80} or {"ref": "k3f7a2bc4d", "grep": "<regex>"}]
//
// Lines are cut on UTF-8 boundaries (invalid bytes show as U+FFFD); a line
// too long for the preview is cut and says how many bytes it left out. The
// preview itself is within the limits, header included, so previewing a
// preview returns it unchanged. Limits below MinPreviewChars or 3
// lines (minPreviewLines) are raised to them; zero or negative ones take the
// defaults.
func Preview(ref string, data []byte, lim Limits) string {
	lim = lim.Normalized()
	if fits(data, lim) {
		return string(data)
	}
	n := countLines(data)
	lines := lim.Lines - 2 // the header and the omission line take two

	// Reserve room for the longest header and omission line the numbers
	// could need, so the real ones fit whatever is chosen.
	marker := 0
	if n > 1 { // a single line is never left out whole
		marker = utf8.RuneCountInString(omitted(n)) + 1
	}
	worst := view{n: n, bytes: len(data)}
	grep := true
	hdr := utf8.RuneCountInString(worst.header(ref, true, true))
	if lim.Chars-hdr-marker < minContent {
		grep = false
		hdr = utf8.RuneCountInString(worst.header(ref, false, true))
	}
	sel := choose(data, n, max(lim.Chars-hdr-marker, 0), lines)
	// The real header is usually shorter than the worst one: choose again
	// with the room it leaves, and keep that if it still fits.
	room := lim.Chars - utf8.RuneCountInString(sel.v.header(ref, grep, false)) - marker
	if room > sel.used {
		more := choose(data, n, room, lines)
		if utf8.RuneCountInString(more.v.header(ref, grep, false))+marker+more.used <= lim.Chars {
			sel = more
		}
	}

	var b strings.Builder
	b.WriteString(sel.v.header(ref, grep, false))
	for _, l := range sel.head {
		b.WriteByte('\n')
		b.WriteString(l)
	}
	if gap := sel.v.tail - sel.v.head - 1; gap > 0 {
		b.WriteByte('\n')
		b.WriteString(omitted(gap))
	}
	for i := len(sel.tail) - 1; i >= 0; i-- {
		b.WriteByte('\n')
		b.WriteString(sel.tail[i])
	}
	return b.String()
}

// selection is what a preview shows of an output.
type selection struct {
	v          view
	head, tail []string // tail is in reverse order
	used       int      // characters of head and tail, a newline per line included
}

// choose picks the head and tail lines of data (n lines) that fit in chars
// characters and lines lines.
func choose(data []byte, n, chars, lines int) selection {
	s := selection{v: view{n: n, bytes: len(data)}}
	// Head: up to half of the lines and, if there can be a tail, half of
	// the characters.
	headChars := chars
	if n > 1 && lines > 1 {
		headChars = chars / 2
	}
	rest := data // what follows the head
	for len(s.head) < lines-lines/2 && len(rest) > 0 {
		line, after := splitLine(rest)
		cost, ok := lineCost(line, headChars-s.used)
		if !ok {
			if len(s.head) == 0 {
				if text, c := cutHead(line, headChars-s.used); text != "" {
					s.head, s.used, s.v.headCut = append(s.head, text), s.used+c, true
					rest = after
				}
			}
			break
		}
		s.head, s.used, rest = append(s.head, sanitize(line)), s.used+cost, after
	}
	s.v.head = len(s.head)

	// Tail: the other lines and characters, from the end backwards.
	left := n - len(s.head) // lines in neither
	body := bytes.TrimSuffix(rest, []byte{'\n'})
	for left > 0 && len(s.tail) < lines-len(s.head) {
		i := bytes.LastIndexByte(body, '\n')
		line := body[i+1:]
		cost, ok := lineCost(line, chars-s.used)
		if !ok {
			if len(s.tail) == 0 {
				if text, c := cutTail(line, chars-s.used); text != "" {
					s.tail, s.used, s.v.tailCut = append(s.tail, text), s.used+c, true
				}
			}
			break
		}
		s.tail, s.used = append(s.tail, sanitize(line)), s.used+cost
		left--
		if i >= 0 {
			body = body[:i]
		}
	}
	s.v.tail = n - len(s.tail) + 1

	// Whatever the tail left over goes to the head.
	for !s.v.headCut && s.v.head+1 < s.v.tail && len(s.head)+len(s.tail) < lines {
		line, after := splitLine(rest)
		cost, ok := lineCost(line, chars-s.used)
		if !ok {
			break
		}
		s.head, s.used, rest = append(s.head, sanitize(line)), s.used+cost, after
		s.v.head++
	}
	return s
}

// minContent is the room for output lines below which the header drops
// its grep suggestion.
const minContent = 60

// fits reports whether data is within lim as it is.
func fits(data []byte, lim Limits) bool {
	// A rune takes at most 4 bytes: check the cheap bounds first.
	if len(data) > 4*lim.Chars {
		return false
	}
	if len(data) > lim.Chars && utf8.RuneCount(data) > lim.Chars {
		return false
	}
	return countLines(data) <= lim.Lines
}

// view says which lines of an output a preview shows: 1..head and tail..n,
// the last head line and the first tail line possibly cut.
type view struct {
	n, bytes         int
	head, tail       int
	headCut, tailCut bool
}

// header returns the preview's first line. With worst set it returns a
// string at least as long as any header of an output of the same size
// could be.
func (v view) header(ref string, grep, worst bool) string {
	num := strconv.Itoa
	if worst {
		w := len(strconv.Itoa(v.n + 1))
		num = func(int) string { return strings.Repeat("9", w) }
	}
	rng := func(a, b int) string {
		if a == b && !worst {
			return num(a)
		}
		return num(a) + "-" + num(b)
	}

	var b strings.Builder
	b.WriteString("[output ")
	b.WriteString(ref)
	b.WriteString(": ")
	b.WriteString(num(v.n))
	if v.n == 1 && !worst {
		b.WriteString(" line, ")
	} else {
		b.WriteString(" lines, ")
	}
	b.WriteString(strconv.Itoa(v.bytes))
	b.WriteString(" bytes; showing ")

	var ranges, cut []string
	if v.head > 0 || worst {
		ranges = append(ranges, rng(1, v.head))
	}
	if v.tail <= v.n || worst {
		ranges = append(ranges, rng(v.tail, v.n))
	}
	if v.headCut || worst {
		cut = append(cut, num(v.head))
	}
	if v.tailCut || worst {
		cut = append(cut, num(v.tail))
	}
	shown := min(v.head, v.n) + max(v.n-v.tail+1, 0)
	switch {
	case len(ranges) == 0:
		b.WriteString("no lines")
	case shown == 1 && !worst:
		b.WriteString("line ")
	default:
		b.WriteString("lines ")
	}
	b.WriteString(strings.Join(ranges, " and "))
	switch {
	case len(cut) == 1:
		b.WriteString(" (line " + cut[0] + " cut)")
	case len(cut) == 2:
		b.WriteString(" (lines " + cut[0] + " and " + cut[1] + " cut)")
	}

	next := v.head + 1
	if v.headCut {
		next = v.head
	}
	fmt.Fprintf(&b, `; more: %s {"ref": %q, "start_line": %s, "line_count": %d}`,
		toolname.ReadToolOutput, ref, num(max(next, 1)), DefaultPageLines)
	if grep {
		fmt.Fprintf(&b, ` or {"ref": %q, "grep": "<regex>"}`, ref)
	}
	b.WriteByte(']')
	return b.String()
}

// omitted is the line that stands for the lines a preview leaves out.
func omitted(n int) string {
	if n == 1 {
		return "[... 1 line omitted ...]"
	}
	return "[... " + strconv.Itoa(n) + " lines omitted ...]"
}

// splitLine splits the first line off data, without its newline.
func splitLine(data []byte) (line, rest []byte) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return data[:i], data[i+1:]
	}
	return data, nil
}

// lineCost returns the characters a line takes in a preview (its own and
// the newline before it) if that is within room.
func lineCost(line []byte, room int) (int, bool) {
	if len(line) > 4*room {
		return 0, false
	}
	cost := 1 + utf8.RuneCount(line)
	return cost, cost <= room
}

func sanitize(b []byte) string { return strings.ToValidUTF8(string(b), "\uFFFD") }

// cutHead returns the start of line that fits in room characters (newline
// and note included) and what it costs, or "" if nothing useful fits.
func cutHead(line []byte, room int) (string, int) {
	note := fmt.Sprintf(" [... %d more bytes]", len(line))
	keep := room - 1 - len(note)
	if keep < 1 {
		return "", 0
	}
	end := runePrefix(line, keep)
	note = fmt.Sprintf(" [... %d more bytes]", len(line)-end)
	s := sanitize(line[:end]) + note
	return s, 1 + utf8.RuneCountInString(s)
}

// cutTail returns the end of line that fits in room characters (newline and
// note included) and what it costs, or "" if nothing useful fits.
func cutTail(line []byte, room int) (string, int) {
	note := fmt.Sprintf("[... %d earlier bytes] ", len(line))
	keep := room - 1 - len(note)
	if keep < 1 {
		return "", 0
	}
	start := runeSuffix(line, keep)
	note = fmt.Sprintf("[... %d earlier bytes] ", start)
	s := note + sanitize(line[start:])
	return s, 1 + utf8.RuneCountInString(s)
}

// Withheld returns what a conversation carries instead of the output data
// stored under ref when the conversation holds its text already (a file's
// diff the request shows whole): the header of a preview that shows no
// line, with the read_tool_output call that pages it, then why, one line.
func Withheld(ref string, data []byte, why string) string {
	n := countLines(data)
	return view{n: n, bytes: len(data), tail: n + 1}.header(ref, true, false) + "\n" + why
}
