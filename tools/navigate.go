package tools

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/toolmem"
	"github.com/reviewdev/review/tools/symbols"
)

// symbolState is the run's symbol index of the head, read once, on the
// first question that needs it, and shared by every unit (Set.With keeps
// the state). Questions asked while it is read wait for it.
type symbolState struct {
	ready chan struct{} // closed once index or err is set
	index *symbols.Index
	err   error
}

// Symbols returns the symbol index of the head: every source file the
// tools may read (tracked, not hidden by the ignore globs, at most 1 MiB,
// not binary), read as search_in_project reads them. It is read once per
// run; a read cut short by ctx is not kept.
func (s *Set) Symbols(ctx context.Context) (*symbols.Index, error) {
	for {
		s.state.mu.Lock()
		st := s.state.symbols
		mine := st == nil
		if mine {
			st = &symbolState{ready: make(chan struct{})}
			s.state.symbols = st
		}
		s.state.mu.Unlock()
		if mine {
			st.index, st.err = s.readSymbols(ctx)
			if st.err != nil {
				s.state.mu.Lock()
				s.state.symbols = nil // asked again by the next question
				s.state.mu.Unlock()
			}
			close(st.ready)
			return st.index, st.err
		}
		select {
		case <-st.ready:
			if st.err == nil {
				return st.index, nil
			}
			// The reader's question was cancelled: read for this one.
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (s *Set) readSymbols(ctx context.Context) (*symbols.Index, error) {
	list := s.tree
	if s.worktree(ctx) {
		list = s.sizedNames
	}
	t, err := list(ctx, revHead)
	if err != nil {
		return nil, err
	}
	var files []entry
	for _, e := range t.entries {
		if e.regular() && e.size <= searchMaxFile && symbols.Source(e.path) && !s.hidden(e.path) {
			files = append(files, e)
		}
	}
	src := make([]symbols.File, 0, len(files))
	err = scanFiles(ctx, s, files, func(data []byte) []byte {
		if isBinary(data) {
			return nil
		}
		return bytes.Clone(data) // scanFiles reuses its buffers
	}, func(i int, data []byte) bool {
		if data != nil && files[i].size <= searchMaxFile {
			src = append(src, symbols.File{Path: files[i].path, Data: data})
		}
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("reading source files: %w", err)
	}
	return symbols.New(src), nil
}

type definitionArgs struct {
	Symbol string  `json:"symbol"`
	Path   *string `json:"path"`
	Line   *int    `json:"line"`
}

func (s *Set) definitionTool() Tool {
	return s.repoTool(Spec{
		Name:        toolname.FindDefinition,
		Description: "Where a name is defined at head: file, lines, kind, source; other definitions after. With a use's path and line, what it names first.",
		Params: []Param{
			String("symbol", `Name, or Type.Name.`).Required().Example("Register"),
			String("path", `File of a use.`).Example(nil),
			Integer("line", `Line of that use.`).Min(1).Example(nil),
		},
	}, func(ctx context.Context, args Args) (Result, error) {
		var a definitionArgs
		if err := args.Decode(&a); err != nil {
			return Result{}, err
		}
		return s.definition(ctx, a, args)
	})
}

// symbolArgs checks the symbol and path arguments of the navigation tools.
func (s *Set) symbolArgs(ctx context.Context, args Args, symbol string, p *string) (string, error) {
	if !symbols.ValidName(symbol) {
		return "", args.Errorf("symbol", "%s is not a name; send an identifier such as \"Register\", or \"Set.Register\" for a method", text.QuoteJSON(cutLine(symbol, 100)))
	}
	if p == nil || *p == "" {
		return "", nil
	}
	c, err := s.cleanPath("path", *p, false)
	if err != nil {
		return "", err
	}
	c = s.reveal(ctx, revHead, c)
	if symbols.Language(c) == "" {
		return "", args.Errorf("path", "%q is not a source file the index reads (Go, Python, JavaScript/TypeScript, Java, Rust, C/C++, Ruby)", c)
	}
	return c, nil
}

func (s *Set) definition(ctx context.Context, a definitionArgs, args Args) (Result, error) {
	p, err := s.symbolArgs(ctx, args, a.Symbol, a.Path)
	if err != nil {
		return Result{}, err
	}
	x, err := s.Symbols(ctx)
	if err != nil {
		return Result{}, err
	}
	if p != "" {
		if _, ok := x.Data(p); !ok {
			return Result{}, fmt.Errorf("no source file %q at head; find files with "+toolname.ListProjectFiles, p)
		}
	}
	line := 0
	if a.Line != nil {
		line = *a.Line
	}
	defs, resolved := x.Resolve(a.Symbol, p, line)
	if len(defs) == 0 {
		return Result{Output: fmt.Sprintf("no definition of %s in the %d source files at head; "+toolname.SearchInProject+" finds its text\n", text.QuoteJSON(a.Symbol), x.Files())}, nil
	}
	var b strings.Builder
	d := defs[0]
	fmt.Fprintf(&b, "%s at %s:%d-%d", d.Title(), text.QuotePath(d.Path), d.Line, d.End)
	switch {
	case resolved:
		fmt.Fprintf(&b, " (what %s:%d names)", text.QuotePath(p), line)
	case len(defs) > 1:
		fmt.Fprintf(&b, " (1 of %d definitions, the nearest first)", len(defs))
	}
	b.WriteString("\n")
	data, _ := x.Data(d.Path)
	writeLines(&b, data, cmp.Or(d.Doc, d.Line), d.End)
	if len(defs) > 1 {
		fmt.Fprintf(&b, "other definitions of %s:\n", text.QuoteJSON(a.Symbol))
		for _, o := range defs[1:] {
			fmt.Fprintf(&b, "%s:%d-%d %s\n", text.QuotePath(o.Path), o.Line, o.End, o.Title())
		}
	}
	return Result{Output: b.String()}, nil
}

// writeLines writes lines from..to of data, numbered as read_file_hunk
// numbers them.
func writeLines(b *strings.Builder, data []byte, from, to int) {
	n := 0
	for len(data) > 0 && n < to {
		line := data
		if i := strings.IndexByte(string(data[:min(len(data), 1<<20)]), '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		n++
		if n >= from {
			fmt.Fprintf(b, "%d: %s\n", n, cutLine(strings.TrimSuffix(string(line), "\r"), readMaxLine))
		}
	}
}

type referencesArgs struct {
	Symbol   string  `json:"symbol"`
	Path     *string `json:"path"`
	Comments bool    `json:"comments"`
}

func (s *Set) referencesTool() Tool {
	return s.repoTool(Spec{
		Name:        toolname.FindReferences,
		Preview:     toolmem.Matches,
		Description: "Uses at head of a defined name, by file, with their function (Go resolved by scope and type, else by name); definitions apart.",
		Params: []Param{
			String("symbol", `Name, or Type.Name.`).Required().Example("Register"),
			String("path", `File defining it.`).Example(nil),
			Boolean("comments", `Also list comments and strings.`).Default(false).Example(nil),
		},
	}, func(ctx context.Context, args Args) (Result, error) {
		var a referencesArgs
		if err := args.Decode(&a); err != nil {
			return Result{}, err
		}
		return s.references(ctx, a, args)
	})
}

func (s *Set) references(ctx context.Context, a referencesArgs, args Args) (Result, error) {
	p, err := s.symbolArgs(ctx, args, a.Symbol, a.Path)
	if err != nil {
		return Result{}, err
	}
	x, err := s.Symbols(ctx)
	if err != nil {
		return Result{}, err
	}
	defs := x.Definitions(a.Symbol)
	if len(defs) == 0 {
		return Result{Output: fmt.Sprintf("no definition of %s in the %d source files at head; "+toolname.SearchInProject+" finds its text\n", text.QuoteJSON(a.Symbol), x.Files())}, nil
	}
	if !strings.Contains(a.Symbol, ".") && slices.ContainsFunc(defs, func(d symbols.Def) bool { return d.Container == "" }) {
		// "Scale" names the function; "Ruler.Scale" the method.
		defs = slices.DeleteFunc(defs, func(d symbols.Def) bool { return d.Container != "" })
	}
	if p != "" {
		var in []symbols.Def
		for _, d := range defs {
			if d.Path == p {
				in = append(in, d)
			}
		}
		if len(in) == 0 {
			return Result{}, args.Errorf("path", "%q defines no %s; it is defined in %s", p, text.QuoteJSON(a.Symbol), defPlaces(defs))
		}
		defs = in
	}
	var b strings.Builder
	for i, group := range symbols.Group(defs) {
		if i > 0 {
			b.WriteString("\n")
		}
		writeRefs(&b, x, group, a.Comments)
	}
	return Result{Output: b.String()}, nil
}

// defPlaces lists where definitions are, for a message.
func defPlaces(defs []symbols.Def) string {
	var out []string
	for i, d := range defs {
		if i == 5 {
			out = append(out, fmt.Sprintf("and %d more", len(defs)-5))
			break
		}
		out = append(out, fmt.Sprintf("%s:%d", d.Path, d.Line))
	}
	return strings.Join(out, ", ")
}

// writeRefs writes the references of one group of definitions: a header
// with the counts, the uses grouped by file, then the definitions, the
// uses that may be of another type's member, and the mentions.
func writeRefs(b *strings.Builder, x *symbols.Index, defs []symbols.Def, comments bool) {
	refs := x.References(defs[0])
	var uses, decls, maybe, notes []symbols.Ref
	files := map[string]bool{}
	for _, r := range refs {
		switch r.Role {
		case symbols.Use:
			uses = append(uses, r)
			files[r.Path] = true
		case symbols.Definition:
			decls = append(decls, r)
		case symbols.Maybe:
			maybe = append(maybe, r)
		case symbols.Comment:
			notes = append(notes, r)
		}
	}
	d := defs[0]
	what := fmt.Sprintf("%s (%s:%d)", d.Title(), text.QuotePath(d.Path), d.Line)
	if len(defs) > 1 && symbols.Language(d.Path) != "Go" {
		what = fmt.Sprintf("%s (%d definitions of that name in %s; matched by name)", text.QuoteJSON(d.Name), len(defs), symbols.Language(d.Path))
	}
	fmt.Fprintf(b, "%s: %s in %s", what, plural(len(uses), "use"), plural(len(files), "file"))
	if len(maybe) > 0 {
		fmt.Fprintf(b, ", %s on operands of unknown type", plural(len(maybe), "possible use"))
	}
	if len(notes) > 0 && !comments {
		fmt.Fprintf(b, "; %s in comments or strings left out (comments: true lists them)", plural(len(notes), "mention"))
	}
	b.WriteString("\n")
	writeRefLines(b, x, uses)
	if len(decls) > 0 {
		b.WriteString("definitions:\n")
		writeRefLines(b, x, decls)
	}
	if len(maybe) > 0 {
		b.WriteString("possible uses (another type has a member of this name):\n")
		writeRefLines(b, x, maybe)
	}
	if comments && len(notes) > 0 {
		b.WriteString("mentions in comments and strings:\n")
		writeRefLines(b, x, notes)
	}
}

// writeRefLines writes one "path:line: [function] text" line per
// reference, one per line of a file.
func writeRefLines(b *strings.Builder, x *symbols.Index, refs []symbols.Ref) {
	var lines []string
	cur := ""
	for k, r := range refs {
		if k > 0 && r.Path == refs[k-1].Path && r.Line == refs[k-1].Line {
			continue
		}
		if r.Path != cur {
			data, _ := x.Data(r.Path)
			lines = strings.Split(string(data), "\n")
			cur = r.Path
		}
		src := ""
		if r.Line-1 < len(lines) {
			src = strings.TrimSpace(strings.TrimSuffix(lines[r.Line-1], "\r"))
		}
		fn := ""
		if r.Func != "" {
			fn = "[" + r.Func + "] "
		}
		fmt.Fprintf(b, "%s:%d: %s%s\n", text.QuotePath(r.Path), r.Line, fn, cutLine(src, searchMaxLine))
	}
}

// BaseFile returns a regular file's content at the base revision, read
// as read_file_hunk reads it (the path sandbox, ignore rules, symlinks
// inside the repository), for what the engine compares with the head.
func (s *Set) BaseFile(ctx context.Context, p string) ([]byte, error) {
	c, err := s.cleanPath("path", p, false)
	if err != nil {
		return nil, err
	}
	t, err := s.pathTree(ctx, revBase)
	if err != nil {
		return nil, err
	}
	e, _, err := s.lookup(ctx, t, c, revBase)
	if err != nil {
		return nil, err
	}
	if !e.regular() {
		return nil, fmt.Errorf("%q is not a regular file at base", c)
	}
	if e.size > searchMaxFile {
		return nil, fmt.Errorf("%q is %d bytes at base, more than the index reads", c, e.size)
	}
	return s.content(ctx, e)
}
