package symbols

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
)

// goFile is what one Go file says about its names: what it defines,
// every identifier with what the syntax tells of it, and the types its
// declarations give, for the operands of selectors.
type goFile struct {
	// pkg is the package's import path, with "_test" added for an
	// external test package.
	pkg  string
	defs []Def
	occ  map[string][]goOcc
	// types are the types of the file's declarations, by "T.field",
	// "T.method" (its first result), "func" (its first result) and "var".
	types map[string]*tref
	// named are the type names the file declares.
	named map[string]bool
	// texts are the file's comments and string literals, searched for a
	// name when a question asks for mentions.
	texts []goText
	// imports are the import paths of the file.
	imports map[string]bool
}

// goText is one comment or string literal.
type goText struct {
	line int
	fn   string
	text string
}

// goOcc is one occurrence of an identifier in a Go file.
type goOcc struct {
	line, col int
	fn        string
	role      Role
	// member: the name is selected from a value or type (x.Name), a key
	// of a struct literal, or declared as a field or method; recv is what
	// the syntax says of the operand's type (nil: nothing).
	member bool
	recv   *tref
	// qual is the import path of the package a qualified identifier
	// (pkg.Name) names.
	qual string
	// local: the name is a function's own (a variable, a parameter);
	// localLine is the line it is declared on.
	local     bool
	localLine int
}

// tref is a type as the syntax of one file gives it, resolved against
// the module when a question needs it (Index.resolve): a named type, or
// the type of a package-level name (a variable, or a function's first
// result), then the fields or methods selected from it in turn.
type tref struct {
	kind  byte // 'T' a named type, 'N' a package-level variable or function (the result when called)
	pkg   string
	name  string
	steps []string
	// coll counts the slices, arrays, maps or channels around a named
	// type ([]*T is T in one): indexing or ranging takes one off, and a
	// collection has no members.
	coll int
}

func (t *tref) with(step string) *tref {
	if t == nil || (t.coll > 0 && step != elemStep) {
		return nil // a collection has no members
	}
	return &tref{kind: t.kind, pkg: t.pkg, name: t.name, steps: append(append([]string(nil), t.steps...), step), coll: t.coll}
}

// elemStep selects the element of a collection the steps before it
// gave.
const elemStep = "[]"

// elem is the element type of a collection type: one collection less,
// or, when the collection comes from the steps, a step more.
func (t *tref) elem() *tref {
	if t == nil {
		return nil
	}
	if t.coll == 0 {
		if len(t.steps) == 0 && t.kind == 'T' {
			return nil // a named type is no collection (a generic's instance)
		}
		return t.with(elemStep)
	}
	e := *t
	e.coll--
	return &e
}

// collOf is a collection of t.
func collOf(t *tref) *tref {
	if t == nil {
		return nil
	}
	c := *t
	c.coll++
	return &c
}

// goType is a named type of the module.
type goType struct{ pkg, name string }

// predeclared reports whether a name is a predeclared type, which has
// no methods or fields of the module. A switch, not a map: nothing of the
// index is built before a question needs it.
func predeclared(name string) bool {
	switch name {
	case "bool", "byte", "complex64", "complex128", "error", "float32", "float64",
		"int", "int8", "int16", "int32", "int64", "rune", "string",
		"uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "any", "comparable":
		return true
	}
	return false
}

// goAnalyzer walks one file.
type goAnalyzer struct {
	fset    *token.FileSet
	g       *goFile
	path    string
	imports map[string]string // local name -> import path
	top     map[any]bool      // the package-level declarations
	stack   []ast.Node
	fn      string
}

