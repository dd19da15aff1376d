package symbols

import (
	"path"
	"slices"
	"strings"
	"sync"
)

// family is what the scanner knows of a language family: how its
// comments and strings are written, and the keywords that define names.
type family struct {
	name string
	exts []string
	// slash: // and /* */ comments; hash: # comments.
	slash, hash bool
	// triple: ''' and """ strings (Python; Java's text blocks).
	triple bool
	// backtick: `template` strings.
	backtick bool
	// ruby: =begin/=end comments, @ and $ start names, ? and ! end them,
	// definitions end at their "end".
	ruby bool
	// indent: definitions end where the indentation returns (Python).
	indent bool
	// lifetimes: 'a is a name, not a character (Rust).
	lifetimes bool
	// shapes: "name(...) {" defines a function (C, C++, Java, JS class
	// bodies).
	shapes bool
	// braced: a class-like keyword defines a name only when a body
	// follows ("struct s x;" uses it in C).
	braced bool
	// kw maps a keyword to the kind of the name after it.
	kw map[string]string
	// topVar: "name =" at the start of a line at the top defines a
	// variable (Python, Ruby constants).
	topVar bool
}

// families are the language families the scanner reads, made on first
// use rather than at start-up.
var families = sync.OnceValue(func() []*family {
	return []*family{
		{name: "Python", exts: []string{".py", ".pyi"}, hash: true, triple: true, indent: true, topVar: true,
			kw: map[string]string{"def": Func, "class": Class}},
		{name: "JavaScript/TypeScript", exts: []string{".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"}, slash: true, backtick: true, shapes: true,
			kw: map[string]string{"function": Func, "class": Class, "interface": Interface, "enum": Enum, "type": Type, "namespace": Module,
				"const": Var, "let": Var, "var": Var}},
		{name: "Java", exts: []string{".java"}, slash: true, triple: true, shapes: true,
			kw: map[string]string{"class": Class, "interface": Interface, "enum": Enum, "record": Class}},
		{name: "Rust", exts: []string{".rs"}, slash: true, lifetimes: true,
			kw: map[string]string{"fn": Func, "struct": Struct, "enum": Enum, "trait": Interface, "type": Type, "const": Const,
				"static": Var, "mod": Module, "union": Struct, "macro_rules": Macro}},
		{name: "C/C++", exts: []string{".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp", ".inl"}, slash: true, shapes: true, braced: true,
			kw: map[string]string{"struct": Struct, "class": Class, "union": Struct, "enum": Enum, "namespace": Module, "define": Macro}},
		{name: "Ruby", exts: []string{".rb", ".rake", ".gemspec"}, hash: true, ruby: true, topVar: true,
			kw: map[string]string{"def": Method, "class": Class, "module": Module}},
	}
})

// familyOf returns the family of a path by its extension, nil for
// languages the scanner does not read (Go has its own parser).
func familyOf(p string) *family {
	ext := strings.ToLower(path.Ext(p))
	if ext == "" {
		if b := path.Base(p); b == "Rakefile" || b == "Gemfile" {
			return families()[5]
		}
		return nil
	}
	for _, f := range families() {
		if slices.Contains(f.exts, ext) {
			return f
		}
	}
	return nil
}

// Language names the language family of a source path ("Go", "Python",
// ...), "" for others.
func Language(p string) string {
	if isGo(p) {
		return "Go"
	}
	if f := familyOf(p); f != nil {
		return f.name
	}
	return ""
}

// control reports whether a word is followed by "(" without being a
// function's name.
func control(w string) bool {
	switch w {
	case "if", "for", "while", "switch", "catch", "return", "new", "sizeof", "else", "do", "function", "with",
		"synchronized", "foreach", "using", "typeof", "await", "super", "this", "throw", "case", "delete",
		"alignof", "decltype", "static_assert", "defined", "elif", "try", "yield":
		return true
	}
	return false
}

// tok is one token of code: a name or a punctuation character (two for
// "::" and "->").
type tok struct {
	text      string
	line, col int
	ident     bool
	// first: the first token on its line; indent is that line's.
	first  bool
	indent int
}

// lexFile is what the scanner found in one file.
type lexFile struct {
	fam    *family
	defs   []Def
	idents map[string][]tok
	texts  []goText
}

