package diffctx

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/internal/toolname"
)

// Unit is a share of a diff's hunks small enough to be reviewed in a turn of
// its own, for a diff whose hunks do not all fit the static context.
type Unit struct {
	// Parts are the hunks the unit holds, in priority order.
	Parts []Part `json:"parts"`
	// Tokens is the count of Markdown.
	Tokens int `json:"tokens"`
	// Markdown shows the parts file by file, numbered like the static
	// context. It is not serialised: RenderUnit rebuilds it from Parts.
	Markdown string `json:"-"`
}

// Part is a run of whole hunks of one file, or a slice of one hunk too large
// for a unit.
type Part struct {
	Path string `json:"path"`
	// First and Last number the part's hunks in the file, from 1.
	First int `json:"first_hunk"`
	Last  int `json:"last_hunk"`
	// FromLine and ToLine, when set, slice the part's one hunk: its
	// rendered lines FromLine to ToLine, numbered from 1 after the @@ line.
	FromLine int `json:"from_line,omitempty"`
	ToLine   int `json:"to_line,omitempty"`
}

// Files lists the paths of u's parts, each once, in order.
func (u Unit) Files() []string {
	var out []string
	for _, p := range u.Parts {
		if !slices.Contains(out, p.Path) {
			out = append(out, p.Path)
		}
	}
	return out
}

// maxUnitLine bounds a line of a unit in runes, so that one line of minified
// code cannot take a unit's whole budget; read_file_hunk shows it whole.
const maxUnitLine = 2000

// maxRepack bounds the passes that shrink the budget when units counted part
// by part come out over it as a whole.
const maxRepack = 4

// Units splits the hunks ctx does not show into units of at most budget
// tokens as counted by c (nil counts with text.EstimateTokens); ctx
// nil stands for a context that shows no hunk. Files come in the static
// context's priority order, and lockfiles, generated and binary files,
// which the context only summarises, are left out.
//
// Files are packed whole, in order, into as few units as that order allows.
// A file larger than a unit gets units of its own, cut between hunks taken
// in order of priority (see hunkRank), and a hunk larger than a unit is
// cut between lines; within a unit, a file's hunks read in file order. A
// unit exceeds budget only when one line (at most 2000 runes) of a hunk
// does.
func Units(d *Diff, ctx *Context, budget int, c Counter) []Unit {
	if d == nil {
		return nil
	}
	shown := map[string]int{}
	if ctx != nil {
		for _, e := range ctx.Files {
			shown[e.Path] = e.Shown
		}
	}
	_, units, _ := packUnits(newRenderer(d, c).items, shown, budget, 0, c)
	return units
}

// packUnits packs the hunks of items not shown into units of budget
// tokens, at most limit of them (0: no bound). Past limit it only
// estimates, with text.EstimateTokens, how many units the rest
// would take, so that a huge diff costs no more counting than the units
// kept; total is the units kept plus that estimate.
func packUnits(items []*item, shown map[string]int, budget, limit int, c Counter) (p *packer, units []Unit, total int) {
	if c == nil {
		c = estimator{}
	}
	p = &packer{c: c, counts: map[string]int{}, heads: map[*File]int{}, byPath: map[string]*item{}}
	for _, it := range items {
		if it.inline() && shown[it.f.Path] < len(it.f.Hunks) {
			p.items = append(p.items, it)
			p.from = append(p.from, shown[it.f.Path])
			p.byPath[it.f.Path] = it
		}
	}
	p.files = make([][]piece, len(p.items))
	// Parts are counted one by one; the rendered whole can count a few
	// tokens more. Shrink the room by the worst excess and pack again.
	room := budget
	next, rest := 0, 0
	for pass := 0; pass < maxRepack; pass++ {
		units, next, rest = p.pack(room, limit)
		countUnits(units, p.c)
		excess := 0
		for _, u := range units {
			if len(u.Parts) > 1 || u.Parts[0].FromLine == 0 || u.Parts[0].FromLine != u.Parts[0].ToLine {
				excess = max(excess, u.Tokens-budget)
			}
		}
		if excess <= 0 {
			break
		}
		room -= excess
	}
	total = len(units) + p.estimate(next, room, rest)
	return p, units, total
}

