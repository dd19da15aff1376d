package symbols

import (
	"slices"
)

// impl is the kind of a Rust impl block while definitions are found: the
// container of the functions in it, never a definition itself.
const impl = "impl"

// classLike reports whether definitions of a kind hold methods.
func classLike(kind string) bool {
	switch kind {
	case Class, Struct, Interface, Enum, Module, impl:
		return true
	}
	return false
}

// brace is an open "{" while definitions are found.
type brace struct {
	def  int  // the definition whose body it opens, or -1
	kind byte // 'c' a class-like body, 'f' a function's, 'o' any other
}

// defFinder finds the definitions of a file's tokens.
type defFinder struct {
	fam  *family
	path string
	toks []tok
	defs []Def
	// stack is the open braces; pending is the definition the next "{"
	// opens the body of (-1: none).
	stack   []brace
	pending int
}

func findDefs(fam *family, p string, toks []tok, lines int) []Def {
	f := &defFinder{fam: fam, path: p, toks: toks, pending: -1}
	for i := range toks {
		f.step(i)
	}
	if fam.indent || fam.ruby {
		f.indentEnds()
	}
	for k := range f.defs {
		if f.defs[k].End < f.defs[k].Line {
			f.defs[k].End = f.defs[k].Line
		}
	}
	f.containers()
	return slices.DeleteFunc(f.defs, func(d Def) bool { return d.Kind == impl })
}

func (f *defFinder) tok(i int) tok {
	if i < 0 || i >= len(f.toks) {
		return tok{}
	}
	return f.toks[i]
}

func (f *defFinder) step(i int) {
	t := f.toks[i]
	if !t.ident {
		f.punct(t)
		return
	}
	if kind, ok := f.fam.kw[t.text]; ok {
		f.keyword(i, kind)
		return
	}
	if t.text == "impl" && f.fam.lifetimes {
		f.implBlock(i)
		return
	}
	if f.fam.shapes && f.tok(i+1).text == "(" {
		f.shape(i)
		return
	}
	if f.fam.topVar && t.first && t.indent == 0 && f.tok(i+1).text == "=" && f.tok(i+2).text != "=" {
		kind := Var
		if f.fam.ruby {
			if t.text[0] < 'A' || t.text[0] > 'Z' {
				return
			}
			kind = Const
		}
		f.add(t, kind, "")
	}
}

func (f *defFinder) punct(t tok) {
	switch t.text {
	case "{":
		b := brace{def: -1, kind: 'o'}
		if f.inFunc() {
			b.kind = 'f'
		}
		if f.pending >= 0 {
			d := f.defs[f.pending]
			switch {
			case classLike(d.Kind):
				b = brace{def: f.pending, kind: 'c'}
			case d.Kind == Func || d.Kind == Method:
				b = brace{def: f.pending, kind: 'f'}
			case d.Line == t.line:
				b.def = f.pending
			}
			f.pending = -1
		}
		f.stack = append(f.stack, b)
	case "}":
		if n := len(f.stack); n > 0 {
			if b := f.stack[n-1]; b.def >= 0 {
				f.defs[b.def].End = t.line
			}
			f.stack = f.stack[:n-1]
		}
	case ";":
		if f.pending >= 0 {
			f.defs[f.pending].End = t.line
			f.pending = -1
		}
	}
}

// inModule reports whether the innermost brace is a namespace's body,
// whose functions are no methods.
func (f *defFinder) inModule() bool {
	n := len(f.stack)
	return n > 0 && f.stack[n-1].def >= 0 && f.defs[f.stack[n-1].def].Kind == Module
}

func (f *defFinder) inFunc() bool {
	for _, b := range f.stack {
		if b.kind == 'f' {
			return true
		}
	}
	return false
}

// add records a definition named by t; for a kind with a body (in a
// language of braces), the next "{" opens it.
func (f *defFinder) add(t tok, kind, container string) {
	f.defs = append(f.defs, Def{Name: t.text, Kind: kind, Path: f.path, Line: t.line, End: t.line, Container: container, col: t.col})
	if f.fam.slash {
		f.pending = len(f.defs) - 1
	}
}

// keyword handles a keyword that defines the name after it.
func (f *defFinder) keyword(i int, kind string) {
	j, ok := f.nameAfter(i)
	if !ok {
		return
	}
	name := f.tok(j)
	if !name.ident {
		return
	}
	if _, kw := f.fam.kw[name.text]; kw && f.toks[i].text != "define" {
		return // const fn, and the like: the second keyword defines
	}
	if f.fam.braced && classLike(kind) && !f.bodyFollows(j+1) {
		return // struct s x; uses the struct, a declaration names it
	}
	f.add(name, kind, "")
	if (kind == Macro || kind == Var || kind == Const || kind == Type) && (f.fam.lifetimes || f.toks[i].text == "define") {
		f.pending = -1
	}
}

// nameAfter returns where the name a keyword at i defines is, past what
// may come between (def self., function*, macro_rules!, static mut, enum
// class), or false when the keyword defines nothing here.
func (f *defFinder) nameAfter(i int) (int, bool) {
	j := i + 1
	switch f.toks[i].text {
	case "def":
		if f.fam.ruby && f.tok(j+1).text == "." {
			j += 2 // def self.name
		}
	case "function":
		if f.tok(j).text == "*" {
			j++
		}
	case "macro_rules":
		if f.tok(j).text != "!" {
			return 0, false
		}
		j++
	case "define":
		return j, f.tok(i-1).text == "#"
	case "type":
		if n := f.tok(j + 1).text; f.fam.backtick && n != "=" && n != "<" {
			return 0, false // "type" as a name, not a TypeScript alias
		}
	case "const", "let", "var":
		if len(f.stack) > 0 && f.fam.backtick {
			return 0, false // a function's own, not the module's
		}
	case "static":
		if f.tok(j).text == "mut" {
			j++
		}
	case "enum":
		if t := f.tok(j).text; t == "class" || t == "struct" {
			j++
		}
	}
	return j, true
}