// scanner turns a file into tokens and texts (comments, strings).
type scanner struct {
	fam    *family
	data   string
	i      int
	line   int
	lineAt int // offset of the current line's start
	first  bool
	toks   []tok
	texts  []goText
}

func scanFile(f File) *lexFile {
	fam := familyOf(f.Path)
	s := &scanner{fam: fam, data: string(f.Data), line: 1, first: true}
	s.run()
	l := &lexFile{fam: fam, idents: map[string][]tok{}, texts: s.texts}
	for _, t := range s.toks {
		if t.ident {
			l.idents[t.text] = append(l.idents[t.text], t)
		}
	}
	l.defs = findDefs(fam, f.Path, s.toks, strings.Count(s.data, "\n")+1)
	return l
}

func (s *scanner) run() {
	for s.i < len(s.data) {
		c := s.data[s.i]
		switch {
		case c == '\n':
			s.newline(s.i + 1)
			s.i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			s.i++
		case s.comment():
		case s.str():
		case s.isIdentStart(c):
			s.ident()
		default:
			s.punct()
		}
	}
}

func (s *scanner) newline(at int) {
	s.line++
	s.lineAt = at
	s.first = true
}

func (s *scanner) isIdentStart(c byte) bool {
	if s.fam.ruby && (c == '@' || c == '$') {
		return true
	}
	return identByte(c) && !('0' <= c && c <= '9')
}

// text keeps data[from:to] as a comment or string, counting its lines.
func (s *scanner) text(from, to int) {
	to = min(to, len(s.data))
	s.texts = append(s.texts, goText{line: s.line, text: s.data[from:to]})
	for k := from; k < to; k++ {
		if s.data[k] == '\n' {
			s.newline(k + 1)
		}
	}
	s.i = to
}

// comment consumes a comment at i, if one starts there.
func (s *scanner) comment() bool {
	rest := s.data[s.i:]
	switch {
	case s.fam.slash && strings.HasPrefix(rest, "//"), s.fam.hash && rest[0] == '#' && !(s.fam.ruby && strings.HasPrefix(rest, "#{")):
		end := strings.IndexByte(rest, '\n')
		if end < 0 {
			end = len(rest)
		}
		s.text(s.i, s.i+end)
	case s.fam.slash && strings.HasPrefix(rest, "/*"):
		end := strings.Index(rest[2:], "*/")
		if end < 0 {
			end = len(rest)
		} else {
			end += 4
		}
		s.text(s.i, s.i+end)
	case s.fam.ruby && s.i == s.lineAt && strings.HasPrefix(rest, "=begin"):
		end := strings.Index(rest, "\n=end")
		if end < 0 {
			end = len(rest)
		} else {
			end += 5
		}
		s.text(s.i, s.i+end)
	default:
		return false
	}
	return true
}

// str consumes a string literal at i, if one starts there.
func (s *scanner) str() bool {
	rest := s.data[s.i:]
	c := rest[0]
	if s.fam.triple && (strings.HasPrefix(rest, `"""`) || strings.HasPrefix(rest, `'''`)) {
		q := rest[:3]
		end := strings.Index(rest[3:], q)
		if end < 0 {
			end = len(rest)
		} else {
			end += 6
		}
		s.text(s.i, s.i+end)
		return true
	}
	switch {
	case c == '"', c == '`' && s.fam.backtick:
		s.text(s.i, s.i+quoted(rest, c))
		return true
	case c == '\'':
		if s.fam.lifetimes && len(rest) > 2 && s.isIdentStart(rest[1]) && rest[2] != '\'' {
			s.i++ // a lifetime or a label: the name follows
			return true
		}
		s.text(s.i, s.i+quoted(rest, c))
		return true
	}
	return false
}

// quoted returns the length of the string literal at the start of rest,
// which opens with q, escapes included; an unterminated one ends at the
// line's end (or the text's, for a template).
func quoted(rest string, q byte) int {
	for k := 1; k < len(rest); k++ {
		switch rest[k] {
		case '\\':
			k++
		case q:
			return k + 1
		case '\n':
			if q != '`' {
				return k
			}
		}
	}
	return len(rest)
}