// RenderUnit renders the hunks of u from d: the Markdown that Units gave
// the unit, rebuilt from its parts. It fails when a part names a file or a
// hunk that d does not have.
func RenderUnit(d *Diff, u Unit) (string, error) {
	if d == nil {
		d = &Diff{}
	}
	var b strings.Builder
	for i := 0; i < len(u.Parts); {
		j := i + 1
		for j < len(u.Parts) && u.Parts[j].Path == u.Parts[i].Path {
			j++
		}
		f := d.File(u.Parts[i].Path)
		if f == nil {
			return "", fmt.Errorf("unit part %s: the diff does not change that file", u.Parts[i].Path)
		}
		texts := make([]string, 0, j-i)
		more := false
		for _, p := range u.Parts[i:j] {
			t, m, err := partText(f, p)
			if err != nil {
				return "", err
			}
			texts, more = append(texts, t), m
		}
		writeSection(&b, newItem(f), u.Parts[i:j], texts, more)
		i = j
	}
	return strings.TrimPrefix(b.String(), "\n"), nil
}

// piece is a part with its text and cost.
type piece struct {
	part Part
	text string
	cost int
	more bool // a slice that stops before the end of its hunk
	rank int  // its hunk's hunkRank
}

// packer packs the pieces of files into units.
type packer struct {
	c      Counter
	counts map[string]int // memo of counts of lines of cut hunks
	heads  map[*File]int  // memo of headCost
	items  []*item        // files with hunks to pack, in priority order
	from   []int          // per file, its first hunk to pack
	files  [][]piece      // per file, its pieces once counted
	byPath map[string]*item
	// cut is the largest file packed that no unit holds whole, and
	// cutTokens its count.
	cut       string
	cutTokens int
	// used marks the files a unit took ahead of their turn, to fill
	// its room with files of its directory.
	used []bool
}

// pieces are the file's hunks to pack, each with its count, counted on
// first use: with the files after it that a pack may reach next, up to
// packAhead of them, on every core. Counting is most of packing a large
// diff, and a bound on the units (a limit) still counts few files past
// the last it packs.
func (p *packer) pieces(i int) []piece {
	if p.files[i] == nil {
		var todo []int
		for j := i; j < min(len(p.items), i+packAhead); j++ {
			if p.files[j] == nil {
				todo = append(todo, j)
			}
		}
		forEach(len(todo), func(k int) { p.files[todo[k]] = p.countPieces(todo[k]) })
	}
	return p.files[i]
}

// countPieces cuts file i into its hunks to pack and counts each.
func (p *packer) countPieces(i int) []piece {
	f := p.items[i].f
	out := []piece{}
	for k := p.from[i]; k < len(f.Hunks); k++ {
		text := unitHunk(&f.Hunks[k])
		out = append(out, piece{part: Part{Path: f.Path, First: k + 1, Last: k + 1}, text: text, cost: p.c.Count(text), rank: hunkRank(&f.Hunks[k])})
	}
	return out
}

// countUnits counts the Markdown of each unit not counted yet, side by
// side.
func countUnits(units []Unit, c Counter) {
	forEach(len(units), func(k int) {
		if units[k].Tokens == 0 {
			units[k].Tokens = c.Count(units[k].Markdown)
		}
	})
}

// linesAdder is a Counter whose counts add up at the start of a line
// (conversation.Counter.AddsAtLines).
type linesAdder interface{ AddsAtLines() bool }

// unitTokens counts md, a unit's Markdown, which holds texts verbatim and
// in order, from the counts of the whole hunks among them (whole): only
// the text around them is counted. ok is false when c's counts may not add
// up at a join (see conversation.Counter.AddsAtLines), or a join is not
// one where they do: the unit is then counted whole.
func unitTokens(c Counter, md string, texts []string, whole map[string]int) (n int, ok bool) {
	if a, is := c.(linesAdder); !is || !a.AddsAtLines() || len(whole) == 0 {
		return 0, false
	}
	// joins reports whether a text starting with s may follow a newline
	// with the counts adding up.
	joins := func(s string) bool {
		r, _ := utf8.DecodeRuneInString(s)
		return s == "" || r != '/' && !unicode.IsSpace(r)
	}
	at := 0
	for _, t := range texts {
		k := strings.Index(md[at:], t)
		if k < 0 || t == "" || !joins(t) || t[len(t)-1] != '\n' {
			return 0, false
		}
		k += at
		if k > 0 && md[k-1] != '\n' || !joins(md[k+len(t):]) {
			return 0, false
		}
		cost, known := whole[t]
		if !known {
			cost = c.Count(t)
		}
		n += c.Count(md[at:k]) + cost
		at = k + len(t)
	}
	return n + c.Count(md[at:]), true
}