// analyzeGo parses a Go file and gathers its names. A file with syntax
// errors gives what the parser recovered.
func (x *Index) analyzeGo(f File) *goFile {
	g := &goFile{occ: map[string][]goOcc{}, types: map[string]*tref{}, named: map[string]bool{}, imports: map[string]bool{}}
	fset := token.NewFileSet()
	af, _ := parser.ParseFile(fset, f.Path, f.Data, parser.ParseComments)
	if af == nil {
		return g
	}
	g.pkg = x.importPath(dirOf(f.Path))
	if strings.HasSuffix(af.Name.Name, "_test") {
		g.pkg += "_test"
	}
	a := &goAnalyzer{fset: fset, g: g, path: f.Path, imports: map[string]string{}, top: map[any]bool{}}
	for _, imp := range af.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		name := p[strings.LastIndexByte(p, '/')+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		} else if strings.HasPrefix(name, "go-") || strings.HasSuffix(name, ".go") || isMajor(name) {
			// gopkg.in/yaml.v3, github.com/x/go-thing, .../v2: the
			// package name is not the last element; guess the usual one.
			name = guessPkgName(p)
		}
		a.imports[name] = p
		g.imports[p] = true
	}
	for _, d := range af.Decls {
		a.declare(d)
	}
	ast.Inspect(af, a.visit)
	for _, cg := range af.Comments {
		for _, c := range cg.List {
			a.words(c.Text, c.Pos())
		}
	}
	return g
}

func isMajor(s string) bool {
	if len(s) < 2 || s[0] != 'v' {
		return false
	}
	_, err := strconv.Atoi(s[1:])
	return err == nil
}

// guessPkgName is the package name an import path without an explicit
// name usually has.
func guessPkgName(p string) string {
	parts := strings.Split(p, "/")
	last := parts[len(parts)-1]
	if isMajor(last) && len(parts) > 1 {
		last = parts[len(parts)-2]
	}
	if i := strings.IndexByte(last, '.'); i > 0 {
		last = last[:i]
	}
	last = strings.TrimPrefix(last, "go-")
	return strings.ReplaceAll(last, "-", "_")
}

func (a *goAnalyzer) lines(from, to token.Pos) (int, int) {
	return a.fset.Position(from).Line, a.fset.Position(to).Line
}

func (a *goAnalyzer) def(name *ast.Ident, kind, container string, from, to token.Pos, doc *ast.CommentGroup) {
	if name == nil || name.Name == "_" {
		return
	}
	l, e := a.lines(from, to)
	d := Def{Name: name.Name, Kind: kind, Path: a.path, Line: l, End: e, Container: container, pkg: a.g.pkg, col: a.fset.Position(name.Pos()).Column}
	if doc != nil {
		d.Doc = a.fset.Position(doc.Pos()).Line
	}
	a.g.defs = append(a.g.defs, d)
}

// declare records a package-level declaration: its definitions and the
// types it gives.
func (a *goAnalyzer) declare(d ast.Decl) {
	switch d := d.(type) {
	case *ast.FuncDecl:
		a.top[d] = true
		from := d.Pos()
		var res *tref
		if r := d.Type.Results; r != nil && len(r.List) > 0 {
			res = a.typeExpr(r.List[0].Type)
		}
		if recv := recvType(d); recv != "" {
			a.def(d.Name, Method, recv, from, d.End(), d.Doc)
			a.g.types[recv+"."+d.Name.Name] = res
			return
		}
		a.def(d.Name, Func, "", from, d.End(), d.Doc)
		a.g.types[d.Name.Name] = res
	case *ast.GenDecl:
		for _, s := range d.Specs {
			a.top[s] = true
			from, to := s.Pos(), s.End()
			doc := specDoc(s)
			if len(d.Specs) == 1 && d.Lparen == token.NoPos {
				from, doc = d.Pos(), d.Doc
			}
			switch s := s.(type) {
			case *ast.TypeSpec:
				a.def(s.Name, Type, "", from, to, doc)
				a.g.named[s.Name.Name] = true
				a.members(s)
			case *ast.ValueSpec:
				kind := Var
				if d.Tok == token.CONST {
					kind = Const
				}
				for i, n := range s.Names {
					a.def(n, kind, "", from, to, doc)
					if s.Type != nil {
						a.g.types[n.Name] = a.typeExpr(s.Type)
					} else if i < len(s.Values) && len(s.Names) == len(s.Values) {
						a.g.types[n.Name] = a.typeOf(s.Values[i], 0)
					}
				}
			}
		}
	}
}

// ifaceMark is the key, after "I.", that marks I as an interface in a
// file's types.
const ifaceMark = "(interface)"

// specDoc is the doc comment of a spec in a group.
func specDoc(s ast.Spec) *ast.CommentGroup {
	switch s := s.(type) {
	case *ast.TypeSpec:
		return s.Doc
	case *ast.ValueSpec:
		return s.Doc
	}
	return nil
}

