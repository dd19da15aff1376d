package diffctx

import (
	"fmt"
	"strings"
)

// SplitOptions say how SplitUnits splits a diff.
type SplitOptions struct {
	// Room is what the overview and one unit's hunks may take together,
	// in tokens; the overview takes at most half of it.
	Room int
	// Unit, when set, is what the overview, Intro and one unit's hunks
	// may take together instead of Room, which then only lays out the
	// overview: a unit's first request may hold more than the static
	// share, as long as it leaves its tool loop the room promised.
	Unit int
	// Intro is the count of a unit turn's own instructions, which take
	// from the unit's share.
	Intro int
	// Most is the most the overview, Intro and a unit's hunks may take
	// when Room leaves a unit's hunks less than MinShare: a small window
	// gives the unit what the tool loop is not promised, so that a unit
	// is never a few lines of one file. 0 is Room.
	Most int
	// MinShare is the share of a unit below which it takes up to Most.
	MinShare int
	// Max bounds the units; 0 is no bound.
	Max int
	// List is what a line for every changed file may take, in tokens:
	// when the full list fits in it, every file keeps its line, even if
	// that is more than half of Room. Past it the overview collapses by
	// directory, each directory with the call that lists its files.
	List int
	// Counter counts tokens; nil counts with text.EstimateTokens.
	Counter Counter
}

// Split is a diff split into units for a review in turns, one per unit.
type Split struct {
	// Context is the static context of the review: the header and the
	// overview, which names the unit of each file, or says it is not
	// reviewed. It holds no hunks.
	Context *Context
	// Units are the units reviewed, in priority order.
	Units []Unit
	// Total is how many units the whole diff takes; past Max it is
	// estimated, not packed.
	Total int
	// Budget is what each unit's hunks may take, in tokens.
	Budget int
	// Left are the files with hunks that no unit reviewed holds, in
	// priority order.
	Left []Left
	// Cut is the largest file whose hunks do not fit one unit, so that
	// it is reviewed in several, and CutTokens its hunks' count; empty
	// when every file packed is reviewed whole.
	Cut       string
	CutTokens int

	r     *renderer
	all   []Unit
	total int
	limit int // what the overview was laid out in
	room  int // SplitOptions.Room less SplitOptions.Intro
	list  int // SplitOptions.List
}

// Left is a changed file some or all of whose hunks are in no unit
// reviewed.
type Left struct {
	Path string `json:"path"`
	// Hunks is how many of its hunks are not reviewed, of All.
	Hunks int `json:"hunks_not_reviewed"`
	All   int `json:"hunks"`
}

// SplitUnits lays out the overview of d within half of opts.Room and
// packs the hunks of its files into units of what is left, less
// opts.Intro, in priority order as Units does, at most opts.Max units. The
// overview names each file's units; files whose hunks are not all in them
// are marked not reviewed and listed in Left.
func SplitUnits(d *Diff, opts SplitOptions) *Split {
	r := newRenderer(d, opts.Counter)
	r.inUnits = true
	ov, _ := r.layout(max(opts.Room/2, opts.List))
	room := opts.Room
	if opts.Unit > 0 {
		room = opts.Unit
	}
	budget := room - ov - opts.Intro
	if most := opts.Most - ov - opts.Intro; budget < opts.MinShare && most > budget {
		// A small window: the unit takes what the loop is not promised.
		room, budget = opts.Most, most
	}
	budget = max(budget, 1)
	p, units, total := packUnits(r.items, nil, budget, opts.Max, r.c)
	s := &Split{Budget: budget, r: r, all: units, total: total, limit: ov, room: room - opts.Intro, list: opts.List,
		Cut: p.cut, CutTokens: p.cutTokens}
	s.Keep(len(units), "")
	return s
}

// Keep reviews only the first n units: the others' files are left, and
// the overview says so; why names the cap that left them, for the model.
func (s *Split) Keep(n int, why string) {
	n = max(0, min(n, len(s.all)))
	s.Units = s.all[:n]
	s.Total = s.total
	r := s.r
	cv := coverage{spans: s.unitSpans()}
	s.Left, cv.left = s.leftOut(cv.spans)
	r.coverage = ""
	if len(s.Left) > 0 {
		if why != "" {
			why = " (" + why + ")"
		}
		r.coverage = fmt.Sprintf("This review covers the first %d of the %d units the hunks take%s: lines marked \"not reviewed\" are outside it.", n, s.Total, why)
	}
	r.setNotes(cv.note, cv.groupNote)
	s.overview(cv.spans)
}

// unitSpan is where a file's hunks are reviewed: its first and last unit,
// and how many of its hunks the units kept review whole.
type unitSpan struct{ first, last, done int }

