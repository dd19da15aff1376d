package diffctx

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/reviewdev/review/internal/toolname"
)

// The overview of a large diff is budgeted like the hunks: past its limit,
// the files first in priority order keep a line of their own and the others
// are counted in one line per directory, with the call that lists them.
// Each file stays reachable: by its line, or by its directory's listing
// and then get_file_diff on the file.

// ListAll is the path get_file_diff lists every changed file for.
const ListAll = "."

// maxShrink bounds the passes that take files off the overview when the
// whole counts more than its parts did.
const maxShrink = 16

// groupReserve stands for the unit note a directory's line may get, so
// that an overview laid out before its units are known still fits after.
const groupReserve = "; in units 1000–1000; 100000 files not reviewed"

// layout decides how the overview names the files within limit tokens and
// returns its count and whether every file has a line of its own. Every
// file does when that fits; otherwise the first files in priority order do
// and the others are grouped by directory, as deep as the groups fit in
// half the limit. When not even one group for every file fits, the
// overview is that smallest form, over the limit.
func (r *renderer) layout(limit int) (tokens int, full bool) {
	if tokens, ok := r.full(limit); ok {
		return tokens, true
	}
	return r.compact(limit), false
}

// full lays out the overview with a line for every file and returns its
// count, if that is within limit.
func (r *renderer) full(limit int) (int, bool) {
	r.listed, r.depth = len(r.items), 0
	head := r.c.Count(r.header()) + r.c.Count(filesHeading)
	// The estimate is cheap; counting every line of a huge overview only
	// to learn it is far too large is not.
	est := head
	for _, it := range r.items {
		est += estimator{}.Count(r.line(it, 0)) + 1
		if est > 2*limit {
			return 0, false
		}
	}
	tokens := head
	for _, it := range r.items {
		tokens += r.lineTokens(it)
	}
	return tokens, tokens <= limit
}

// compact lays out an overview that lists the first files and groups the
// rest, within limit tokens if it can be done.
func (r *renderer) compact(limit int) int {
	n := len(r.items)
	head := r.c.Count(r.header()) + r.c.Count(filesHeading) + r.c.Count(compactIntro(n, n)) + r.c.Count(groupsHeading)
	// The deepest grouping whose lines take at most half of what is left.
	maxDepth := 0
	for _, it := range r.items {
		maxDepth = max(maxDepth, depthOf(it.f.Path))
	}
	depth, groups := 0, 0
	for d := maxDepth; d >= 0; d-- {
		est := 0
		for _, g := range r.groups(0, d) {
			est += estimator{}.Count(r.groupLine(g, d, true)) + 1
		}
		if est <= (limit-head)/2 || d == 0 {
			depth = d
			break
		}
	}
	for _, g := range r.groups(0, depth) {
		groups += r.c.Count(r.groupLine(g, depth, true)) + 1
	}
	// Lines of their own for the first files while they fit; the groups
	// were counted with every file, which only shrinks them.
	used, k := head+groups, 0
	for k < n && (r.maxListed <= 0 || k < r.maxListed) {
		t := r.lineTokens(r.items[k])
		if used+t > limit {
			break
		}
		used += t
		k++
	}
	r.depth = depth
	return r.shrink(k, limit)
}

// shrink lists k files on lines of their own, fewer while the overview
// counts more than limit tokens, and returns its count.
func (r *renderer) shrink(k, limit int) int {
	for pass := 0; ; pass++ {
		r.listed = k
		var b strings.Builder
		r.writeOverview(&b, k, r.depth)
		tokens := r.c.Count(b.String())
		if tokens <= limit || k == 0 {
			return tokens
		}
		if pass == maxShrink {
			k = 0
			continue
		}
		// Take lines off the end until about the excess is freed.
		freed := 0
		for k > 0 && freed < tokens-limit {
			k--
			freed += r.lineTokens(r.items[k])
		}
	}
}

// lineTokens counts the file's overview line as it is laid out: with no
// hunk shown, its note in a review in units.
func (r *renderer) lineTokens(it *item) int {
	if it.tok0 < 0 {
		it.tok0 = r.c.Count(r.line(it, 0)) + 1 // +1 for the newline
	}
	return it.tok0
}

// accounted is the count of the file's overview line as filling has
// accounted it so far.
func (r *renderer) accounted(it *item) int {
	if it.lineTok >= 0 {
		return it.lineTok
	}
	return r.lineTokens(it)
}

// setNotes sets the notes that end files' and directories' lines in a
// review in units; counts of lines made with other notes are forgotten.
func (r *renderer) setNotes(note func(*item) string, groupNote func([]*item) string) {
	r.note, r.groupNote = note, groupNote
	for _, it := range r.items {
		it.tok0, it.lineTok = -1, -1
	}
}

// unitReserve stands for the note of a file in a review in units, laid
// out before its units are known: the files listed first are the first
// packed, so their notes name units. If some are not reviewed after all,
// their longer notes take files off the list (Split.Keep).
const unitReserve = " — in units 1000–1000"

// line is the file's overview line.
func (r *renderer) line(it *item, shown int) string {
	switch {
	case r.note != nil:
		return it.line() + r.note(it) + it.syms
	case r.inUnits && it.inline():
		return it.line() + unitReserve + it.syms
	}
	return it.overview(shown)
}

const groupsHeading = "\nOther changed files, by directory:\n\n"

