package tools

import (
	"context"
	"fmt"
	"go/parser"
	"go/token"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/reviewdev/review/internal/lazy"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/toolmem"
	"golang.org/x/mod/modfile"
)

// Limits of get_dependencies. Every manifest, dependency and importer is
// listed: the conversation carries only the preview, manifests with their
// counts first.
const (
	// depsMaxSource skips larger files when looking for importers.
	depsMaxSource = 1 << 20
)

type depsArgs struct {
	Path *string `json:"path"`
}

func (s *Set) depsTool() Tool {
	return s.repoTool(Spec{
		Name:        toolname.GetDependencies,
		Preview:     toolmem.Deps,
		Description: "Dependencies at head. Without a path or for a directory: the manifests found (go.mod, package.json, Cargo.toml...); for a manifest: its dependencies; for a Go, JS/TS or Python file: its imports and the files importing it.",
		Params: []Param{
			String("path", `A manifest, source file or directory. Null for all.`).Example("src/server.ts"),
		},
	}, func(ctx context.Context, args Args) (Result, error) {
		var a depsArgs
		if err := args.Decode(&a); err != nil {
			return Result{}, err
		}
		return s.deps(ctx, a)
	})
}

func (s *Set) deps(ctx context.Context, a depsArgs) (Result, error) {
	p := ""
	if a.Path != nil {
		c, err := s.cleanPath("path", *a.Path, true)
		if err != nil {
			return Result{}, err
		}
		p = s.reveal(ctx, revHead, c)
	}
	t, err := s.tree(ctx, revHead)
	if err != nil {
		return Result{}, err
	}
	if t.isDir(p) {
		return s.manifestsUnder(ctx, t, p)
	}
	e, resolved, err := s.lookup(ctx, t, p, revHead)
	if err != nil {
		return Result{}, err
	}
	if !e.regular() {
		return Result{}, fmt.Errorf("%q is a submodule; its dependencies belong to another repository", p)
	}
	if parse := manifestKind(path.Base(resolved)); parse != nil {
		data, err := s.readEntry(ctx, e)
		if err != nil {
			return Result{}, err
		}
		m := &manifest{path: p}
		var b strings.Builder
		if err := parse(m, data); err != nil {
			return Result{}, fmt.Errorf("%q could not be parsed: %v", p, oneLine(err))
		}
		m.render(&b, -1)
		return Result{Output: b.String()}, nil
	}
	lang := sourceLang(resolved)
	if lang == nil {
		return Result{}, fmt.Errorf("%q is neither a dependency manifest (%s) nor a Go, JavaScript/TypeScript or Python source file", p, manifestNames)
	}
	return s.imports(ctx, t, e, p, resolved, lang)
}

// readEntry reads one regular file of a tree.
func (s *Set) readEntry(ctx context.Context, e entry) ([]byte, error) {
	if e.size > readMaxFile {
		return nil, fmt.Errorf("%q is %d bytes, too large to read", e.path, e.size)
	}
	data, err := s.content(ctx, e)
	if err != nil {
		return nil, fmt.Errorf("reading %q: %w", e.path, err)
	}
	return data, nil
}

// readAll reads files in one stream; their contents are in files' order.
func (s *Set) readAll(ctx context.Context, files []entry) ([][]byte, error) {
	out := make([][]byte, len(files))
	err := s.scanBlobs(ctx, files, func(i int, data []byte) { out[i] = data })
	if err == nil {
		err = ctx.Err()
	}
	return out, err
}

// manifestsUnder lists the dependencies of every manifest below a directory.
func (s *Set) manifestsUnder(ctx context.Context, t *tree, dir string) (Result, error) {
	var files []entry
	for _, e := range t.entries {
		if !e.regular() || (dir != "" && !strings.HasPrefix(e.path, dir+"/")) {
			continue
		}
		if manifestKind(path.Base(e.path)) == nil || skipManifestDir(e.path) || s.hidden(e.path) || e.size > readMaxFile {
			continue
		}
		files = append(files, e)
	}
	where := "in the repository"
	if dir != "" {
		where = fmt.Sprintf("under %q", dir)
	}
	if len(files) == 0 {
		return Result{Output: fmt.Sprintf("no dependency manifests (%s) %s at head\n", manifestNames, where)}, nil
	}
	// The shallowest manifests first: they are the project's own.
	slices.SortStableFunc(files, func(a, b entry) int {
		return strings.Count(a.path, "/") - strings.Count(b.path, "/")
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%d dependency manifests %s at head\n", len(files), where)
	data, err := s.readAll(ctx, files)
	if err != nil {
		return Result{}, fmt.Errorf("reading manifests: %w", err)
	}
	for i, e := range files {
		m := &manifest{path: e.path}
		if err := manifestKind(path.Base(e.path))(m, data[i]); err != nil {
			fmt.Fprintf(&b, "%s: could not be parsed: %s\n", e.path, oneLine(err))
			continue
		}
		m.render(&b, -1)
	}
	return Result{Output: b.String()}, nil
}

// oneLine keeps the first line of an error's text.
func oneLine(err error) string {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i] + " …"
	}
	return msg
}

