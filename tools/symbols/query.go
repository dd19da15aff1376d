package symbols

import (
	"bytes"
	"cmp"
	"path"
	"slices"
	"strings"
)

// goFileAt returns the analysis of file i, made once.
func (x *Index) goFileAt(i int) *goFile {
	x.mu.Lock()
	g, ok := x.goF[i]
	x.mu.Unlock()
	if ok {
		return g
	}
	g = x.analyzeGo(x.files[i])
	x.mu.Lock()
	if prev, ok := x.goF[i]; ok {
		g = prev // analysed meanwhile by another question
	} else {
		x.goF[i] = g
	}
	x.mu.Unlock()
	return g
}

// lexFileAt returns the scan of file i, made once.
func (x *Index) lexFileAt(i int) *lexFile {
	x.mu.Lock()
	l, ok := x.lxF[i]
	x.mu.Unlock()
	if ok {
		return l
	}
	l = scanFile(x.files[i])
	x.mu.Lock()
	if prev, ok := x.lxF[i]; ok {
		l = prev
	} else {
		x.lxF[i] = l
	}
	x.mu.Unlock()
	return l
}

// prepare analyses the files of idx on every core, so that the questions
// after it find them ready.
func (x *Index) prepare(idx []int) {
	parallel(idx, func(i int) {
		if isGo(x.files[i].Path) {
			x.goFileAt(i)
		} else if familyOf(x.files[i].Path) != nil {
			x.lexFileAt(i)
		}
	})
}

func isGo(p string) bool { return strings.HasSuffix(p, ".go") }

// Definitions returns every definition of a symbol ("Name", or
// "Container.Name" for a method or field), in path and line order.
func (x *Index) Definitions(symbol string) []Def {
	container, name := splitName(symbol)
	cands := slices.DeleteFunc(slices.Clone(x.candidates(name)), func(i int) bool {
		return isGo(x.files[i].Path) && !goMayDefine(x.files[i].Data, name)
	})
	x.prepare(cands)
	var defs []Def
	for _, i := range cands {
		var fileDefs []Def
		if isGo(x.files[i].Path) {
			fileDefs = x.goFileAt(i).defs
		} else if familyOf(x.files[i].Path) != nil {
			fileDefs = x.lexFileAt(i).defs
		}
		for _, d := range fileDefs {
			if d.Name == name && (container == "" || d.Container == container) {
				defs = append(defs, d)
			}
		}
	}
	return defs
}

// Resolve returns the definitions of a symbol ranked for a use of it at
// path and line: first the one the use resolves to, then the others in
// the file, its directory and the rest. resolved says the first is what
// the use names (for Go, through its imports, scopes and operand types),
// not only the nearest. A Go use of a function's own variable resolves to
// a definition of kind Local.
func (x *Index) Resolve(symbol, p string, line int) (defs []Def, resolved bool) {
	defs = x.Definitions(symbol)
	_, name := splitName(symbol)
	rank := func(d Def) int {
		switch {
		case d.Path == p:
			return 0
		case dirOf(d.Path) == dirOf(p):
			return 1
		case sameFamily(d.Path, p):
			return 2
		}
		return 3
	}
	slices.SortStableFunc(defs, func(a, b Def) int {
		if c := cmp.Compare(rank(a), rank(b)); c != 0 {
			return c
		}
		if a.Path == p && b.Path == p {
			// In the file, the nearest definition above the use first.
			return cmp.Compare(nearness(a.Line, line), nearness(b.Line, line))
		}
		return 0
	})
	i, ok := x.byPath[p]
	if !ok || line <= 0 || !isGo(p) {
		return defs, false
	}
	g := x.goFileAt(i)
	for _, o := range g.occ[name] {
		if o.line != line || o.role == Comment {
			continue
		}
		if o.local {
			local := Def{Name: name, Kind: Local, Path: p, Line: o.localLine, End: o.localLine}
			return append([]Def{local}, defs...), true
		}
		for k, d := range defs {
			if x.goMatches(d, g, o, defs) == Use {
				return append([]Def{d}, append(slices.Clone(defs[:k]), defs[k+1:]...)...), true
			}
		}
		break
	}
	return defs, false
}

// nearness orders lines by distance from a use, those above it first.
func nearness(def, use int) int {
	if def <= use {
		return use - def
	}
	return 1<<30 + def - use
}

// sameFamily reports whether two paths are in languages whose files can
// name each other's definitions.
func sameFamily(a, b string) bool {
	if isGo(a) || isGo(b) {
		return isGo(a) && isGo(b)
	}
	fa, fb := familyOf(a), familyOf(b)
	return fa != nil && fa == fb
}