// members records the fields of a struct type and the methods of an
// interface type.
func (a *goAnalyzer) members(s *ast.TypeSpec) {
	var list *ast.FieldList
	kind := Field
	switch t := s.Type.(type) {
	case *ast.StructType:
		list = t.Fields
	case *ast.InterfaceType:
		list, kind = t.Methods, Method
		a.g.types[s.Name.Name+"."+ifaceMark] = nil
	}
	if list == nil {
		return
	}
	for _, f := range list.List {
		typ := a.typeExpr(f.Type)
		if kind == Method {
			if ft, ok := f.Type.(*ast.FuncType); ok && ft.Results != nil && len(ft.Results.List) > 0 {
				typ = a.typeExpr(ft.Results.List[0].Type)
			} else {
				typ = nil
			}
		}
		for _, n := range f.Names {
			a.def(n, kind, s.Name.Name, f.Pos(), f.End(), f.Doc)
			a.g.types[s.Name.Name+"."+n.Name] = typ
		}
		if len(f.Names) == 0 && typ != nil && kind == Field {
			// An embedded field is named by its type.
			a.g.types[s.Name.Name+"."+typ.name] = typ
		}
	}
}

// recvType is the name of a method's receiver type, "" for a function.
func recvType(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return ""
	}
	t := d.Recv.List[0].Type
	for {
		switch e := t.(type) {
		case *ast.StarExpr:
			t = e.X
		case *ast.ParenExpr:
			t = e.X
		case *ast.IndexExpr:
			t = e.X
		case *ast.IndexListExpr:
			t = e.X
		case *ast.Ident:
			return e.Name
		default:
			return ""
		}
	}
}

// typeExpr is the named type a type expression denotes, through pointers
// and instantiations; nil for other types.
func (a *goAnalyzer) typeExpr(e ast.Expr) *tref {
	switch e := e.(type) {
	case *ast.Ident:
		if predeclared(e.Name) {
			return nil
		}
		return &tref{kind: 'T', pkg: a.g.pkg, name: e.Name}
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok && x.Obj == nil {
			if p, ok := a.imports[x.Name]; ok {
				return &tref{kind: 'T', pkg: p, name: e.Sel.Name}
			}
		}
	case *ast.StarExpr:
		return a.typeExpr(e.X)
	case *ast.ParenExpr:
		return a.typeExpr(e.X)
	case *ast.IndexExpr:
		return a.typeExpr(e.X)
	case *ast.IndexListExpr:
		return a.typeExpr(e.X)
	case *ast.ArrayType:
		return collOf(a.typeExpr(e.Elt))
	case *ast.MapType:
		return collOf(a.typeExpr(e.Value))
	case *ast.ChanType:
		return collOf(a.typeExpr(e.Value))
	case *ast.Ellipsis:
		return collOf(a.typeExpr(e.Elt))
	}
	return nil
}

// typeOf is what the syntax says of an expression's type.
func (a *goAnalyzer) typeOf(e ast.Expr, depth int) *tref {
	if depth > 8 {
		return nil
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return a.typeOf(e.X, depth+1)
	case *ast.StarExpr:
		return a.typeOf(e.X, depth+1)
	case *ast.UnaryExpr:
		if e.Op == token.AND {
			return a.typeOf(e.X, depth+1)
		}
	case *ast.CompositeLit:
		return a.typeExpr(e.Type)
	case *ast.Ident:
		return a.identType(e, depth)
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok && x.Obj == nil {
			if p, ok := a.imports[x.Name]; ok {
				return &tref{kind: 'N', pkg: p, name: e.Sel.Name}
			}
		}
		return a.typeOf(e.X, depth+1).with(e.Sel.Name)
	case *ast.CallExpr:
		return a.callType(e, depth)
	case *ast.IndexExpr:
		return a.typeOf(e.X, depth+1).elem()
	}
	return nil
}