// lang is what get_dependencies knows about one language's imports.
type lang struct {
	name string
	exts []string
	// imports lists the import specs of a file, in order.
	imports func(data []byte) ([]string, error)
}

var (
	goLang = &lang{name: "Go", exts: []string{".go"}, imports: goImports}
	jsLang = &lang{name: "JavaScript/TypeScript", exts: []string{".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"}, imports: jsImports}
	pyLang = &lang{name: "Python", exts: []string{".py", ".pyi"}, imports: pyImports}
)

func sourceLang(p string) *lang {
	ext := path.Ext(p)
	for _, l := range []*lang{goLang, jsLang, pyLang} {
		if slices.Contains(l.exts, ext) {
			return l
		}
	}
	return nil
}

func goImports(data []byte) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "", data, parser.ImportsOnly)
	if f == nil {
		return nil, err
	}
	// A file with a syntax error after its imports still has them.
	var out []string
	for _, imp := range f.Imports {
		if p, err := strconv.Unquote(imp.Path.Value); err == nil {
			out = append(out, p)
		}
	}
	return out, nil
}

var (
	// jsStatic matches import and export-from declarations, whose clause
	// may span lines: import {a,\n b} from "x"; import "x"; export * from "x".
	jsStatic = lazy.Regexp(`(?m)(?:^|[;}\s])(?:import|export)\s+(?:type\s+)?(?:[\w$*{}\s,]*?\s*from\s*)?["']([^"'\n]+)["']`)
	// jsCall matches require("x") and dynamic import("x").
	jsCall = lazy.Regexp(`\b(?:require|import)\s*\(\s*["']([^"'\n]+)["']\s*\)`)
)

func jsImports(data []byte) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, re := range []*regexp.Regexp{jsStatic(), jsCall()} {
		for _, m := range re.FindAllSubmatch(data, -1) {
			if spec := string(m[1]); !seen[spec] {
				seen[spec] = true
				out = append(out, spec)
			}
		}
	}
	return out, nil
}

var (
	pyImport = lazy.Regexp(`(?m)^[ \t]*import[ \t]+([\w. \t,]+)`)
	pyFrom   = lazy.Regexp(`(?m)^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]+)`)
	pyAs     = lazy.Regexp(`\s+as\s+\w+`)
)

// pyImports returns "module" for import module and "module:name" for
// from module import name; relative modules keep their leading dots.
func pyImports(data []byte) ([]string, error) {
	var out []string
	for _, m := range pyImport().FindAllSubmatch(data, -1) {
		for mod := range strings.SplitSeq(pyAs().ReplaceAllString(string(m[1]), ""), ",") {
			if mod = strings.TrimSpace(mod); mod != "" {
				out = append(out, mod)
			}
		}
	}
	for _, m := range pyFrom().FindAllSubmatch(data, -1) {
		mod := string(m[1])
		names := strings.Trim(pyAs().ReplaceAllString(string(m[2]), ""), "() \t\r\n\\")
		for name := range strings.SplitSeq(names, ",") {
			if name = strings.Trim(name, " \t\r\n\\"); name != "" {
				out = append(out, mod+":"+name)
			}
		}
	}
	return out, nil
}

// imports describes a source file's imports and its importers.
func (s *Set) imports(ctx context.Context, t *tree, e entry, p, resolved string, l *lang) (Result, error) {
	data, err := s.readEntry(ctx, e)
	if err != nil {
		return Result{}, err
	}
	specs, err := l.imports(data)
	if err != nil {
		return Result{}, fmt.Errorf("%q could not be parsed as %s: %v", p, l.name, oneLine(err))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s) at head imports %d:\n", p, l.name, len(specs))
	var target importTarget
	switch l {
	case goLang:
		target = s.goTarget(ctx, t, resolved)
	case jsLang:
		target = jsTarget(t, resolved)
	case pyLang:
		target = pyTarget(t, resolved)
	}
	for _, spec := range specs {
		if where := target.local(spec); where != "" {
			fmt.Fprintf(&b, "  %s -> %s\n", spec, where)
		} else {
			fmt.Fprintf(&b, "  %s\n", spec)
		}
	}
	importers, scanned, err := s.importers(ctx, t, l, target, resolved)
	if err != nil {
		return Result{}, err
	}
	fmt.Fprintf(&b, "%s (%d of %d tracked %s files):\n", target.what(), len(importers), scanned, l.name)
	for _, imp := range importers {
		fmt.Fprintf(&b, "  %s\n", imp)
	}
	if len(importers) == 0 {
		b.WriteString("  (none found)\n")
	}
	if m := nearestManifest(t, resolved); m != "" {
		fmt.Fprintf(&b, "Nearest manifest: %s ("+toolname.GetDependencies+" %s lists its dependencies)\n", m, jsonArgs("path", m))
	}
	return Result{Output: b.String()}, nil
}