// forEach calls f(0) to f(n-1) on every core, and returns when all have
// returned. f must be safe to call side by side: a Counter's Count is.
func forEach(n int, f func(int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for k := range n {
			f(k)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for k := int(next.Add(1)) - 1; k < n; k = int(next.Add(1)) - 1 {
				f(k)
			}
		})
	}
	wg.Wait()
}

// count counts s, remembering counts of the lines of cut hunks, which are
// counted again on every pass.
func (p *packer) count(s string) int {
	if n, ok := p.counts[s]; ok {
		return n
	}
	n := p.c.Count(s)
	p.counts[s] = n
	return n
}

// unitBuilder accumulates one unit.
type unitBuilder struct {
	parts []Part
	texts []string
	more  []bool
	used  int
	whole map[string]int // the counts of the whole hunks it holds
}

func (u *unitBuilder) add(pc piece) {
	if pc.part.FromLine == 0 {
		// A whole hunk's cost is its exact count; a slice's adds
		// its lines' counts.
		if u.whole == nil {
			u.whole = map[string]int{}
		}
		u.whole[pc.text] = pc.cost
	}
	u.parts = append(u.parts, pc.part)
	u.texts = append(u.texts, pc.text)
	u.more = append(u.more, pc.more)
	u.used += pc.cost
}

// headCost is the count of a file's heading in a unit, with the longest
// note it can have.
func (p *packer) headCost(f *File) int {
	if n, ok := p.heads[f]; ok {
		return n
	}
	n := len(f.Hunks)
	p.heads[f] = p.c.Count(fmt.Sprintf("\n### %s (hunks %d–%d of %d; continued from the previous unit; continued in the next unit)\n\n```\n```\n",
		codeSpan(displayPath(f.Path)), n, n, n))
	return p.heads[f]
}

// packAhead bounds how far past a file pack looks for files to fill a
// unit's room: only files close in priority order share a unit.
const packAhead = 64

// pack fills units of room tokens with whole files where they fit, else
// with a file's hunks or slices of a hunk, and stops after limit units (0:
// no bound). A unit whose next file does not fit is filled first with
// later files of its directory (a package, most often), then with any
// later file that fits whole, from the next packAhead files. It returns
// the units, the first file it did not reach and the tokens of the file
// it stopped inside that it did not pack.
func (p *packer) pack(room, limit int) (units []Unit, next, rest int) {
	p.used = make([]bool, len(p.items))
	r := &packRun{packer: p, room: room, limit: limit}
	for i := range p.items {
		if p.used[i] {
			continue
		}
		if r.full() {
			return r.units, i, 0
		}
		w := r.whole(i)
		if w > room {
			if next, rest, stop := r.cutFile(i, w); stop {
				return r.units, next, rest
			}
			continue
		}
		if r.cur.used+w > room {
			r.fill(i)
			r.closeUnit()
			if r.full() {
				return r.units, i, 0
			}
		}
		r.addWhole(i)
	}
	r.closeUnit()
	return r.units, len(p.items), 0
}

// packRun is one pack: the units closed so far and the one being filled.
type packRun struct {
	*packer
	room, limit int
	units       []Unit
	cur         unitBuilder
	dirs        []string // the directories of cur's files
}

// full reports whether the run has its limit of units.
func (r *packRun) full() bool { return r.limit > 0 && len(r.units) >= r.limit }

// closeUnit renders the unit being filled, if it holds anything, and
// starts the next.
func (r *packRun) closeUnit() {
	if len(r.cur.parts) == 0 {
		return
	}
	ps, ts, ms := inFileOrder(r.cur.parts, r.cur.texts, r.cur.more)
	parts, texts, more := merge(ps, ts, ms)
	u := Unit{Parts: parts}
	u.Markdown = renderParts(r.byPath, parts, texts, more)
	// Counted from its hunks' counts where they add up; else its count
	// waits for the pack's end (countUnits): nothing in a pack reads it,
	// and the units are counted side by side.
	if n, ok := unitTokens(r.c, u.Markdown, ts, r.cur.whole); ok {
		u.Tokens = n
	}
	r.units = append(r.units, u)
	r.cur, r.dirs = unitBuilder{}, nil
}