func (a *goAnalyzer) identType(e *ast.Ident, depth int) *tref {
	if e.Obj == nil {
		if predeclared(e.Name) || e.Name == "nil" || e.Name == "true" || e.Name == "false" {
			return nil
		}
		return &tref{kind: 'N', pkg: a.g.pkg, name: e.Name}
	}
	if e.Obj.Kind == ast.Typ {
		return &tref{kind: 'T', pkg: a.g.pkg, name: e.Name}
	}
	if a.top[e.Obj.Decl] {
		return &tref{kind: 'N', pkg: a.g.pkg, name: e.Name}
	}
	switch d := e.Obj.Decl.(type) {
	case *ast.Field:
		return a.typeExpr(d.Type)
	case *ast.ValueSpec:
		if d.Type != nil {
			return a.typeExpr(d.Type)
		}
		for i, n := range d.Names {
			if n.Name == e.Name && i < len(d.Values) && len(d.Values) == len(d.Names) {
				return a.typeOf(d.Values[i], depth+1)
			}
		}
	case *ast.AssignStmt:
		for i, l := range d.Lhs {
			if id, ok := l.(*ast.Ident); ok && id.Name == e.Name {
				if len(d.Rhs) == len(d.Lhs) {
					return a.typeOf(d.Rhs[i], depth+1)
				}
				if r, ok := d.Rhs[0].(*ast.UnaryExpr); ok && r.Op == token.RANGE {
					if i == 1 {
						return a.typeOf(r.X, depth+1).elem() // for _, v := range xs
					}
					return nil
				}
				if i == 0 && len(d.Rhs) == 1 {
					return a.typeOf(d.Rhs[0], depth+1)
				}
			}
		}
	}
	return nil
}

// localValue is the expression a function's own variable was declared
// with (x := v, var x = v), or nil.
func (a *goAnalyzer) localValue(id *ast.Ident) ast.Expr {
	switch d := id.Obj.Decl.(type) {
	case *ast.AssignStmt:
		for i, l := range d.Lhs {
			if l, ok := l.(*ast.Ident); ok && l.Name == id.Name && len(d.Rhs) == len(d.Lhs) {
				return d.Rhs[i]
			}
		}
	case *ast.ValueSpec:
		for i, n := range d.Names {
			if n.Name == id.Name && len(d.Values) == len(d.Names) {
				return d.Values[i]
			}
		}
	}
	return nil
}

func (a *goAnalyzer) callType(e *ast.CallExpr, depth int) *tref {
	switch f := e.Fun.(type) {
	case *ast.Ident:
		if f.Name == "new" && f.Obj == nil && len(e.Args) == 1 {
			return a.typeExpr(e.Args[0])
		}
		if f.Obj != nil && f.Obj.Kind == ast.Typ {
			return &tref{kind: 'T', pkg: a.g.pkg, name: f.Name}
		}
		if f.Obj == nil || a.top[f.Obj.Decl] {
			return &tref{kind: 'N', pkg: a.g.pkg, name: f.Name}
		}
		// A function's own function value: the result of its literal.
		if lit, ok := a.localValue(f).(*ast.FuncLit); ok && lit.Type.Results != nil && len(lit.Type.Results.List) > 0 {
			return a.typeExpr(lit.Type.Results.List[0].Type)
		}
	case *ast.SelectorExpr, *ast.ParenExpr, *ast.IndexExpr:
		return a.typeOf(e.Fun, depth+1)
	}
	return nil
}

// visit classifies each identifier and string literal of the file.
func (a *goAnalyzer) visit(n ast.Node) bool {
	if n == nil {
		a.stack = a.stack[:len(a.stack)-1]
		if len(a.stack) == 1 {
			a.fn = ""
		}
		return true
	}
	switch n := n.(type) {
	case *ast.CommentGroup, *ast.Comment:
		return false // read from the file's list, once
	case *ast.Ident:
		a.ident(n)
	case *ast.BasicLit:
		if n.Kind == token.STRING {
			a.words(n.Value, n.Pos())
		}
	case *ast.FuncDecl:
		a.fn = n.Name.Name
		if r := recvType(n); r != "" {
			a.fn = r + "." + n.Name.Name
		}
	}
	a.stack = append(a.stack, n)
	return true
}

func (a *goAnalyzer) add(id *ast.Ident, o goOcc) {
	p := a.fset.Position(id.Pos())
	o.line, o.col, o.fn = p.Line, p.Column, a.fn
	a.g.occ[id.Name] = append(a.g.occ[id.Name], o)
}

