package diffctx

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/reviewdev/review/conversation"
)

// checkUnits checks what Units promises for every unit of d: each hunk the
// context does not show is in exactly one unit, in order, sliced hunks
// covering every line once; units opening in priority order; a file that fits a
// unit is not split; no unit over budget but for a one-line slice; and
// RenderUnit rebuilds each unit's Markdown.
func checkUnits(t *testing.T, d *Diff, ctx *Context, budget int, c Counter, units []Unit) {
	t.Helper()
	if c == nil {
		c = estimator{}
	}
	want := map[string][]int{} // path → hunks not shown
	shown := map[string]int{}
	if ctx != nil {
		for _, e := range ctx.Files {
			shown[e.Path] = e.Shown
		}
	}
	for _, f := range d.Files {
		if newItem(f).inline() {
			for k := shown[f.Path]; k < len(f.Hunks); k++ {
				want[f.Path] = append(want[f.Path], k+1)
			}
		}
	}
	got := map[string][]int{}
	lines := map[string]int{} // "path#hunk" → next line expected in a slice
	var order []string        // files in the order units hold them
	unitOf := map[string][]int{}
	for i, u := range units {
		if len(u.Parts) == 0 {
			t.Fatalf("unit %d has no parts", i+1)
		}
		md, err := RenderUnit(d, u)
		if err != nil {
			t.Fatalf("unit %d: %v", i+1, err)
		}
		if md != u.Markdown {
			t.Fatalf("unit %d: RenderUnit differs from Units:\n%s", i+1, firstDiff(u.Markdown, md))
		}
		if n := c.Count(u.Markdown); n != u.Tokens {
			t.Errorf("unit %d: Tokens %d, Markdown counts %d", i+1, u.Tokens, n)
		}
		oneLine := len(u.Parts) == 1 && u.Parts[0].FromLine > 0 && u.Parts[0].FromLine == u.Parts[0].ToLine
		if u.Tokens > budget && !oneLine {
			t.Errorf("unit %d: %d tokens, budget %d", i+1, u.Tokens, budget)
		}
		for _, p := range u.Parts {
			if len(order) == 0 || order[len(order)-1] != p.Path {
				order = append(order, p.Path)
			}
			if !slices.Contains(unitOf[p.Path], i) {
				unitOf[p.Path] = append(unitOf[p.Path], i)
			}
			if p.FromLine == 0 {
				for k := p.First; k <= p.Last; k++ {
					got[p.Path] = append(got[p.Path], k)
				}
				continue
			}
			key := fmt.Sprintf("%s#%d", p.Path, p.First)
			if p.FromLine != lines[key]+1 {
				t.Fatalf("unit %d: %s hunk %d slice starts at line %d, want %d", i+1, p.Path, p.First, p.FromLine, lines[key]+1)
			}
			lines[key] = p.ToLine
			_, all := splitHunk(unitHunk(&d.File(p.Path).Hunks[p.First-1]))
			if p.ToLine == len(all) {
				got[p.Path] = append(got[p.Path], p.First)
			}
		}
	}
	for path, hs := range want {
		// A file larger than a unit is packed by priority, not in order.
		sorted := slices.Sorted(slices.Values(got[path]))
		if !slices.Equal(sorted, hs) || len(got[path]) != len(hs) {
			t.Errorf("%s: units hold hunks %v, want %v", path, got[path], hs)
		}
		ranks := make([]int, len(got[path]))
		for i, k := range got[path] {
			ranks[i] = hunkRank(&d.File(path).Hunks[k-1])
		}
		if !slices.IsSorted(ranks) && !slices.IsSorted(got[path]) {
			t.Errorf("%s: hunks %v are in neither file nor priority order (ranks %v)", path, got[path], ranks)
		}
	}
	for path := range got {
		if want[path] == nil {
			t.Errorf("%s: in a unit, but the context shows it or only summarises it", path)
		}
	}
	// Priority order: the order files first appear is the overview's.
	var prio []string
	for _, e := range Render(d, 0, c).Files {
		if want[e.Path] != nil {
			prio = append(prio, e.Path)
		}
	}
	// A unit opens with the file of highest priority it holds (later
	// files fill its room), and units open in priority order.
	rank := map[string]int{}
	for i, p := range prio {
		rank[p] = i
	}
	last := -1
	for i, u := range units {
		opener := rank[u.Parts[0].Path]
		for _, p := range u.Parts {
			if rank[p.Path] < opener {
				t.Errorf("unit %d opens with %s but holds %s, which comes first", i+1, u.Parts[0].Path, p.Path)
			}
		}
		if opener < last {
			t.Errorf("unit %d opens with %s, before the opener of the unit before it in priority order %v", i+1, u.Parts[0].Path, prio)
		}
		last = opener
	}
	// A file whose hunks fit one unit is not split across units.
	for path, us := range unitOf {
		if len(us) > 1 && wholeFileFits(d.File(path), shown[path], budget, c) {
			t.Errorf("%s fits one unit but is split across units %v", path, us)
		}
	}
}

