package symbols

import (
	"cmp"
	"slices"
)

// Changes a change makes to a definition.
const (
	Added    = "added"
	Modified = "modified"
	Removed  = "removed"
)

// Touch is a definition a change adds, modifies or removes, with the uses
// the head has of it.
type Touch struct {
	Def
	Change string
	// Uses and Files count the uses of the symbol at head and the files
	// holding them, its definition's own file included.
	Uses, Files int
}

// Touched returns the definitions of a changed file that the change adds,
// modifies (changed holds a line of their range at head: an added line,
// or where lines were deleted) or removes (defined in base, the file's
// content at the base, and no longer at head), in line order, those at
// head first. path is the file at head; a file the change deletes is no
// file of the index, and all its definitions are removed. At most limit
// are returned (limit <= 0: all), since each costs a question.
func (x *Index) Touched(path string, base []byte, basePath string, changed []int, limit int) []Touch {
	var head []Def
	if i, ok := x.byPath[path]; ok {
		head = x.fileDefs(i)
	}
	var old []Def
	if base != nil && (isGo(basePath) || familyOf(basePath) != nil) {
		f := File{Path: basePath, Data: base}
		if isGo(basePath) {
			old = x.analyzeGo(f).defs
		} else {
			old = scanFile(f).defs
		}
	}
	key := func(d Def) string { return d.Kind + " " + d.Container + "." + d.Name }
	before := map[string]bool{}
	for _, d := range old {
		before[key(d)] = true
	}
	now := map[string]bool{}
	var out []Touch
	for _, d := range head {
		now[key(d)] = true
		switch {
		case !before[key(d)]:
			out = append(out, Touch{Def: d, Change: Added})
		case touches(changed, cmp.Or(d.Doc, d.Line), d.End):
			out = append(out, Touch{Def: d, Change: Modified})
		}
	}
	for _, d := range old {
		if !now[key(d)] {
			d.Path = path
			out = append(out, Touch{Def: d, Change: Removed})
		}
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	// Each count is a question of its own: asked side by side.
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	parallel(idx, func(i int) { x.count(&out[i]) })
	return out
}

// fileDefs are the definitions of file i.
func (x *Index) fileDefs(i int) []Def {
	if isGo(x.files[i].Path) {
		return x.goFileAt(i).defs
	}
	if familyOf(x.files[i].Path) != nil {
		return x.lexFileAt(i).defs
	}
	return nil
}

func touches(lines []int, from, to int) bool {
	i, _ := slices.BinarySearch(lines, from)
	return i < len(lines) && lines[i] <= to
}

// count counts the uses of a touched definition.
func (x *Index) count(t *Touch) {
	files := map[string]bool{}
	for _, r := range x.References(t.Def) {
		if r.Role == Use {
			t.Uses++
			files[r.Path] = true
		}
	}
	t.Files = len(files)
}
