package mdterm

import (
	"regexp"
	"strings"

	"github.com/reviewdev/review/internal/text"
)

// ANSI styles, each with the code that ends it alone, so styles nest.
const (
	bold      = "\033[1m"
	boldOff   = "\033[22m"
	faint     = "\033[2m"
	italic    = "\033[3m"
	italicOff = "\033[23m"
	under     = "\033[4m"
	underOff  = "\033[24m"
	cyan      = "\033[36m"
	magenta   = "\033[35m"
	colorOff  = "\033[39m"
)

var (
	heading  = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	fence    = regexp.MustCompile("^(\\s*)(`{3,}|~{3,})")
	rule     = regexp.MustCompile(`^\s{0,3}([-*_])(\s*[-*_]){2,}\s*$`)
	bullet   = regexp.MustCompile(`^(\s*)[-*+]\s+(.*)$`)
	numbered = regexp.MustCompile(`^(\s*)(\d{1,9}[.)])\s+(.*)$`)
	quote    = regexp.MustCompile(`^\s{0,3}>\s?(.*)$`)
	summary  = regexp.MustCompile(`^\s*<details>\s*<summary>(.*)</summary>\s*$`)
)

// Render returns md styled for a terminal width columns wide. Control
// characters in md are neutralised first (text.Safe): the only escape
// sequences in the result are its own.
func Render(md string, width int) string {
	width = min(max(width, 20), 100)
	var out []string
	open := "" // the fence of the code block under way, if any
	for _, line := range strings.Split(text.Safe(md), "\n") {
		m := fence.FindStringSubmatch(line)
		switch {
		case open != "" && m != nil && strings.HasPrefix(m[2], open) && strings.TrimSpace(line[len(m[0]):]) == "":
			open = ""
		case open != "":
			out = append(out, "  "+cyan+line+colorOff)
		case m != nil:
			open = m[2]
		default:
			out = append(out, block(line, width))
		}
	}
	return strings.Join(out, "\n")
}

// block styles one line outside code blocks.
func block(line string, width int) string {
	if m := heading.FindStringSubmatch(line); m != nil {
		if len(m[1]) == 1 {
			return bold + under + magenta + inline(m[2]) + colorOff + underOff + boldOff
		}
		return bold + magenta + inline(m[2]) + colorOff + boldOff
	}
	if rule.MatchString(line) {
		return faint + strings.Repeat("─", width) + boldOff
	}
	if m := quote.FindStringSubmatch(line); m != nil {
		return faint + "│" + boldOff + " " + inline(m[1])
	}
	if m := bullet.FindStringSubmatch(line); m != nil {
		return m[1] + "• " + inline(m[2])
	}
	if m := numbered.FindStringSubmatch(line); m != nil {
		return m[1] + m[2] + " " + inline(m[3])
	}
	if m := summary.FindStringSubmatch(line); m != nil {
		return bold + inline(m[1]) + boldOff
	}
	if t := strings.TrimSpace(line); t == "</details>" || t == "<details>" {
		return ""
	}
	return inline(line)
}

// inline styles the spans of one line: code, strong, emphasis, links and
// backslash escapes.
func inline(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && isPunct(s[i+1]):
			b.WriteByte(s[i+1])
			i += 2
			continue
		case c == '`':
			n := run(s[i:], '`')
			if end := strings.Index(s[i+n:], s[i:i+n]); end >= 0 {
				b.WriteString(cyan + s[i+n:i+n+end] + colorOff)
				i += n + end + n
				continue
			}
			b.WriteString(s[i : i+n])
			i += n
			continue
		case (c == '*' || c == '_') && strings.HasPrefix(s[i:], string([]byte{c, c})):
			if end := strings.Index(s[i+2:], string([]byte{c, c})); end > 0 && opens(s, i, c) {
				b.WriteString(bold + inline(s[i+2:i+2+end]) + boldOff)
				i += 2 + end + 2
				continue
			}
		case c == '*' || c == '_':
			if end := closing(s, i, c); end > 0 && opens(s, i, c) {
				b.WriteString(italic + inline(s[i+1:end]) + italicOff)
				i = end + 1
				continue
			}
		case c == '[':
			if t, u, n, ok := link(s[i:]); ok {
				b.WriteString(under + inline(t) + underOff + " " + faint + "(" + u + ")" + boldOff)
				i += n
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// run counts the bytes c that s starts with.
func run(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// opens reports whether the c at i can open emphasis: followed by text,
// and for _ not inside a word (snake_case stays as it is).
func opens(s string, i int, c byte) bool {
	k := i + run(s[i:], c)
	if k >= len(s) || s[k] == ' ' {
		return false
	}
	return c == '*' || i == 0 || !isWord(s[i-1])
}

// closing finds the single c that closes emphasis opened at i, or -1.
func closing(s string, i int, c byte) int {
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '`':
			return -1
		case s[j] == c && j > i+1 && s[j-1] != ' ' && (j+1 >= len(s) || s[j+1] != c) && (c == '*' || j+1 >= len(s) || !isWord(s[j+1])):
			return j
		}
	}
	return -1
}

// link reads "[text](url)" at the start of s.
func link(s string) (label, url string, n int, ok bool) {
	mid := strings.Index(s, "](")
	if mid < 1 || strings.ContainsAny(s[1:mid], "[]") {
		return "", "", 0, false
	}
	end := strings.IndexByte(s[mid+2:], ')')
	if end < 1 || strings.ContainsAny(s[mid+2:mid+2+end], " \t") {
		return "", "", 0, false
	}
	return s[1:mid], s[mid+2 : mid+2+end], mid + 2 + end + 1, true
}

func isPunct(c byte) bool {
	return c < 0x80 && strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0
}

func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
