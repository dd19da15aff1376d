package symbols

import (
	"bytes"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/mod/modfile"
)

// File is one file of the revision: a source file, or a go.mod, which
// names the import path of the Go packages below it.
type File struct {
	Path string
	Data []byte
}

// Kinds of definitions.
const (
	Func      = "func"
	Method    = "method"
	Type      = "type"
	Var       = "var"
	Const     = "const"
	Field     = "field"
	Class     = "class"
	Interface = "interface"
	Struct    = "struct"
	Enum      = "enum"
	Module    = "module"
	Macro     = "macro"
	Local     = "local" // a variable or parameter of a function
)

// Def is one definition of a name.
type Def struct {
	Name string
	Kind string
	Path string
	// Line and End are the definition's first and last lines (from 1).
	Line, End int
	// Doc is the first line of the definition's doc comment (Go), 0 for
	// none.
	Doc int
	// Container is the type a method or field belongs to (a Go receiver,
	// a class), "" for top-level names.
	Container string
	// pkg is a Go definition's package (its import path, with "_test"
	// for an external test package); "" elsewhere.
	pkg string
	// col is the definition's name's byte column (from 1), for telling
	// it from its uses on the same line.
	col int
}

// Title names a definition for people and the model: "method (*Set).Call"
// reads as "method Set.Call".
func (d Def) Title() string {
	if d.Container != "" {
		return d.Kind + " " + d.Container + "." + d.Name
	}
	return d.Kind + " " + d.Name
}

// Role says what an occurrence of a name is.
type Role int

const (
	// Use is the name used as the symbol.
	Use Role = iota
	// Definition is the name where it is defined.
	Definition
	// Comment is the word in a comment or a string (Go: a comment, a
	// string literal; elsewhere also a docstring).
	Comment
	// Maybe is a Go use of a method or field name whose operand's type
	// the syntax does not tell, where another type has a member of that
	// name too.
	Maybe
)

// Ref is one occurrence of a name.
type Ref struct {
	Path string
	Line int
	// Func is the function or method the occurrence is in ("" outside any).
	Func string
	Role Role
}

// Index answers questions about the names of a set of files. It is safe
// for concurrent use; what it learns of a file is kept for the next
// question.
type Index struct {
	files  []File // sorted by path
	byPath map[string]int
	mods   []goMod // deepest first

	mu  sync.Mutex
	goF map[int]*goFile
	lxF map[int]*lexFile
	// cands and decls keep what questions found, for the next ones: the
	// files holding a word, and a package's declarations by a name.
	cands map[string][]int
	decls map[string]pkgDecl
}

// pkgDecl is what pkgDecls found.
type pkgDecl struct {
	named bool
	types map[string]*tref
}

// goMod is a Go module of the files: its directory and path.
type goMod struct{ dir, path string }