// References returns every occurrence of the symbol d defines, in path
// and line order: its uses, its definitions (Go: d itself and, for a
// method, none of the other types'), and the mentions of its name in
// comments and strings of the files of its language. For Go a method or
// field name used on an operand whose type the syntax does not tell is a
// Use when no other type of the module has a member of that name, and
// Maybe otherwise.
func (x *Index) References(d Def) []Ref {
	cands := x.candidates(d.Name)
	if isGo(d.Path) && d.Container == "" {
		// A package-level name is used in its own package's files and in
		// those that import the package: the others need no parsing.
		quoted := []byte(`"` + strings.TrimSuffix(d.pkg, "_test") + `"`)
		dir := dirOf(d.Path)
		cands = slices.DeleteFunc(slices.Clone(cands), func(i int) bool {
			f := x.files[i]
			return isGo(f.Path) && dirOf(f.Path) != dir && !bytes.Contains(f.Data, quoted)
		})
	}
	if isGo(d.Path) && d.Container != "" {
		// A method or field is selected (x.name) or named as a key of a
		// literal (name: v), outside its own package.
		sel, key := []byte("."+d.Name), []byte(d.Name+":")
		dir := dirOf(d.Path)
		cands = slices.DeleteFunc(slices.Clone(cands), func(i int) bool {
			f := x.files[i]
			return isGo(f.Path) && dirOf(f.Path) != dir && !bytes.Contains(f.Data, sel) && !bytes.Contains(f.Data, key)
		})
	}
	x.prepare(cands)
	var refs []Ref
	if isGo(d.Path) {
		var members []Def
		if d.Container != "" {
			for _, i := range cands {
				if isGo(x.files[i].Path) {
					for _, m := range x.goFileAt(i).defs {
						if m.Name == d.Name && m.Container != "" {
							members = append(members, m)
						}
					}
				}
			}
		}
		for _, i := range cands {
			if !isGo(x.files[i].Path) {
				continue
			}
			g := x.goFileAt(i)
			p := x.files[i].Path
			for _, o := range g.occ[d.Name] {
				if r := x.goMatches(d, g, o, members); r >= 0 {
					refs = append(refs, Ref{Path: p, Line: o.line, Func: o.fn, Role: r})
				}
			}
			for _, t := range g.texts {
				for _, l := range mentions(t.text, t.line, d.Name) {
					refs = append(refs, Ref{Path: p, Line: l, Func: t.fn, Role: Comment})
				}
			}
		}
	} else {
		fam := familyOf(d.Path)
		for _, i := range cands {
			if familyOf(x.files[i].Path) != fam {
				continue
			}
			refs = append(refs, x.lexFileAt(i).refs(x.files[i], d.Name)...)
		}
	}
	slices.SortStableFunc(refs, func(a, b Ref) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line))
	})
	return refs
}

// mentions returns the lines of a text (starting at line) holding word.
func mentions(text string, line int, word string) []int {
	var out []int
	for off := 0; ; {
		i := strings.Index(text[off:], word)
		if i < 0 {
			return out
		}
		i += off
		end := i + len(word)
		if (i == 0 || !identByte(text[i-1])) && (end == len(text) || !identByte(text[end])) {
			l := line + strings.Count(text[:i], "\n")
			if len(out) == 0 || out[len(out)-1] != l {
				out = append(out, l)
			}
		}
		off = end
	}
}

// goMatches says what a Go occurrence of d's name is to d: a Use,
// Definition, Comment or Maybe, or -1 when it names something else.
// members are the module's methods and fields of that name.
func (x *Index) goMatches(d Def, g *goFile, o goOcc, members []Def) Role {
	if o.role == Comment || o.local {
		return -1
	}
	if d.Container == "" {
		if o.member {
			return -1
		}
		if o.qual != "" {
			if o.qual == d.pkg {
				return Use
			}
			return -1
		}
		if g.pkg != d.pkg {
			return -1
		}
		return o.role
	}
	return x.goMemberMatches(d, g, o, members)
}