func (s *scanner) ident() {
	start := s.i
	s.i++
	for s.i < len(s.data) && identByte(s.data[s.i]) {
		s.i++
	}
	if s.fam.ruby && s.i < len(s.data) && (s.data[s.i] == '?' || s.data[s.i] == '!') && (s.i+1 >= len(s.data) || s.data[s.i+1] != '=') {
		s.i++
	}
	word := s.data[start:s.i]
	// A Python string prefix (r"", b'', f"""...) or a Rust raw string
	// (r"..", r#".."#) or a C++ one (R"x(..)x").
	if s.i < len(s.data) && len(word) <= 2 {
		if s.prefixedString(word) {
			return
		}
	}
	s.emit(word, start, true)
}

func (s *scanner) prefixedString(word string) bool {
	next := s.data[s.i]
	switch {
	case s.fam.indent && (next == '"' || next == '\'') && strings.Trim(strings.ToLower(word), "rbfu") == "":
		return s.str()
	case s.fam.lifetimes && (word == "r" || word == "br" || word == "b") && (next == '"' || next == '#'):
		return s.rustString(word)
	case s.fam.braced && word == "R" && next == '"':
		return s.rawString()
	}
	return false
}

// rustString consumes a Rust byte or raw string after its prefix.
func (s *scanner) rustString(word string) bool {
	hashes := 0
	for s.i+hashes < len(s.data) && s.data[s.i+hashes] == '#' {
		hashes++
	}
	if s.i+hashes >= len(s.data) || s.data[s.i+hashes] != '"' {
		return false
	}
	if word == "b" {
		if hashes > 0 {
			return false
		}
		s.text(s.i, s.i+quoted(s.data[s.i:], '"'))
		return true
	}
	close := "\"" + strings.Repeat("#", hashes)
	to := len(s.data)
	if end := strings.Index(s.data[s.i+hashes+1:], close); end >= 0 {
		to = s.i + hashes + 1 + end + len(close)
	}
	s.text(s.i, to)
	return true
}

// rawString consumes a C++ raw string, R"delim(...)delim", after its R.
func (s *scanner) rawString() bool {
	open := strings.IndexByte(s.data[s.i:], '(')
	if open < 0 || open > 17 {
		return false
	}
	close := ")" + s.data[s.i+1:s.i+open] + "\""
	to := len(s.data)
	if end := strings.Index(s.data[s.i+open:], close); end >= 0 {
		to = s.i + open + end + len(close)
	}
	s.text(s.i, to)
	return true
}

func (s *scanner) emit(text string, at int, ident bool) {
	indent := 0
	if s.first {
		indent = at - s.lineAt
	}
	s.toks = append(s.toks, tok{text: text, line: s.line, col: at - s.lineAt + 1, ident: ident, first: s.first, indent: indent})
	s.first = false
}

func (s *scanner) punct() {
	rest := s.data[s.i:]
	n := 1
	if strings.HasPrefix(rest, "::") || strings.HasPrefix(rest, "->") || strings.HasPrefix(rest, "=>") {
		n = 2
	}
	s.emit(rest[:n], s.i, false)
	s.i += n
}

// refs returns the occurrences of name in the file: uses, definitions,
// and mentions in comments and strings.
func (l *lexFile) refs(f File, name string) []Ref {
	var out []Ref
	for _, t := range l.idents[name] {
		role := Use
		for _, d := range l.defs {
			if d.Line == t.line && d.col == t.col {
				role = Definition
				break
			}
		}
		out = append(out, Ref{Path: f.Path, Line: t.line, Func: l.enclosing(t.line, role == Definition), Role: role})
	}
	for _, t := range l.texts {
		for _, ln := range mentions(t.text, t.line, name) {
			out = append(out, Ref{Path: f.Path, Line: ln, Func: l.enclosing(ln, false), Role: Comment})
		}
	}
	return out
}

// enclosing names the innermost function or method whose lines hold
// line ("" for none); a definition's own line is outside it.
func (l *lexFile) enclosing(line int, def bool) string {
	best, span := "", 1<<30
	for _, d := range l.defs {
		if (d.Kind != Func && d.Kind != Method) || line < d.Line || line > d.End || (def && line == d.Line) {
			continue
		}
		if d.End-d.Line < span {
			best, span = d.Name, d.End-d.Line
			if d.Container != "" {
				best = d.Container + "." + d.Name
			}
		}
	}
	return best
}