// importTarget knows how the rest of the repository refers to one file.
type importTarget interface {
	// imports reports whether a file at path with these import specs
	// imports the target.
	imports(path string, specs []string) bool
	// local names the tracked file or directory an import spec of the
	// target refers to, or "".
	local(spec string) string
	// what heads the list of importers.
	what() string
}

// importers scans the tracked files of a language for ones importing target.
func (s *Set) importers(ctx context.Context, t *tree, l *lang, target importTarget, self string) ([]string, int, error) {
	var files []entry
	for _, e := range t.entries {
		if e.regular() && e.path != self && slices.Contains(l.exts, path.Ext(e.path)) && e.size <= depsMaxSource && !s.hidden(e.path) {
			files = append(files, e)
		}
	}
	found := make([]bool, len(files))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	err := s.scanBlobs(ctx, files, func(i int, data []byte) {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() {
				recover() // a file the parser chokes on imports nothing
				<-sem
			}()
			if specs, _ := l.imports(data); target.imports(files[i].path, specs) {
				found[i] = true
			}
		})
	})
	wg.Wait()
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, 0, fmt.Errorf("looking for importers: %w", err)
	}
	var out []string
	for i, ok := range found {
		if ok {
			out = append(out, files[i].path)
		}
	}
	return out, len(files), nil
}

// nearestManifest finds the closest manifest in the file's directory or
// above it.
func nearestManifest(t *tree, p string) string {
	for dir := parentDir(p); ; dir = parentDir(dir) {
		for _, name := range []string{"go.mod", "package.json", "pyproject.toml", "setup.py", "requirements.txt", "Pipfile", "Cargo.toml", "pom.xml", "build.gradle", "build.gradle.kts", "Gemfile", "composer.json"} {
			m := path.Join(dir, name)
			if _, ok := t.file(m); ok && manifestKind(name) != nil {
				return m
			}
		}
		if dir == "" {
			return ""
		}
	}
}

// goTarget: Go files import packages (directories), by import path.
type goPkg struct {
	module, moduleDir string // from the nearest go.mod; empty if none
	dir               string // the file's directory
	t                 *tree
}

func (s *Set) goTarget(ctx context.Context, t *tree, p string) *goPkg {
	g := &goPkg{dir: parentDir(p), t: t}
	for dir := g.dir; ; dir = parentDir(dir) {
		if e, ok := t.file(path.Join(dir, "go.mod")); ok && e.regular() {
			if data, err := s.readEntry(ctx, e); err == nil {
				g.module, g.moduleDir = modfile.ModulePath(data), dir
			}
			break
		}
		if dir == "" {
			break
		}
	}
	return g
}

// importPath is the package's import path, or "" without a module.
func (g *goPkg) importPath() string {
	if g.module == "" {
		return ""
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(g.dir, g.moduleDir), "/")
	return path.Join(g.module, rel)
}

func (g *goPkg) imports(p string, specs []string) bool {
	ip := g.importPath()
	return ip != "" && parentDir(p) != g.dir && slices.Contains(specs, ip)
}

func (g *goPkg) local(spec string) string {
	if g.module == "" || (spec != g.module && !strings.HasPrefix(spec, g.module+"/")) {
		return ""
	}
	dir := path.Join(g.moduleDir, strings.TrimPrefix(strings.TrimPrefix(spec, g.module), "/"))
	if g.t.isDir(dir) {
		return dir + "/"
	}
	return ""
}

func (g *goPkg) what() string {
	if ip := g.importPath(); ip != "" {
		return fmt.Sprintf("Files importing its package %q", ip)
	}
	return "Files importing its package (no go.mod found, so none can be named)"
}

// jsFile: JS/TS files import other files by relative specifier.
type jsFile struct {
	path string
	t    *tree
}

