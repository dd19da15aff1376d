package text

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dustin/go-humanize"
)

// OneLine folds every run of white space in s, line breaks included, into
// one space. When n > 0 and more than n runes remain, it keeps the first n
// and marks the cut with "…". It cuts before it folds: only the first n+1
// runes of the result are ever built, so a long text costs what is kept.
func OneLine(s string, n int) string {
	var b strings.Builder
	b.Grow(min(len(s), max(n, 0)*utf8.UTFMax+len("…")))
	// cut ends the text at n runes: as folding first then cutting would,
	// it spells a byte that is not UTF-8 as U+FFFD.
	cut := func() string { return string([]rune(b.String())) + "…" }
	count := 0 // runes written
	space := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		word := s[i : i+size]
		i += size
		if unicode.IsSpace(r) {
			space = count > 0
			continue
		}
		if space {
			if n > 0 && count == n {
				return cut()
			}
			b.WriteByte(' ')
			count++
			space = false
		}
		if n > 0 && count == n {
			return cut()
		}
		b.WriteString(word)
		count++
	}
	return b.String()
}

// Truncate cuts s to at most n runes, the last of them "…" when anything
// was cut. It never splits a rune.
func Truncate(s string, n int) string {
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// FirstLine returns the first line of s without surrounding white space.
func FirstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(s)
}

// Number writes n with its thousands separated by commas, "23,922": the
// one way review writes a count for people.
func Number(n int) string { return humanize.Comma(int64(n)) }

// Plural counts a noun: "1 file", "3 files".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return Number(n) + " " + noun + "s"
}

// ShortSHA abbreviates a commit name to the 12 characters people see in
// messages; shorter names are kept.
func ShortSHA(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// JoinOr lists names as people say them: "a", "a or b", "a, b or c".
func JoinOr(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Wrap breaks s into lines of at most width bytes at spaces (a longer word
// stays whole on its own line), keeping existing line breaks; runs of white
// space within a line fold into one space.
func Wrap(s string, width int) string {
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		n := 0
		for j, w := range strings.Fields(line) {
			switch {
			case j == 0:
			case n+1+len(w) > width:
				b.WriteByte('\n')
				n = 0
			default:
				b.WriteByte(' ')
				n++
			}
			b.WriteString(w)
			n += len(w)
		}
	}
	return b.String()
}

// QuotePath shows a file path as is unless it holds control characters
// (a newline, say) or bytes that are not UTF-8, which would break a line
// or a Markdown span: then it is quoted as a Go string ("a\nb.go").
// UnquotePath reverses it, so the form shown to the model can be sent back.
func QuotePath(p string) string {
	if needsQuote(p) {
		return strconv.Quote(p)
	}
	return p
}

// UnquotePath returns the path QuotePath showed as q: q unquoted when it is
// a quoted string whose path QuotePath would quote, else q itself (a file
// may well be named with quotes).
func UnquotePath(q string) string {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return q
	}
	p, err := strconv.Unquote(q)
	if err != nil || !needsQuote(p) {
		return q
	}
	return p
}

// JSONPath is how a file path is written in a JSON document. A path is
// bytes and need not be UTF-8, which a JSON string cannot carry:
// encoding/json would put U+FFFD in place of the bytes, and the name read
// back would open nothing. Such a path is written in the quoted form
// QuotePath shows ("caf\xe9.txt", quotes included), which the tools and
// findings take back; a UTF-8 path, newlines and all, is written as it is.
func JSONPath(p string) string {
	if utf8.ValidString(p) {
		return p
	}
	return QuotePath(p)
}

// PathFromJSON reads a path JSONPath wrote.
func PathFromJSON(s string) string {
	if p := UnquotePath(s); p != s && !utf8.ValidString(p) {
		return p
	}
	return s
}

func needsQuote(p string) bool {
	for _, r := range p {
		if r == utf8.RuneError || unicode.IsControl(r) {
			return true
		}
	}
	return false
}

// LongestRun is the length of the longest run of c in s.
func LongestRun[S ~string | ~[]byte](s S, c byte) int {
	longest, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			longest = max(longest, n)
		} else {
			n = 0
		}
	}
	return longest
}

// CodeFence is a Markdown backtick fence for a block holding code: longer
// than any run of backticks in it, and at least three long.
func CodeFence(code string) string {
	return strings.Repeat("`", max(3, LongestRun(code, '`')+1))
}