// bodyFollows reports whether a C/C++ type name at j is followed by its
// body: "{", or a base list or "final" before one.
func (f *defFinder) bodyFollows(j int) bool {
	for k := j; k < len(f.toks) && k < j+64; k++ {
		switch f.toks[k].text {
		case "{":
			return true
		case ";", "(", ")", "=", "}":
			return false
		}
	}
	return false
}

// implBlock records a Rust impl block: "impl<T> Trait for Type<T> {"
// holds Type's methods.
func (f *defFinder) implBlock(i int) {
	depth, target := 0, -1
	for k := i + 1; k < len(f.toks) && k < i+64; k++ {
		t := f.toks[k]
		switch {
		case t.text == "<":
			depth++
		case t.text == ">":
			depth--
		case t.text == "{":
			if target >= 0 {
				f.add(f.toks[target], impl, "")
			}
			return
		case t.text == ";":
			return
		case t.text == "for" && depth == 0:
			target = -1
		case t.ident && depth == 0 && t.text != "for" && t.text != "dyn" && t.text != "where" && f.tok(k-1).text != "::" && target < 0:
			target = k
		case t.ident && depth == 0 && f.tok(k-1).text == "::":
			target = k
		}
	}
}

// shape handles name( in a language whose functions have no keyword: a
// definition when a body follows the parameters, outside any function.
func (f *defFinder) shape(i int) {
	t := f.toks[i]
	if control(t.text) || f.inFunc() {
		return
	}
	top := byte(0)
	if n := len(f.stack); n > 0 {
		top = f.stack[n-1].kind
		if top == 'o' {
			return
		}
	}
	if f.fam.backtick && top != 'c' {
		return // JavaScript: only methods of classes have this shape
	}
	prev := f.tok(i - 1)
	container := ""
	switch {
	case i == 0, prev.text == "*", prev.text == "&", prev.text == ">", prev.text == "}", prev.text == ";", prev.text == "{", prev.text == "]":
	case prev.text == "::":
		if c := f.tok(i - 2); c.ident {
			container = c.text
		}
	case prev.text == "~" && f.tok(i-2).text == "::":
		container = f.tok(i - 3).text
	case prev.ident && !control(prev.text):
	default:
		return
	}
	if !f.bodyAfterParams(i + 1) {
		return
	}
	kind := Func
	if container != "" || (top == 'c' && !f.inModule()) {
		kind = Method
	}
	f.add(t, kind, container)
	f.pending = len(f.defs) - 1
}

// bodyAfterParams reports whether the parameter list opening at j is
// followed by a body: qualifiers, a trailing return type, a throws list
// or a constructor's initialisers, then "{".
func (f *defFinder) bodyAfterParams(j int) bool {
	depth := 0
	k := j
	for ; k < len(f.toks); k++ {
		switch f.toks[k].text {
		case "(":
			depth++
		case ")":
			depth--
		case "{", "}", ";":
			if depth > 0 {
				return false
			}
		}
		if depth == 0 {
			break
		}
	}
	paren := 0
	for k++; k < len(f.toks) && k < j+256; k++ {
		t := f.toks[k]
		switch {
		case t.text == "{":
			return paren == 0
		case t.text == "(":
			paren++
		case t.text == ")":
			paren--
		case paren > 0, t.ident:
		case t.text == "::", t.text == ",", t.text == ".", t.text == "&", t.text == "*", t.text == "->", t.text == "<", t.text == ">", t.text == "[", t.text == "]", t.text == ":":
		case f.fam.backtick && (t.text == "|" || t.text == "?"): // a TypeScript return type
		default:
			return false
		}
	}
	return false
}

// indentEnds ends Python's and Ruby's definitions where their
// indentation returns (Ruby: at the "end" there).
func (f *defFinder) indentEnds() {
	var lines []int // the lines holding code, in order
	indent := map[int]int{}
	first := map[int]string{}
	last := 0
	for _, t := range f.toks {
		if t.first {
			lines = append(lines, t.line)
			indent[t.line] = t.indent
			first[t.line] = t.text
		}
		last = t.line
	}
	for k := range f.defs {
		d := &f.defs[k]
		at, ok := slices.BinarySearch(lines, d.Line)
		if !ok {
			continue
		}
		own := indent[d.Line]
		d.End = last
		for n := at + 1; n < len(lines); n++ {
			l := lines[n]
			if indent[l] > own {
				continue
			}
			if f.fam.ruby && first[l] == "end" && indent[l] == own {
				d.End = l
			} else {
				d.End = lines[n-1]
			}
			break
		}
	}
}

// containers makes a function defined in a class-like body a method of
// it.
func (f *defFinder) containers() {
	for k := range f.defs {
		d := &f.defs[k]
		if d.Container != "" || (d.Kind != Func && d.Kind != Method) {
			continue
		}
		inner := -1
		for c := range f.defs {
			o := f.defs[c]
			if c == k || o.Line > d.Line || o.End < d.Line || (o.Line == d.Line && o.col >= d.col) {
				continue
			}
			if inner < 0 || o.Line >= f.defs[inner].Line {
				inner = c
			}
		}
		switch {
		case inner >= 0 && classLike(f.defs[inner].Kind) && (f.defs[inner].Kind != Module || f.fam.ruby):
			d.Kind, d.Container = Method, f.defs[inner].Name
		case d.Kind == Method && f.fam.ruby:
			d.Kind = Func
		}
	}
}