func jsTarget(t *tree, p string) *jsFile { return &jsFile{path: p, t: t} }

// resolve finds the tracked file a relative specifier names from a
// directory, trying the extensions and index files bundlers try, and the
// TypeScript convention of importing "./x.js" for x.ts.
func (j *jsFile) resolve(fromDir, spec string) string {
	if !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") && spec != "." && spec != ".." {
		return ""
	}
	base := path.Join(fromDir, spec)
	if strings.HasPrefix(base, "../") || base == ".." {
		return ""
	}
	cands := []string{base}
	stem := strings.TrimSuffix(base, path.Ext(base))
	for _, ext := range jsLang.exts {
		cands = append(cands, base+ext, stem+ext)
	}
	for _, ext := range jsLang.exts {
		cands = append(cands, path.Join(base, "index"+ext))
	}
	for _, c := range cands {
		if e, ok := j.t.file(c); ok && e.regular() {
			return c
		}
	}
	return ""
}

func (j *jsFile) imports(p string, specs []string) bool {
	for _, spec := range specs {
		if j.resolve(parentDir(p), spec) == j.path {
			return true
		}
	}
	return false
}

func (j *jsFile) local(spec string) string { return j.resolve(parentDir(j.path), spec) }

func (j *jsFile) what() string { return "Files importing it by relative path" }

// pyModule: Python files import modules by dotted name, or relative to
// their package.
type pyModule struct {
	name string // dotted module name
	self string // the file's path
	t    *tree
}

func pyTarget(t *tree, p string) *pyModule {
	return &pyModule{name: pyModuleName(t, p), self: p, t: t}
}

// pyModuleName derives a file's module name from the packages (directories
// with __init__.py) around it: src/pkg/sub/mod.py with __init__.py in pkg
// and sub is "pkg.sub.mod".
func pyModuleName(t *tree, p string) string {
	parts := []string{strings.TrimSuffix(strings.TrimSuffix(path.Base(p), ".pyi"), ".py")}
	if parts[0] == "__init__" {
		parts = nil
	}
	for dir := parentDir(p); dir != ""; dir = parentDir(dir) {
		if _, ok := t.file(path.Join(dir, "__init__.py")); !ok {
			break
		}
		parts = append([]string{path.Base(dir)}, parts...)
	}
	return strings.Join(parts, ".")
}

// absolute turns an import spec of a file into absolute dotted names: the
// module, and for "from m import n" also "m.n" (n may be a submodule).
func (m *pyModule) absolute(from string, spec string) []string {
	mod, name, hasName := strings.Cut(spec, ":")
	if strings.HasPrefix(mod, ".") {
		dots := len(mod) - len(strings.TrimLeft(mod, "."))
		pkg := strings.Split(pyModuleName(m.t, from), ".")
		if path.Base(from) != "__init__.py" && path.Base(from) != "__init__.pyi" {
			pkg = pkg[:len(pkg)-1]
		}
		if dots-1 > len(pkg) {
			return nil
		}
		pkg = pkg[:len(pkg)-(dots-1)]
		if rest := mod[dots:]; rest != "" {
			pkg = append(pkg, rest)
		}
		mod = strings.Join(pkg, ".")
	}
	out := []string{mod}
	if hasName && name != "*" {
		out = append(out, strings.TrimPrefix(mod+"."+name, "."))
	}
	return out
}

func (m *pyModule) imports(p string, specs []string) bool {
	if m.name == "" {
		return false
	}
	for _, spec := range specs {
		if slices.Contains(m.absolute(p, spec), m.name) {
			return true
		}
	}
	return false
}

func (m *pyModule) local(spec string) string {
	names := m.absolute(m.self, spec)
	// The most specific name first: "from pkg import mod" names pkg/mod.py.
	for i := len(names) - 1; i >= 0; i-- {
		if f := m.fileOf(names[i]); f != "" {
			return f
		}
	}
	return ""
}

// fileOf finds the tracked file that is module name: a/b.py or
// a/b/__init__.py below any source root.
func (m *pyModule) fileOf(name string) string {
	if name == "" {
		return ""
	}
	rel := strings.ReplaceAll(name, ".", "/")
	for _, e := range m.t.entries {
		for _, suffix := range []string{rel + ".py", rel + "/__init__.py"} {
			if (e.path == suffix || strings.HasSuffix(e.path, "/"+suffix)) && pyModuleName(m.t, e.path) == name {
				return e.path
			}
		}
	}
	return ""
}

func (m *pyModule) what() string {
	if m.name == "" {
		return "Files importing it"
	}
	return fmt.Sprintf("Files importing module %q", m.name)
}