// unitSpans maps each file the units kept hold to its span.
func (s *Split) unitSpans() map[string]*unitSpan {
	spans := map[string]*unitSpan{}
	// How many lines a sliced hunk renders to, once per hunk: a huge
	// file's one hunk is sliced across every unit.
	sliceLines := map[*Hunk]int{}
	linesOf := func(h *Hunk) int {
		n, ok := sliceLines[h]
		if !ok {
			_, all := splitHunk(unitHunk(h))
			n = len(all)
			sliceLines[h] = n
		}
		return n
	}
	for i, u := range s.Units {
		for _, p := range u.Parts {
			sp := spans[p.Path]
			if sp == nil {
				sp = &unitSpan{first: i + 1}
				spans[p.Path] = sp
			}
			sp.last = i + 1
			if p.FromLine == 0 {
				sp.done += p.Last - p.First + 1
				continue
			}
			// A sliced hunk is reviewed when its last slice is.
			if f := s.r.d.File(p.Path); f != nil && p.First <= len(f.Hunks) {
				if p.ToLine >= linesOf(&f.Hunks[p.First-1]) {
					sp.done++
				}
			}
		}
	}
	return spans
}

// leftOut lists the files with hunks no unit kept reviews, in priority
// order, and maps each to how many.
func (s *Split) leftOut(spans map[string]*unitSpan) ([]Left, map[string]int) {
	var all []Left
	left := map[string]int{}
	for _, it := range s.r.items {
		if !it.inline() {
			continue
		}
		done := 0
		if sp := spans[it.f.Path]; sp != nil {
			done = sp.done
		}
		if n := len(it.f.Hunks) - done; n > 0 {
			left[it.f.Path] = n
			all = append(all, Left{Path: it.f.Path, Hunks: n, All: len(it.f.Hunks)})
		}
	}
	return all, left
}

// coverage is what the overview's notes say of the units kept: where each
// file is reviewed, and how many of its hunks are not.
type coverage struct {
	spans map[string]*unitSpan
	left  map[string]int
}

// units names a unitSpan's units: "unit 3", "units 2–4".
func (sp *unitSpan) units() string {
	if sp.first == sp.last {
		return fmt.Sprintf("unit %d", sp.first)
	}
	return fmt.Sprintf("units %d–%d", sp.first, sp.last)
}

// note is a file's note in the overview.
func (cv coverage) note(it *item) string {
	if !it.inline() {
		return it.hint(0)
	}
	sp, n := cv.spans[it.f.Path], cv.left[it.f.Path]
	switch {
	case sp == nil:
		return " — not reviewed: " + codeSpan(it.fetch)
	case n > 0:
		return fmt.Sprintf(" — in %s; %d of %d hunks not reviewed: %s", sp.units(), n, len(it.f.Hunks), codeSpan(it.fetch))
	}
	return " — in " + sp.units()
}

// groupNote is the note of a group of files the overview lists as one.
func (cv coverage) groupNote(items []*item) string {
	var all *unitSpan
	notReviewed := 0
	for _, it := range items {
		if cv.left[it.f.Path] > 0 {
			notReviewed++
		}
		sp := cv.spans[it.f.Path]
		if sp == nil {
			continue
		}
		if all == nil {
			all = &unitSpan{first: sp.first, last: sp.last}
		}
		all.first, all.last = min(all.first, sp.first), max(all.last, sp.last)
	}
	var b strings.Builder
	if all != nil {
		b.WriteString("; in " + all.units())
	}
	if notReviewed > 0 {
		fmt.Fprintf(&b, "; %d not reviewed", notReviewed)
	}
	return b.String()
}

// overview writes the overview of the units kept within what the largest
// of them leaves, and makes it the split's context.
func (s *Split) overview(spans map[string]*unitSpan) {
	r := s.r
	// The notes and the line on what the review covers change the
	// overview's count; it may take what the largest unit kept leaves.
	largest := 0
	for _, u := range s.Units {
		largest = max(largest, u.Tokens)
	}
	limit := max(s.limit, s.room-largest, s.list)
	// Lines of their own for files not reviewed are worth less than
	// finer directories: a compact overview lists the files reviewed.
	if r.listed < len(r.items) {
		reviewed := 0
		for reviewed < len(r.items) && (spans[r.items[reviewed].f.Path] != nil || !r.items[reviewed].inline()) {
			reviewed++
		}
		if reviewed < r.listed {
			r.maxListed = max(reviewed, 1)
			r.compact(limit)
			r.maxListed = 0
		}
	}
	var b strings.Builder
	r.writeOverview(&b, r.listed, r.depth)
	tokens := r.c.Count(b.String())
	if tokens > limit {
		if r.listed == len(r.items) {
			tokens = r.compact(limit)
		} else {
			tokens = r.shrink(r.listed, limit)
		}
		b.Reset()
		r.writeOverview(&b, r.listed, r.depth)
	}
	s.Context = r.context(b.String(), tokens, limit)
}