// whole is the count of file i packed whole, with its heading.
func (r *packRun) whole(i int) int {
	n := r.headCost(r.items[i].f)
	for _, pc := range r.pieces(i) {
		n += pc.cost
	}
	return n
}

// addWhole packs file i whole into the unit being filled.
func (r *packRun) addWhole(i int) {
	f := r.items[i].f
	r.cur.used += r.headCost(f)
	for _, pc := range r.pieces(i) {
		r.cur.add(pc)
	}
	r.used[i] = true
	r.addDir(f.Path)
}

// addDir notes the directory of path among the unit's.
func (r *packRun) addDir(path string) {
	if d := dirOf(path); !slices.Contains(r.dirs, d) {
		r.dirs = append(r.dirs, d)
	}
}

// fill packs into the unit being filled the files after i that fit its
// room whole: those of its directories first.
func (r *packRun) fill(i int) {
	for _, sameDir := range []bool{true, false} {
		for j := i + 1; j < min(len(r.items), i+1+packAhead); j++ {
			if r.used[j] || len(r.cur.parts) == 0 || r.cur.used >= r.room {
				continue
			}
			if sameDir != slices.Contains(r.dirs, dirOf(r.items[j].f.Path)) {
				continue
			}
			if w := r.whole(j); w <= r.room && r.cur.used+w <= r.room {
				r.addWhole(j)
			}
		}
	}
}

// cutFile packs file i, of w tokens and larger than a unit, into units of its
// own, cut between hunks taken by priority, and inside hunks too large
// for a unit; its last unit stays open for the next files, as far as they
// fit. When the limit of units stops it, it reports stop with the pack's
// next file and rest.
func (r *packRun) cutFile(i, w int) (next, rest int, stop bool) {
	f := r.items[i].f
	if w > r.cutTokens {
		r.packer.cut, r.cutTokens = f.Path, w
	}
	r.fill(i)
	r.closeUnit()
	if r.full() {
		return i, 0, true
	}
	r.used[i] = true
	head := r.headCost(f)
	ordered := slices.Clone(r.pieces(i))
	slices.SortStableFunc(ordered, func(a, b piece) int { return cmp.Compare(a.rank, b.rank) })
	left := w - head
	for _, pc := range ordered {
		for _, s := range r.slices(pc, r.room-head) {
			if len(r.cur.parts) > 0 && r.cur.used+s.cost > r.room {
				r.closeUnit()
			}
			if r.full() {
				// The file is cut here; the rest of it is left.
				return i + 1, left, true
			}
			left -= s.cost
			if len(r.cur.parts) == 0 {
				r.cur.used = head
			}
			r.cur.add(s)
		}
	}
	r.addDir(f.Path)
	return 0, 0, false
}

// dirOf is the directory of a changed path, "" at the root.
func dirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// estimate is about how many units of room tokens the files from the
// next one on take after rest tokens of a file cut short, counted with
// text.EstimateTokens: the units past a bound are only counted, never
// built.
func (p *packer) estimate(next, room, rest int) int {
	if room <= 0 {
		return 0
	}
	// The estimate of a hunk's body leaves out what rendering adds
	// (line numbers, headings) and what the counter counts differently:
	// the files packed say by how much.
	counted, estimated := 0, 0
	for i, pieces := range p.files {
		if pieces == nil {
			continue
		}
		f := p.items[i].f
		counted += p.headCost(f)
		for k, pc := range pieces {
			counted += pc.cost
			estimated += bodyEstimate(&f.Hunks[p.from[i]+k])
		}
	}
	scale := 1.0
	if estimated > 0 {
		scale = float64(counted) / float64(estimated)
	}
	units, used := rest/room, rest%room
	for i := next; i < len(p.items); i++ {
		if p.used[i] {
			continue
		}
		f := p.items[i].f
		cost := 0
		for k := p.from[i]; k < len(f.Hunks); k++ {
			cost += bodyEstimate(&f.Hunks[k])
		}
		cost = int(float64(cost) * scale)
		switch {
		case cost > room:
			units += (cost + room - 1) / room
		case used+cost > room:
			units++
			used = cost
		default:
			used += cost
		}
	}
	if used > 0 {
		units++
	}
	return units
}

