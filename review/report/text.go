package report

import (
	"fmt"
	"strings"
)

// oneLineText joins the lines of s with spaces.
func oneLineText(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// oneLine flattens s to one line of at most n runes.
func oneLine(s string, n int) string {
	s = oneLineText(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// truncateRunes cuts s to at most n runes, marking the cut with an
// ellipsis.
func truncateRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// plural is "1 request", "2 requests".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// short is the abbreviated commit ID people read in a report.
func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
