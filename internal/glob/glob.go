package glob

import (
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Match reports whether any of the doublestar globs matches a
// repository-relative, slash-separated path. A glob matches the path itself
// or any directory above it ("vendor/**" and "vendor" both hide
// vendor/a/b.go); a glob without a slash also matches any single path
// element, at any depth ("*.min.js", "node_modules"), as in .gitignore. A
// leading slash anchors nothing more than the absence of one does. Invalid
// globs match nothing.
func Match(globs []string, p string) bool {
	for _, g := range globs {
		g = strings.TrimPrefix(g, "/")
		g = strings.TrimSuffix(g, "/")
		if g == "" {
			continue
		}
		if !strings.Contains(g, "/") {
			for elem := range strings.SplitSeq(p, "/") {
				if doublestar.MatchUnvalidated(g, elem) {
					return true
				}
			}
			continue
		}
		for q := p; q != ""; q = parent(q) {
			if doublestar.MatchUnvalidated(g, q) {
				return true
			}
		}
	}
	return false
}

// parent is the directory of a slash path, "" at the top.
func parent(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}