// goMemberMatches is goMatches for a method or field.
func (x *Index) goMemberMatches(d Def, g *goFile, o goOcc, members []Def) Role {
	if !o.member || o.qual != "" {
		return -1
	}
	if o.role == Definition {
		if g.pkg == d.pkg && o.line == d.Line && o.col == d.col {
			return Definition
		}
		return -1
	}
	if t, ok := x.resolve(o.recv, 0); ok {
		if t.pkg == strings.TrimSuffix(d.pkg, "_test") && t.name == d.Container {
			return Use
		}
		own := goType{strings.TrimSuffix(d.pkg, "_test"), d.Container}
		if !x.declares(t, d.Name) && x.embeds(t, own, 0) {
			return Use // promoted, and not shadowed by a member of t's own
		}
		if d.Kind == Method && x.implements(own, t, d.Name) {
			return Use // called through an interface d's type implements, as gopls counts it
		}
		return -1
	}
	others := 0
	for _, m := range members {
		if m.pkg != d.pkg || m.Container != d.Container {
			others++
		}
	}
	// With no other member of that name in the module, a use in d's
	// package or in a file importing it is d's; elsewhere the operand may
	// as well be another module's type (http.Header's Get).
	base := strings.TrimSuffix(d.pkg, "_test")
	if others == 0 && (strings.TrimSuffix(g.pkg, "_test") == base || g.imports[base]) {
		return Use
	}
	return Maybe
}

// resolve finds the named type a tref denotes, through the declarations
// of the module's packages. A collection ([]T) is no named type: it
// resolves to foreign, which has no members of the module.
func (x *Index) resolve(t *tref, depth int) (goType, bool) {
	g, coll, ok := x.resolveColl(t, depth)
	if ok && coll > 0 {
		return goType{pkg: g.pkg, name: foreign}, true
	}
	return g, ok
}

// resolveColl is resolve with the collections left around the type.
func (x *Index) resolveColl(t *tref, depth int) (goType, int, bool) {
	if t == nil || depth > 6 {
		return goType{}, 0, false
	}
	if _, ours := x.dirOfPkg(strings.TrimSuffix(t.pkg, "_test")); !ours {
		// A type of another module (the standard library's, a
		// dependency's): whatever is selected from it is not ours either.
		return goType{pkg: t.pkg, name: foreign}, 0, true
	}
	cur, coll := goType{strings.TrimSuffix(t.pkg, "_test"), t.name}, t.coll
	switch t.kind {
	case 'T':
	case 'N':
		named, types := x.pkgDecls(t.pkg, t.name)
		if !named {
			r, ok := types[t.name]
			if !ok {
				return goType{}, 0, false
			}
			if cur, coll, ok = x.resolveColl(r, depth+1); !ok {
				return goType{}, 0, false
			}
		}
	default:
		return goType{}, 0, false
	}
	for _, s := range t.steps {
		switch {
		case cur.name == foreign:
			return cur, 0, true
		case s == elemStep:
			if coll == 0 {
				return goType{}, 0, false
			}
			coll--
		case coll > 0:
			return goType{}, 0, false // a collection has no members
		default:
			next, c, ok := x.member(cur, s, depth)
			if !ok {
				return goType{}, 0, false
			}
			cur, coll = next, c
		}
	}
	return cur, coll, true
}

// foreign names a type of another module: a method or field of it is
// none of the module's.
const foreign = "(foreign)"

// member is the type of a field or a method's first result.
func (x *Index) member(t goType, name string, depth int) (goType, int, bool) {
	if _, ours := x.dirOfPkg(t.pkg); !ours {
		return goType{pkg: t.pkg, name: foreign}, 0, true
	}
	if depth > 6 {
		return goType{}, 0, false
	}
	_, types := x.pkgDecls(t.pkg, name)
	if r, ok := types[t.name+"."+name]; ok {
		return x.resolveColl(r, depth+1)
	}
	// Promoted from an embedded field.
	for _, e := range x.embedded(t) {
		if m, c, ok := x.member(e, name, depth+1); ok {
			return m, c, true
		}
	}
	return goType{}, 0, false
}

// implements reports whether iface is an interface of the module with a
// method name, all of whose methods t declares (by name: the syntax does
// not give the signatures' types).
func (x *Index) implements(t, iface goType, name string) bool {
	_, types := x.pkgDecls(iface.pkg, iface.name)
	if _, ok := types[iface.name+"."+ifaceMark]; !ok {
		return false
	}
	if _, ok := types[iface.name+"."+name]; !ok {
		return false
	}
	for k := range types {
		if m, ok := strings.CutPrefix(k, iface.name+"."); ok && m != ifaceMark && !x.declares(t, m) {
			return false
		}
	}
	return true
}

// declares reports whether type t has a field or method of that name of
// its own.
func (x *Index) declares(t goType, name string) bool {
	_, types := x.pkgDecls(t.pkg, name)
	_, ok := types[t.name+"."+name]
	return ok
}