// wholeFileFits reports whether f's hunks from the first not shown fit one
// unit on their own, with a generous margin for the heading.
func wholeFileFits(f *File, from, budget int, c Counter) bool {
	var b strings.Builder
	for k := from; k < len(f.Hunks); k++ {
		b.WriteString(unitHunk(&f.Hunks[k]))
	}
	return c.Count(b.String())+40 < budget/2
}

func TestUnits(t *testing.T) {
	synth := &Diff{Files: mustParse(t, synthDiff(3000))}
	big := &Diff{Files: mustParse(t, []byte(addedFile("gen/table.go", 1500)))}
	mixed := mixedRepo(t)
	tik := tiktoken(t)
	for _, tc := range []struct {
		name    string
		d       *Diff
		budget  int
		c       Counter
		minimum int // units at least
	}{
		{"synthetic small units", synth, 400, nil, 20},
		{"synthetic large units", synth, 8000, nil, 3},
		{"synthetic tiktoken", synth, 1500, tik, 5},
		{"one big added file", big, 2000, nil, 5},
		{"one big added file tiktoken", big, 700, tik, 10},
		{"mixed", mixed, 200, tik, 2},
		{"everything in one unit", mixed, 100000, nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			units := Units(tc.d, nil, tc.budget, tc.c)
			if len(units) < tc.minimum {
				t.Fatalf("%d units, want at least %d", len(units), tc.minimum)
			}
			checkUnits(t, tc.d, nil, tc.budget, tc.c, units)
		})
	}
}

// addedFile is a diff adding a file of n lines: one hunk.
func addedFile(path string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\nnew file mode 100644\nindex 0000000..1234567\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", path, path, path, n)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "+\tentry%d = Entry{Name: %q, Weight: %d} // row %d\n", i, fmt.Sprint("name", i), i*7, i)
	}
	return b.String()
}

// TestUnitsAfterContext splits only what the static context leaves out,
// starting a partly shown file at its first hunk not shown.
func TestUnitsAfterContext(t *testing.T) {
	d := &Diff{Files: mustParse(t, synthDiff(1000))}
	ctx := Render(d, 1200, nil)
	partly := ""
	for _, e := range ctx.Files {
		if e.Shown > 0 && e.Shown < e.Hunks {
			partly = e.Path
		}
	}
	if partly == "" {
		t.Fatalf("no file is partly shown: %+v", ctx.Files)
	}
	units := Units(d, ctx, 1000, nil)
	checkUnits(t, d, ctx, 1000, nil, units)
	if !strings.Contains(units[0].Markdown, "### `"+partly+"` (hunks ") {
		t.Errorf("the first unit should continue %s after its shown hunks:\n%s", partly, units[0].Markdown[:min(400, len(units[0].Markdown))])
	}
	if all := Units(d, Render(d, 1<<20, nil), 1000, nil); len(all) != 0 {
		t.Errorf("a context showing everything leaves %d units", len(all))
	}
}