// compactIntro opens an overview that lists only some files.
func compactIntro(listed, n int) string {
	var b strings.Builder
	switch listed {
	case 0:
		fmt.Fprintf(&b, "Too many files changed to give each a line: all %d are counted by directory. ", n)
	case 1:
		fmt.Fprintf(&b, "Too many files changed to give each a line: the first in priority order has one, the other %d are counted by directory. ", n-1)
	default:
		fmt.Fprintf(&b, "Too many files changed to give each a line: the first %d in priority order have one, the other %d are counted by directory. ", listed, n-listed)
	}
	fmt.Fprintf(&b, "`%s {\"path\": \"<directory>\"}` lists the changed files under a directory (`\"%s\"`: all of them); "+
		"`%s {\"path\": \"<file>\"}` gives one file's diff.\n\n", toolname.GetFileDiff, ListAll, toolname.GetFileDiff)
	return b.String()
}

// writeOverview writes the header and the overview: listed files on lines
// of their own, the others grouped by directory depth elements deep.
func (r *renderer) writeOverview(b *strings.Builder, listed, depth int) {
	b.WriteString(r.header())
	b.WriteString(filesHeading)
	if listed < len(r.items) {
		b.WriteString(compactIntro(listed, len(r.items)))
	}
	for _, it := range r.items[:listed] {
		b.WriteString(r.line(it, it.shown))
		b.WriteByte('\n')
	}
	if listed == len(r.items) {
		return
	}
	if listed > 0 {
		b.WriteString(groupsHeading)
	}
	for _, g := range r.groups(listed, depth) {
		b.WriteString(r.groupLine(g, depth, false))
		b.WriteByte('\n')
	}
}

// group is the files of one directory that the overview does not list.
type group struct {
	key   string // directory, "" for files above the grouping depth
	items []*item
}

// groups groups items[from:] by their directory cut to depth elements, in
// path order.
func (r *renderer) groups(from, depth int) []group {
	byKey := map[string]int{}
	var gs []group
	for _, it := range r.items[from:] {
		k := groupKey(it.f.Path, depth)
		i, ok := byKey[k]
		if !ok {
			i = len(gs)
			byKey[k] = i
			gs = append(gs, group{key: k})
		}
		gs[i].items = append(gs[i].items, it)
	}
	slices.SortFunc(gs, func(a, b group) int { return strings.Compare(a.key, b.key) })
	return gs
}

// groupKey is the directory a file is counted in: its directory, cut to
// depth elements; "" at the top level.
func groupKey(p string, depth int) string {
	dir := path.Dir(p)
	if dir == "." || depth == 0 {
		return ""
	}
	elems := strings.SplitN(dir, "/", depth+1)
	if len(elems) > depth {
		elems = elems[:depth]
	}
	return strings.Join(elems, "/")
}

// groupPath is the path get_file_diff lists a group with.
func groupPath(key string) string {
	if key == "" {
		return ListAll
	}
	return key
}

// depthOf counts a file's directories.
func depthOf(p string) int {
	dir := path.Dir(p)
	if dir == "." {
		return 0
	}
	return strings.Count(dir, "/") + 1
}

// groupLine counts a directory's files by status and tag. reserve makes
// room for a unit note not yet known.
func (r *renderer) groupLine(g group, depth int, reserve bool) string {
	var b strings.Builder
	b.WriteString("- ")
	switch {
	case g.key != "":
		b.WriteString(codeSpan(displayPath(g.key + "/")))
	case depth == 0 && r.listed == 0:
		b.WriteString("all")
	case depth == 0:
		b.WriteString("all others")
	default:
		b.WriteString("top level")
	}
	statuses := map[Status]int{}
	tags := map[string]int{}
	adds, dels := 0, 0
	for _, it := range g.items {
		f := it.f
		statuses[f.Status]++
		for _, t := range f.Tags {
			tags[t]++
		}
		adds += f.Additions
		dels += f.Deletions
	}
	files := "files"
	if len(g.items) == 1 {
		files = "file"
	}
	fmt.Fprintf(&b, " — %d %s (", len(g.items), files)
	sep := ""
	for _, st := range []Status{Modified, Added, Deleted, Renamed, Copied} {
		if n := statuses[st]; n > 0 {
			fmt.Fprintf(&b, "%s%d %s", sep, n, st)
			sep = ", "
		}
	}
	fmt.Fprintf(&b, "), +%d -%d", adds, dels)
	var ts []string
	for _, t := range []string{TagSecurity, TagConfig, TagTest, TagDocs, TagGenerated, TagLockfile, TagBinary, TagSteering} {
		if n := tags[t]; n > 0 {
			ts = append(ts, fmt.Sprintf("%d %s", n, t))
		}
	}
	if len(ts) > 0 {
		fmt.Fprintf(&b, " [%s]", strings.Join(ts, ", "))
	}
	fmt.Fprintf(&b, " — listed by %s", codeSpan(fetchCall(groupPath(g.key))))
	switch {
	case r.groupNote != nil:
		b.WriteString(r.groupNote(g.items))
	case reserve && r.inUnits:
		b.WriteString(groupReserve)
	}
	return b.String()
}

// byPriority orders items as the overview does.
func byPriority(a, b *item) int {
	return cmp.Or(cmp.Compare(a.rank, b.rank), strings.Compare(a.f.Path, b.f.Path))
}