func (a *goAnalyzer) ident(id *ast.Ident) {
	if id.Name == "_" || len(a.stack) == 0 {
		return
	}
	parent := a.stack[len(a.stack)-1]
	switch p := parent.(type) {
	case *ast.File, *ast.ImportSpec, *ast.LabeledStmt, *ast.BranchStmt:
		return
	case *ast.SelectorExpr:
		if p.Sel == id {
			a.selected(p, id)
			return
		}
		if a.importName(id) {
			return
		}
	case *ast.FuncDecl:
		if p.Name == id {
			a.add(id, goOcc{role: Definition, member: p.Recv != nil})
			occ := a.g.occ[id.Name]
			occ[len(occ)-1].fn = "" // the function's name is outside its body
			return
		}
	case *ast.TypeSpec:
		if p.Name == id {
			a.add(id, goOcc{role: Definition})
			return
		}
	case *ast.ValueSpec:
		if contains(p.Names, id) {
			if a.top[p] {
				a.add(id, goOcc{role: Definition})
			} else {
				a.add(id, goOcc{role: Definition, local: true, localLine: a.fset.Position(id.Pos()).Line})
			}
			return
		}
	case *ast.Field:
		if contains(p.Names, id) {
			a.fieldName(id)
			return
		}
	case *ast.KeyValueExpr:
		if p.Key == id && len(a.stack) > 1 {
			if lit, ok := a.stack[len(a.stack)-2].(*ast.CompositeLit); ok && keyIsField(lit) {
				a.add(id, goOcc{member: true, recv: a.typeExpr(lit.Type)})
				return
			}
		}
	}
	a.plain(id)
}

// keyIsField reports whether the keys of a composite literal are field
// names: its type is not a map, slice or array. An elided type (an
// element of an outer literal) is taken as a struct when its keys are.
func keyIsField(lit *ast.CompositeLit) bool {
	switch lit.Type.(type) {
	case *ast.MapType, *ast.ArrayType:
		return false
	}
	return true
}

func contains(ids []*ast.Ident, id *ast.Ident) bool {
	for _, n := range ids {
		if n == id {
			return true
		}
	}
	return false
}

// importName reports whether id is the package name of a qualified
// identifier.
func (a *goAnalyzer) importName(id *ast.Ident) bool {
	_, ok := a.imports[id.Name]
	return ok && id.Obj == nil
}

// selected records the name selected in x.Name.
func (a *goAnalyzer) selected(p *ast.SelectorExpr, id *ast.Ident) {
	if x, ok := p.X.(*ast.Ident); ok && a.importName(x) {
		a.add(id, goOcc{qual: a.imports[x.Name]})
		return
	}
	a.add(id, goOcc{member: true, recv: a.typeOf(p.X, 0)})
}

// fieldName records a name declared in a field list: a struct's field or
// an interface's method (definitions), or a parameter (a local).
func (a *goAnalyzer) fieldName(id *ast.Ident) {
	if len(a.stack) > 1 {
		if _, ok := a.stack[len(a.stack)-2].(*ast.FieldList); ok && len(a.stack) > 2 {
			switch a.stack[len(a.stack)-3].(type) {
			case *ast.StructType, *ast.InterfaceType:
				a.add(id, goOcc{role: Definition, member: true})
				return
			}
		}
	}
	a.add(id, goOcc{role: Definition, local: true, localLine: a.fset.Position(id.Pos()).Line})
}

// plain records an identifier that stands alone: a package-level name, or
// a function's own.
func (a *goAnalyzer) plain(id *ast.Ident) {
	if id.Obj != nil && !a.top[id.Obj.Decl] {
		if _, fn := id.Obj.Decl.(*ast.FuncDecl); !fn {
			a.add(id, goOcc{local: true, localLine: a.fset.Position(id.Obj.Pos()).Line})
			return
		}
	}
	a.add(id, goOcc{})
}

// words keeps a comment or string literal, for mentions of names.
func (a *goAnalyzer) words(text string, pos token.Pos) {
	a.g.texts = append(a.g.texts, goText{line: a.fset.Position(pos).Line, fn: a.fn, text: text})
}