// TestUnitsSlices checks how a hunk cut across units reads: the @@ line
// first, continued slices marked, every line numbered as in the file.
func TestUnitsSlices(t *testing.T) {
	d := &Diff{Files: mustParse(t, []byte(addedFile("table.go", 400)))}
	units := Units(d, nil, 1000, nil)
	if len(units) < 3 {
		t.Fatalf("%d units", len(units))
	}
	first, second, last := units[0].Markdown, units[1].Markdown, units[len(units)-1].Markdown
	for _, c := range []struct{ md, want string }{
		{first, "### `table.go` (hunk 1 of 1; continued in the next unit)\n\n```\n@@ -0,0 +1,400 @@\n  1 +\tentry1 = "},
		{second, "### `table.go` (hunk 1 of 1; continued from the previous unit; continued in the next unit)\n\n```\n@@ -0,0 +1,400 @@ (continued)\n"},
		{last, "(hunk 1 of 1; continued from the previous unit)\n"},
		{last, "400 +\tentry400 = "},
	} {
		if !strings.Contains(c.md, c.want) {
			t.Errorf("unit lacks %q:\n%s", c.want, c.md[:min(300, len(c.md))])
		}
	}
}

// TestUnitsLongLine cuts a line of minified code so that it cannot take a
// unit's whole budget.
func TestUnitsLongLine(t *testing.T) {
	long := strings.Repeat("x", 10000)
	raw := "diff --git a/min.js b/min.js\nindex 1111111..2222222 100644\n--- a/min.js\n+++ b/min.js\n@@ -1 +1 @@\n-old\n+" + long + "\n"
	d := &Diff{Files: mustParse(t, []byte(raw))}
	units := Units(d, nil, 100000, nil)
	if len(units) != 1 || strings.Contains(units[0].Markdown, long) || !strings.Contains(units[0].Markdown, "8003 more characters of this line") {
		t.Fatalf("units %+v", units)
	}
	checkUnits(t, d, nil, 100000, nil, units)
}

// TestSplitUnits checks the overview of a review in units: each file names
// its units instead of the call that fetches it; summarised files keep
// theirs; past the bound on units, the files left are marked and listed.
func TestSplitUnits(t *testing.T) {
	raw := addedFile("big.go", 300) + addedFile("small.go", 3) +
		"diff --git a/go.sum b/go.sum\nindex 1111111..2222222 100644\n--- a/go.sum\n+++ b/go.sum\n@@ -1 +1 @@\n-a v1 h1:x\n+a v2 h1:y\n"
	d := &Diff{Files: mustParse(t, []byte(raw))}
	s := SplitUnits(d, SplitOptions{Room: 2400, Intro: 100})
	n := len(s.Units)
	if n < 3 || s.Total != n || len(s.Left) != 0 {
		t.Fatalf("%d units, total %d, left %v", n, s.Total, s.Left)
	}
	if s.Budget+100+s.Context.Tokens > 2400 || s.Budget < 1900 {
		t.Errorf("unit budget %d with an overview of %d tokens: over the room of 2400 less the intro", s.Budget, s.Context.Tokens)
	}
	checkUnits(t, d, nil, s.Budget, nil, s.Units)
	ctx := s.Context
	for _, want := range []string{
		fmt.Sprintf("- `big.go` — added, +300 -0 — in units 1–%d\n", n),
		fmt.Sprintf("- `small.go` — added, +3 -0 — in unit %d\n", n),
		"- `go.sum` — modified, +1 -1 [lockfile] — not shown (lockfile): `get_file_diff {\"path\": \"go.sum\"}`\n",
	} {
		if !strings.Contains(ctx.Markdown, want) {
			t.Errorf("overview lacks %q:\n%s", want, ctx.Markdown)
		}
	}
	if ctx.Tokens != (estimator{}).Count(ctx.Markdown) || strings.Contains(ctx.Markdown, "## Hunks") || strings.Contains(ctx.Markdown, "This review covers") {
		t.Errorf("context %d tokens:\n%s", ctx.Tokens, ctx.Markdown)
	}

	// Past a bound of two units: big.go's one hunk is cut, small.go not
	// reached; both are left, and the overview says so.
	capped := SplitUnits(d, SplitOptions{Room: 2400, Intro: 100, Max: 2})
	if len(capped.Units) != 2 || capped.Total != n {
		t.Fatalf("capped: %d units of %d, want 2 of about %d", len(capped.Units), capped.Total, n)
	}
	want := []Left{{Path: "big.go", Hunks: 1, All: 1}, {Path: "small.go", Hunks: 1, All: 1}}
	if !slices.Equal(capped.Left, want) {
		t.Errorf("left %v, want %v", capped.Left, want)
	}
	capped.Keep(1, "--max-units 1")
	for _, want := range []string{
		fmt.Sprintf("This review covers the first 1 of the %d units the hunks take (--max-units 1): lines marked \"not reviewed\" are outside it.\n", n),
		"- `big.go` — added, +300 -0 — in unit 1; 1 of 1 hunks not reviewed: `get_file_diff {\"path\": \"big.go\"}`\n",
		"- `small.go` — added, +3 -0 — not reviewed: `get_file_diff {\"path\": \"small.go\"}`\n",
	} {
		if !strings.Contains(capped.Context.Markdown, want) {
			t.Errorf("capped overview lacks %q:\n%s", want, capped.Context.Markdown)
		}
	}
	// The unit budget was set by the overview as laid out; marking files
	// not reviewed must not make it larger.
	for i, u := range capped.Units {
		if c := capped.Context; c.Tokens > c.Budget || c.Tokens+100+u.Tokens > 2400 {
			t.Errorf("capped overview %d tokens (limit %d) and unit %d of %d: over the room", c.Tokens, c.Budget, i+1, u.Tokens)
		}
	}
}