// bodyEstimate is a cheap estimate of a hunk's count: its body's, and
// its @@ line.
func bodyEstimate(h *Hunk) int { return estimator{}.Count(h.Body) + 10 }

// inFileOrder sorts a unit's parts so that each file's read in the order
// of the file, though a file larger than a unit is packed by priority.
func inFileOrder(parts []Part, texts []string, more []bool) ([]Part, []string, []bool) {
	idx := make([]int, len(parts))
	files := map[string]int{}
	for i, p := range parts {
		idx[i] = i
		if _, ok := files[p.Path]; !ok {
			files[p.Path] = len(files)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		pa, pb := parts[a], parts[b]
		return cmp.Or(cmp.Compare(files[pa.Path], files[pb.Path]), cmp.Compare(pa.First, pb.First), cmp.Compare(pa.FromLine, pb.FromLine))
	})
	ps, ts, ms := make([]Part, len(idx)), make([]string, len(idx)), make([]bool, len(idx))
	for i, j := range idx {
		ps[i], ts[i], ms[i] = parts[j], texts[j], more[j]
	}
	return ps, ts, ms
}

// hunkRank orders the hunks of a file too large for one unit: hunks whose
// changed lines name security-relevant terms first, then hunks that add
// lines, then hunks that only delete.
func hunkRank(h *Hunk) int {
	switch {
	case securityLines(h.Body):
		return 0
	case strings.HasPrefix(h.Body, "+") || strings.Contains(h.Body, "\n+"):
		return 1
	}
	return 2
}

// merge joins runs of whole hunks of a file into one part.
func merge(parts []Part, texts []string, more []bool) ([]Part, []string, []bool) {
	var ps []Part
	var ts []string
	var ms []bool
	for i, p := range parts {
		if n := len(ps) - 1; n >= 0 && p.FromLine == 0 && ps[n].FromLine == 0 && ps[n].Path == p.Path && ps[n].Last+1 == p.First {
			ps[n].Last = p.Last
			ts[n] += texts[i]
			continue
		}
		ps, ts, ms = append(ps, p), append(ts, texts[i]), append(ms, more[i])
	}
	return ps, ts, ms
}

// slices cuts a piece over room tokens into slices of its lines that fit,
// each holding at least one line.
func (p *packer) slices(pc piece, room int) []piece {
	if pc.cost <= room {
		return []piece{pc}
	}
	header, lines := splitHunk(pc.text)
	var out []piece
	for from := 0; from < len(lines); {
		part := pc.part
		part.FromLine = from + 1
		cost := p.count(sliceHeader(header, from))
		to := from
		for to < len(lines) {
			n := p.count(lines[to])
			if to > from && cost+n > room {
				break
			}
			cost += n
			to++
		}
		part.ToLine = to
		out = append(out, piece{part: part, text: sliceText(header, lines, from, to), cost: cost, more: to < len(lines)})
		from = to
	}
	return out
}

// renderParts writes the Markdown of a unit's parts: consecutive parts of
// one file share a heading and a fence.
func renderParts(byPath map[string]*item, parts []Part, texts []string, more []bool) string {
	var b strings.Builder
	for i := 0; i < len(parts); {
		j := i + 1
		for j < len(parts) && parts[j].Path == parts[i].Path {
			j++
		}
		writeSection(&b, byPath[parts[i].Path], parts[i:j], texts[i:j], more[j-1])
		i = j
	}
	return strings.TrimPrefix(b.String(), "\n")
}

