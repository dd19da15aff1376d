package tools

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// binarySniff is how much of a file is checked for a NUL byte to call it
// binary, the heuristic git and grep use.
const binarySniff = 8000

// isBinary reports whether data looks binary.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0
}

// lineCount counts lines as editors do: a final line without a newline
// counts, a trailing newline does not start another.
func lineCount(data []byte) int {
	if len(data) == 0 {
		return 0
	}
	n := bytes.Count(data, []byte{'\n'})
	if data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// utf8Prefix returns the longest prefix of s of at most n bytes that does
// not split a UTF-8 sequence.
func utf8Prefix(s string, n int) string {
	if n >= len(s) {
		return s
	}
	if n <= 0 {
		return ""
	}
	// Back off at most utf8.UTFMax-1 bytes to a rune start.
	for i := n; i > n-utf8.UTFMax && i > 0; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i]
		}
	}
	return s[:n]
}

// cutLine shortens a line longer than n bytes, saying how long it was, so
// one minified line cannot fill a whole result.
func cutLine(line string, n int) string {
	if len(line) <= n {
		return line
	}
	return fmt.Sprintf("%s… [line cut: %d bytes]", utf8Prefix(line, n), len(line))
}

// capText cuts text longer than max bytes at a line boundary (or, failing
// that, a UTF-8 boundary) and says at the end that it was cut.
func capText(text string, max int) string {
	if len(text) <= max {
		return text
	}
	note := fmt.Sprintf("\n[output cut at %d of %d bytes; ask for less: a narrower path, glob or pattern, or fewer lines]", max, len(text))
	keep := max - len(note)
	if keep <= 0 {
		return utf8Prefix(strings.TrimPrefix(note, "\n"), max)
	}
	head := utf8Prefix(text, keep)
	if i := strings.LastIndexByte(head, '\n'); i > len(head)/2 {
		head = head[:i]
	}
	return head + note
}

// jsonArgs renders a call's arguments for a "to see more, call ..." hint.
// Keys keep the given order, which is the schema's.
func jsonArgs(kv ...any) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if b.Len() > 1 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q: ", kv[i])
		b.WriteString(jsonValue(kv[i+1]))
	}
	b.WriteByte('}')
	return b.String()
}

// plural renders a count with a noun, "1 file" or "2 files".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