// New returns an index of files. It parses nothing yet; go.mod files
// are read for their module paths.
func New(files []File) *Index {
	x := &Index{files: slices.Clone(files), goF: map[int]*goFile{}, lxF: map[int]*lexFile{}, cands: map[string][]int{}, decls: map[string]pkgDecl{}}
	slices.SortFunc(x.files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	x.byPath = make(map[string]int, len(x.files))
	for i, f := range x.files {
		x.byPath[f.Path] = i
		if path.Base(f.Path) == "go.mod" {
			if mp := modfile.ModulePath(f.Data); mp != "" {
				x.mods = append(x.mods, goMod{dir: dirOf(f.Path), path: mp})
			}
		}
	}
	slices.SortStableFunc(x.mods, func(a, b goMod) int { return len(b.dir) - len(a.dir) })
	return x
}

// Source reports whether a path is a file the index reads for symbols.
func Source(p string) bool {
	return strings.HasSuffix(p, ".go") || familyOf(p) != nil || path.Base(p) == "go.mod"
}

// Files is the number of source files the index holds.
func (x *Index) Files() int { return len(x.files) }

// Data returns the content of a file of the index.
func (x *Index) Data(p string) ([]byte, bool) {
	i, ok := x.byPath[p]
	if !ok {
		return nil, false
	}
	return x.files[i].Data, true
}

// dirOf is the directory of a slash path, "" at the top.
func dirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// importPath is the import path of the Go package in dir, from the
// nearest go.mod above it; a directory outside every module is its own
// path.
func (x *Index) importPath(dir string) string {
	for _, m := range x.mods {
		if m.dir == "" {
			if dir == "" {
				return m.path
			}
			return m.path + "/" + dir
		}
		if dir == m.dir {
			return m.path
		}
		if strings.HasPrefix(dir, m.dir+"/") {
			return m.path + dir[len(m.dir):]
		}
	}
	return dir
}

// candidates returns the files (by index) that hold name as a whole word,
// found on every core: only they can define or use it.
func (x *Index) candidates(name string) []int {
	x.mu.Lock()
	c, ok := x.cands[name]
	x.mu.Unlock()
	if ok {
		return c
	}
	c = x.scan(name)
	x.mu.Lock()
	x.cands[name] = c
	x.mu.Unlock()
	return c
}

func (x *Index) scan(name string) []int {
	word := []byte(name)
	hit := make([]bool, len(x.files))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(x.files) {
					return
				}
				hit[i] = hasWord(x.files[i].Data, word)
			}
		})
	}
	wg.Wait()
	var out []int
	for i, h := range hit {
		if h && path.Base(x.files[i].Path) != "go.mod" {
			out = append(out, i)
		}
	}
	return out
}

// hasWord reports whether data holds word with no identifier byte on
// either side.
func hasWord(data, word []byte) bool {
	for off := 0; ; {
		i := bytes.Index(data[off:], word)
		if i < 0 {
			return false
		}
		i += off
		end := i + len(word)
		if (i == 0 || !identByte(data[i-1])) && (end == len(data) || !identByte(data[end])) {
			return true
		}
		off = i + 1
	}
}

// identByte reports whether b may be part of an identifier in any of the
// languages (ASCII letters, digits, '_', '$'; bytes of UTF-8 sequences).
func identByte(b byte) bool {
	return b == '_' || b == '$' || b >= 0x80 || ('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z') || ('0' <= b && b <= '9')
}

// parallel runs fn on each of idx on every core.
func parallel(idx []int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(idx), 1)) {
		wg.Go(func() {
			for {
				k := int(next.Add(1) - 1)
				if k >= len(idx) {
					return
				}
				fn(idx[k])
			}
		})
	}
	wg.Wait()
}

// ValidName reports whether a symbol argument is a name the index can
// look up: an identifier, or Container.Name for a method or field.
func ValidName(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for part := range strings.SplitSeq(s, ".") {
		if part == "" {
			return false
		}
		for i := 0; i < len(part); i++ {
			c := part[i]
			if !identByte(c) && !(i == len(part)-1 && (c == '?' || c == '!')) {
				return false
			}
		}
	}
	return strings.Count(s, ".") <= 1
}

// splitName splits "Container.Name" into its parts.
func splitName(s string) (container, name string) {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return strings.TrimPrefix(s[:i], "*"), s[i+1:]
	}
	return "", s
}

// Group splits definitions into those whose references are the same
// question: a Go definition with those of the same symbol (a function
// defined once per build tag), and the other languages' by language,
// since their uses are matched by name.
func Group(defs []Def) [][]Def {
	var out [][]Def
	at := map[string]int{}
	for _, d := range defs {
		key := "lang " + Language(d.Path)
		if isGo(d.Path) {
			key = d.pkg + " " + d.Container + "." + d.Name
		}
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], d)
	}
	return out
}

// defLine is the line of the definition's name (a definition's range
// may start at its declaration's keyword, lines above).
func (d Def) defLine(x *Index) int {
	if i, ok := x.byPath[d.Path]; ok && isGo(d.Path) {
		for _, o := range x.goFileAt(i).occ[d.Name] {
			if o.role == Definition && o.col == d.col && o.line >= d.Line && o.line <= d.End {
				return o.line
			}
		}
	}
	return d.Line
}