// writeSection writes one file's parts under its heading, which says which
// hunks they are when they are not all of the file's; more says the last
// part is a slice that stops before the end of its hunk.
func writeSection(b *strings.Builder, it *item, parts []Part, texts []string, more bool) {
	f := it.f
	first, last := parts[0], parts[len(parts)-1]
	// The hunks the parts hold, in order; a file packed by priority can
	// skip some.
	var nums []int
	for _, p := range parts {
		for k := p.First; k <= p.Last; k++ {
			if len(nums) == 0 || nums[len(nums)-1] != k {
				nums = append(nums, k)
			}
		}
	}
	runs := nums[len(nums)-1]-nums[0]+1 == len(nums)
	var note []string
	switch {
	case first.First == 1 && last.Last == len(f.Hunks) && runs && first.FromLine <= 1 && !more:
	case len(nums) == 1:
		note = append(note, fmt.Sprintf("hunk %d of %d", first.First, len(f.Hunks)))
	case runs:
		note = append(note, fmt.Sprintf("hunks %d–%d of %d", first.First, last.Last, len(f.Hunks)))
	default:
		s := make([]string, len(nums))
		for i, k := range nums {
			s[i] = strconv.Itoa(k)
		}
		note = append(note, fmt.Sprintf("hunks %s of %d", strings.Join(s, ", "), len(f.Hunks)))
	}
	if first.FromLine > 1 {
		note = append(note, "continued from the previous unit")
	}
	if more {
		note = append(note, "continued in the next unit")
	}
	ticks := 0
	for _, t := range texts {
		ticks = max(ticks, text.LongestRun(t, '`'))
	}
	fence := strings.Repeat("`", max(3, ticks+1))
	if it.crlf {
		note = append(note, "CRLF line endings")
	}
	b.WriteString("\n### " + codeSpan(displayPath(f.Path)))
	if len(note) > 0 {
		b.WriteString(" (" + strings.Join(note, "; ") + ")")
	}
	b.WriteString("\n\n" + fence + "\n")
	for _, t := range texts {
		b.WriteString(t)
	}
	b.WriteString(fence)
	b.WriteByte('\n')
}

// partText is the text of one part of f, and whether it is a slice that
// stops before the end of its hunk.
func partText(f *File, p Part) (text string, more bool, err error) {
	if p.First < 1 || p.Last < p.First || p.Last > len(f.Hunks) {
		return "", false, fmt.Errorf("unit part %s: hunks %d to %d, the file has %d", f.Path, p.First, p.Last, len(f.Hunks))
	}
	var b strings.Builder
	for k := p.First; k <= p.Last; k++ {
		b.WriteString(unitHunk(&f.Hunks[k-1]))
	}
	if p.FromLine == 0 && p.ToLine == 0 {
		return b.String(), false, nil
	}
	header, lines := splitHunk(b.String())
	if p.First != p.Last || p.FromLine < 1 || p.ToLine < p.FromLine || p.ToLine > len(lines) {
		return "", false, fmt.Errorf("unit part %s: lines %d to %d of hunk %d, which has %d", f.Path, p.FromLine, p.ToLine, p.First, len(lines))
	}
	return sliceText(header, lines, p.FromLine-1, p.ToLine), p.ToLine < len(lines), nil
}

// unitHunk renders a hunk as the static context does, with overlong lines
// cut.
func unitHunk(h *Hunk) string {
	text, _, _ := renderHunk(h)
	if len(text) <= maxUnitLine {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if len(l) <= maxUnitLine {
			continue // a rune is at least a byte
		}
		r := []rune(strings.TrimSuffix(l, "\n"))
		if len(r) > maxUnitLine {
			lines[i] = string(r[:maxUnitLine]) + fmt.Sprintf(" … [%d more characters of this line: "+toolname.ReadFileHunk+" shows it whole]\n", len(r)-maxUnitLine)
		}
	}
	return strings.Join(lines, "")
}

// splitHunk separates a rendered hunk's @@ line from its other lines, each
// line keeping its newline.
func splitHunk(text string) (header string, lines []string) {
	all := strings.SplitAfter(text, "\n")
	if n := len(all); n > 0 && all[n-1] == "" {
		all = all[:n-1]
	}
	if len(all) == 0 {
		return "", nil
	}
	return all[0], all[1:]
}

// sliceHeader opens a slice of a hunk: the hunk's @@ line, marked when the
// slice does not start the hunk.
func sliceHeader(header string, from int) string {
	if from == 0 {
		return header
	}
	return strings.TrimSuffix(header, "\n") + " (continued)\n"
}

func sliceText(header string, lines []string, from, to int) string {
	return sliceHeader(header, from) + strings.Join(lines[from:to], "")
}
