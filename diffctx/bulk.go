package diffctx

import (
	"path"
	"slices"
	"strings"
)

// Bulk files claim the budget in proportion: their lines are reviewed after
// every other file's, so one huge file, a data fixture or a minified bundle
// never crowds the code out of a review.
const (
	// bulkShare and bulkLines make a single file bulk when it holds more
	// than this share of the change's changed lines, and at least this
	// many of them.
	bulkShare = 0.5
	bulkLines = 1000
	// minifiedLine is the length of a changed line past which its file
	// is taken for minified or machine-written.
	minifiedLine = 1000
)

// dataExts are the extensions of data files, bulk when they sit in a
// fixtures or test-data directory.
var dataExts = []string{".json", ".jsonl", ".ndjson", ".csv", ".tsv", ".xml", ".yaml", ".yml", ".sql", ".txt", ".html", ".svg", ".snap", ".golden"}

// markBulk tags the bulk files of a change (TagBulk): files with a
// minified line, data fixtures, and any single file that holds most of a
// large change. Files only summarised (binary, lockfiles, generated) are
// left as they are.
func markBulk(files []*File) {
	total := 0
	for _, f := range files {
		total += f.Additions + f.Deletions
	}
	for _, f := range files {
		if f.Binary || f.HasTag(TagLockfile) || f.HasTag(TagGenerated) || f.HasTag(TagBulk) {
			continue
		}
		n := f.Additions + f.Deletions
		if (n >= bulkLines && float64(n) > bulkShare*float64(total)) || fixture(f.Path) || minified(f) {
			f.Tags = append(f.Tags, TagBulk)
		}
	}
}

// fixture reports whether p is a data file in a fixtures or test-data
// directory.
func fixture(p string) bool {
	lower := strings.ToLower(p)
	if !slices.Contains(dataExts, path.Ext(lower)) {
		return false
	}
	for _, d := range strings.Split(path.Dir(lower), "/") {
		switch d {
		case "testdata", "fixtures", "fixture", "__fixtures__", "__snapshots__", "golden":
			return true
		}
	}
	return false
}

// minified reports whether a changed line of f is longer than
// minifiedLine bytes.
func minified(f *File) bool {
	for _, h := range f.Hunks {
		for line := range strings.SplitSeq(h.Body, "\n") {
			if len(line) > minifiedLine {
				return true
			}
		}
	}
	return false
}
