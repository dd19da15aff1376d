package diffctx

import (
	"fmt"
	"strings"
)

// The overview's symbol lines are bounded: a few hundred tokens at most,
// the first symbols of the files first in priority order.
const (
	maxSymbolsPerFile = 6
	maxSymbols        = 24
)

// symbolsNote opens an overview whose files name the symbols they touch.
const symbolsNote = "Under a file: the symbols the change adds, modifies or removes, each with the uses the head has of it (find_references lists them).\n"

// symbolsLeftOut says the overview had no room for the symbol lines.
const symbolsLeftOut = "The symbols the change touches are left out: the diff context has no room for them.\n"

// hasSymbols reports whether any file names symbols.
func (d *Diff) hasSymbols() bool {
	for _, f := range d.Files {
		if len(f.Symbols) > 0 {
			return true
		}
	}
	return false
}

// symbolLines writes, for each item in order, its symbol lines within the
// bounds; the lines of an item follow its overview line.
func symbolLines(items []*item) map[*item]string {
	out := map[*item]string{}
	left := maxSymbols
	for _, it := range items {
		syms := it.f.Symbols
		if len(syms) == 0 {
			continue
		}
		var b strings.Builder
		n := min(len(syms), maxSymbolsPerFile, left)
		for _, s := range syms[:n] {
			at := ""
			if s.Change == "removed" {
				at = " at base"
			}
			fmt.Fprintf(&b, "\n  - %s %s (line %d%s), %s: %s", s.Kind, codeSpan(s.Name), s.Line, at, s.Change, uses(s))
		}
		if n < len(syms) {
			fmt.Fprintf(&b, "\n  - and %d more", len(syms)-n)
		}
		left -= n
		out[it] = b.String()
		if left == 0 {
			break
		}
	}
	return out
}

func uses(s Symbol) string {
	switch {
	case s.Uses == 0 && s.Change == "removed":
		return "no uses remain"
	case s.Uses == 0:
		return "no uses"
	case s.Change == "removed" && s.Uses == 1:
		return "1 use remains in 1 file"
	case s.Change == "removed":
		return fmt.Sprintf("%d uses remain in %d %s", s.Uses, s.Files, plural(s.Files, "file"))
	}
	return fmt.Sprintf("%d %s in %d %s", s.Uses, plural(s.Uses, "use"), s.Files, plural(s.Files, "file"))
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