func TestRenderUnitErrors(t *testing.T) {
	d := &Diff{Files: mustParse(t, synthDiff(100))}
	path := d.Files[0].Path
	for _, tc := range []struct {
		name string
		part Part
		want string
	}{
		{"unknown file", Part{Path: "nope.go", First: 1, Last: 1}, "does not change that file"},
		{"hunk zero", Part{Path: path, First: 0, Last: 1}, "hunks 0 to 1"},
		{"hunk past the end", Part{Path: path, First: 1, Last: 99}, "the file has 10"},
		{"lines past the end", Part{Path: path, First: 1, Last: 1, FromLine: 1, ToLine: 999}, "lines 1 to 999"},
		{"lines of several hunks", Part{Path: path, First: 1, Last: 2, FromLine: 1, ToLine: 2}, "lines 1 to 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := RenderUnit(d, Unit{Parts: []Part{tc.part}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// FuzzUnits splits whatever Parse accepts and checks the units hold
// together.
func FuzzUnits(f *testing.F) {
	f.Add(synthDiff(300), 300)
	f.Add([]byte(addedFile("a.go", 200)), 150)
	f.Add([]byte("diff --git a/x b/x\nindex 1111111..2222222 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-```\n+````\n"), 50)
	f.Fuzz(func(t *testing.T, raw []byte, budget int) {
		files, err := Parse(raw)
		if err != nil {
			return
		}
		budget = 50 + abs(budget)%5000
		d := &Diff{Files: files}
		checkUnits(t, d, nil, budget, nil, Units(d, nil, budget, nil))
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// TestSplitManyFiles splits a change of 3,000 files into two units: the
// overview and each unit fit the room together, the files listed are the
// ones reviewed, the others are counted by directory, and every file not
// in a unit is left.
func TestSplitManyFiles(t *testing.T) {
	d := &Diff{Files: mustParse(t, manyFiles(3000))}
	const room, intro = 20000, 100
	s := SplitUnits(d, SplitOptions{Room: room, Intro: intro, Max: 2})
	if len(s.Units) != 2 || s.Total <= 2 {
		t.Fatalf("%d units of %d", len(s.Units), s.Total)
	}
	inUnits := map[string]bool{}
	for _, u := range s.Units {
		if s.Context.Tokens+intro+u.Tokens > room {
			t.Errorf("overview %d and unit %d tokens: over the room", s.Context.Tokens, u.Tokens)
		}
		for _, p := range u.Files() {
			inUnits[p] = true
		}
	}
	if len(s.Left) != len(d.Files)-len(inUnits) {
		t.Errorf("%d files left, %d in no unit", len(s.Left), len(d.Files)-len(inUnits))
	}
	listed := 0
	for _, e := range s.Context.Files {
		if e.Group == "" {
			listed++
			if !inUnits[e.Path] {
				t.Errorf("%s is listed but not reviewed", e.Path)
			}
		} else if !strings.Contains(s.Context.Markdown, "listed by "+codeSpan(fetchCall(e.Group))) {
			t.Errorf("%s: no line for its directory %s", e.Path, e.Group)
		}
	}
	if listed == 0 || !strings.Contains(s.Context.Markdown, "This review covers the first 2 of the ") {
		t.Errorf("%d files listed:\n%s", listed, s.Context.Markdown)
	}
}

// TestSplitUnitsSmallWindow gives a unit what the loop is not promised
// when the room leaves it less than MinShare, never more than Most, and
// names the largest file a unit cannot hold whole.
func TestSplitUnitsSmallWindow(t *testing.T) {
	raw := addedFile("a/one.go", 40) + addedFile("a/two.go", 40) + addedFile("b/big.go", 400)
	d := &Diff{Files: mustParse(t, []byte(raw))}
	normal := SplitUnits(d, SplitOptions{Room: 600, Intro: 50})
	small := SplitUnits(d, SplitOptions{Room: 600, Intro: 50, Most: 3000, MinShare: 1024})
	if small.Budget <= normal.Budget || small.Budget+small.Context.Tokens+50 > 3000 {
		t.Fatalf("budget %d with Most (overview %d), %d without", small.Budget, small.Context.Tokens, normal.Budget)
	}
	if len(small.Units) >= len(normal.Units) {
		t.Errorf("%d units with Most, %d without: want fewer, fuller ones", len(small.Units), len(normal.Units))
	}
	checkUnits(t, d, nil, small.Budget, nil, small.Units)
	if small.Cut != "b/big.go" || small.CutTokens <= small.Budget {
		t.Errorf("cut %q (%d tokens, budget %d), want b/big.go over the budget", small.Cut, small.CutTokens, small.Budget)
	}
	// A room that leaves MinShare keeps to it.
	roomy := SplitUnits(d, SplitOptions{Room: 20000, Intro: 50, Most: 30000, MinShare: 1024})
	if roomy.Budget+roomy.Context.Tokens+50 > 20000 || roomy.Cut != "" || len(roomy.Units) != 1 {
		t.Errorf("roomy: budget %d, overview %d, cut %q, %d units", roomy.Budget, roomy.Context.Tokens, roomy.Cut, len(roomy.Units))
	}
}

// TestUnitTokensExact holds a unit's count, made from its hunks' counts
// where tiktoken's counts add up at the start of a line, to the count of
// its Markdown counted whole: for both encodings, for hunks packed whole,
// cut between hunks and sliced, with lines that start with white space,
// a slash, a backtick or a Unicode space.
func TestUnitTokensExact(t *testing.T) {
	var tricky strings.Builder
	for i := range 40 {
		p := fmt.Sprintf("dir%d/f%d.go", i%3, i)
		fmt.Fprintf(&tricky, "diff --git a/%s b/%s\nindex 1111111..2222222 100644\n--- a/%s\n+++ b/%s\n", p, p, p, p)
		for h := range 1 + i%4 {
			fmt.Fprintf(&tricky, "@@ -%d,3 +%d,5 @@\n", 1+h*40, 1+h*40)
			fmt.Fprintf(&tricky, " // comment %d\n-\t/x/ := %d\n+\u00a0\u3000 y%d\n+```\n", h, i, h)
			fmt.Fprintf(&tricky, "+/* %s */\n  \n", strings.Repeat("é", i))
		}
	}
	diffs := map[string][]byte{
		"synth":  synthDiff(3000),
		"many":   manyFiles(200),
		"added":  []byte(addedFile("big.go", 900) + addedFile("small.go", 20)),
		"tricky": []byte(tricky.String()),
	}
	for _, enc := range []string{conversation.O200k, conversation.CL100k} {
		c, err := conversation.NewCounter(enc, conversation.Tiktoken)
		if err != nil {
			t.Fatal(err)
		}
		if !c.AddsAtLines() || c.Bounds().AddsAtLines() || c.Estimates().AddsAtLines() {
			t.Fatalf("%s: counts add up at lines: %v, bounds %v, estimates %v", enc, c.AddsAtLines(), c.Bounds().AddsAtLines(), c.Estimates().AddsAtLines())
		}
		for name, raw := range diffs {
			d := &Diff{Files: mustParse(t, raw)}
			for _, budget := range []int{300, 1200, 5000, 40000} {
				for k, u := range Units(d, nil, budget, c) {
					if want := c.Count(u.Markdown); u.Tokens != want {
						t.Errorf("%s, %s, budget %d, unit %d: %d tokens, counted whole %d", enc, name, budget, k+1, u.Tokens, want)
					}
				}
			}
		}
	}
}