// embedded are the types a struct type embeds.
func (x *Index) embedded(t goType) []goType {
	_, types := x.pkgDecls(t.pkg, t.name)
	var out []goType
	for k, r := range types {
		if r != nil && len(r.steps) == 0 && r.coll == 0 && r.kind == 'T' && k == t.name+"."+r.name {
			out = append(out, goType{strings.TrimSuffix(r.pkg, "_test"), r.name})
		}
	}
	slices.SortFunc(out, func(a, b goType) int { return strings.Compare(a.pkg+"."+a.name, b.pkg+"."+b.name) })
	return out
}

// embeds reports whether struct type t embeds want, at any depth, so that
// want's methods and fields are promoted to t.
func (x *Index) embeds(t, want goType, depth int) bool {
	if depth > 4 {
		return false
	}
	for _, e := range x.embedded(t) {
		if e == want || x.embeds(e, want, depth+1) {
			return true
		}
	}
	return false
}

// pkgDecls returns whether a package declares name as a type, and the
// declared types of the package's files that mention name.
func (x *Index) pkgDecls(pkg, name string) (bool, map[string]*tref) {
	key := strings.TrimSuffix(pkg, "_test") + "\x00" + name
	x.mu.Lock()
	d, ok := x.decls[key]
	x.mu.Unlock()
	if !ok {
		d.named, d.types = x.readDecls(pkg, name)
		x.mu.Lock()
		x.decls[key] = d
		x.mu.Unlock()
	}
	return d.named, d.types
}

func (x *Index) readDecls(pkg, name string) (named bool, types map[string]*tref) {
	dir, ok := x.dirOfPkg(strings.TrimSuffix(pkg, "_test"))
	if !ok {
		return false, nil
	}
	types = map[string]*tref{}
	word := []byte(name)
	lo := 0
	if dir != "" {
		lo, _ = slices.BinarySearchFunc(x.files, dir+"/", func(f File, d string) int {
			return strings.Compare(f.Path, d)
		})
	}
	for i := lo; i < len(x.files); i++ {
		p := x.files[i].Path
		if dir != "" && !strings.HasPrefix(p, dir+"/") {
			break
		}
		if dirOf(p) != dir || !isGo(p) || !hasWord(x.files[i].Data, word) {
			continue
		}
		g := x.goFileAt(i)
		if strings.TrimSuffix(g.pkg, "_test") != strings.TrimSuffix(pkg, "_test") {
			continue
		}
		named = named || g.named[name]
		for k, v := range g.types {
			types[k] = v
		}
	}
	return named, types
}

// dirOfPkg is the directory of the module package with an import path.
func (x *Index) dirOfPkg(pkg string) (string, bool) {
	for _, m := range x.mods {
		if pkg == m.path {
			return m.dir, true
		}
		if rest, ok := strings.CutPrefix(pkg, m.path+"/"); ok {
			return path.Join(m.dir, rest), true
		}
	}
	if len(x.mods) == 0 {
		return pkg, true
	}
	return "", false
}

// goMayDefine reports whether Go source may define name: some line holds
// it where a declaration puts a name, after nothing but indentation (a
// field, a method of an interface, a name in a var, const or type block),
// after func, type, var or const, after a receiver's ")", or in a list of
// names ("a, name int"). A file where it does not is not parsed to look
// for definitions.
func goMayDefine(data []byte, name string) bool {
	word := []byte(name)
	for off := 0; ; {
		i := bytes.Index(data[off:], word)
		if i < 0 {
			return false
		}
		i += off
		end := i + len(word)
		off = i + 1
		if (i > 0 && identByte(data[i-1])) || (end < len(data) && identByte(data[end])) {
			continue
		}
		start := bytes.LastIndexByte(data[:i], '\n') + 1
		if declPrefix(bytes.TrimSpace(data[start:i])) {
			return true
		}
	}
}

// declPrefix reports whether what precedes a name on its line can lead a
// declaration of it.
func declPrefix(p []byte) bool {
	if len(p) == 0 || p[len(p)-1] == ')' {
		return true
	}
	for _, kw := range []string{"func", "type", "var", "const"} {
		if string(p) == kw || bytes.HasSuffix(p, []byte(" "+kw)) || bytes.HasSuffix(p, []byte("("+kw)) {
			return true
		}
	}
	if p[len(p)-1] != ',' {
		return false
	}
	// A list of names: identifiers and commas only, after a keyword or
	// nothing.
	for _, f := range bytes.FieldsFunc(p, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		switch string(f) {
		case "var", "const", "func":
			continue
		}
		for _, c := range f {
			if !identByte(c) {
				return false
			}
		}
	}
	return true
}
