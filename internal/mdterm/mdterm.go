package mdterm

import (
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	gtext "github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/reviewdev/review/internal/lazy"
	"github.com/reviewdev/review/internal/text"
)

// ANSI styles, each with the code that ends it alone, so styles nest.
const (
	bold      = "\033[1m"
	boldOff   = "\033[22m"
	faint     = "\033[2m"
	italic    = "\033[3m"
	italicOff = "\033[23m"
	under     = "\033[4m"
	underOff  = "\033[24m"
	strike    = "\033[9m"
	strikeOff = "\033[29m"
	cyan      = "\033[36m"
	magenta   = "\033[35m"
	colorOff  = "\033[39m"
)

// md parses CommonMark with GitHub's tables and strikethrough (gfm.go),
// which models write in their summaries. It is made at its first use.
// It is goldmark's parser alone, as goldmark.New makes it: the whole
// Markdown would link goldmark's HTML renderer, whose package init every
// command would pay for, and nothing here writes HTML.
var md = sync.OnceValue(func() parser.Parser {
	return parser.NewParser(append([]parser.Option{
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	}, gfm()...)...)
})

// summaryTag is the opening of a collapsed section the report writes
// (<details><summary>2 findings left out</summary>): its summary is
// shown, bold, and the tags are not.
var summaryTag = lazy.Regexp(`^\s*<details>\s*<summary>(.*)</summary>\s*$`)

// Render returns md styled for a terminal width columns wide. Control
// characters in md are neutralised first (text.Safe): the only escape
// sequences in the result are its own.
func Render(src string, width int) string {
	r := &renderer{src: []byte(text.Safe(src)), width: min(max(width, 20), 100)}
	doc := md().Parse(gtext.NewReader(r.src))
	r.children(doc, "", "")
	out := strings.TrimRight(r.out.String(), "\n")
	if strings.HasSuffix(src, "\n") {
		out += "\n"
	}
	return out
}

// renderer writes blocks line by line, each line after a prefix: the
// indentation and quote bars of the blocks it is in.
type renderer struct {
	src   []byte
	width int
	out   strings.Builder
}

// children writes the blocks of n, a blank line between two unless they
// are the items of a tight list. first is the prefix of the first line
// (a list item's marker), rest of the others.
func (r *renderer) children(n ast.Node, first, rest string) {
	tight := false
	if l, ok := n.(*ast.ListItem); ok {
		tight = l.Parent().(*ast.List).IsTight
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if c != n.FirstChild() && !tight {
			r.out.WriteString(strings.TrimRight(rest, " ") + "\n")
		}
		r.block(c, first, rest)
		first = rest
	}
}

// block writes one block.
func (r *renderer) block(n ast.Node, first, rest string) {
	switch n := n.(type) {
	case *ast.Heading:
		style, off := bold+magenta, colorOff+boldOff
		if n.Level == 1 {
			style, off = bold+under+magenta, colorOff+underOff+boldOff
		}
		r.lines(first, rest, style+r.inline(n)+off)
	case *ast.Paragraph, *ast.TextBlock:
		r.lines(first, rest, r.inline(n))
	case *ast.ThematicBreak:
		r.lines(first, rest, faint+strings.Repeat("─", max(r.width-utf8.RuneCountInString(rest), 3))+boldOff)
	case *ast.Blockquote:
		bar := faint + "│" + boldOff + " "
		r.children(n, first+bar, rest+bar)
	case *ast.List:
		num := n.Start
		for item := n.FirstChild(); item != nil; item = item.NextSibling() {
			mark := "• "
			if n.IsOrdered() {
				mark = strconv.Itoa(num) + string(n.Marker) + " "
				num++
			}
			if item != n.FirstChild() && !n.IsTight {
				r.out.WriteString(strings.TrimRight(rest, " ") + "\n")
			}
			r.children(item, first+mark, rest+strings.Repeat(" ", utf8.RuneCountInString(mark)))
			first = rest
		}
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		var code []string
		for i := 0; i < n.Lines().Len(); i++ {
			seg := n.Lines().At(i)
			code = append(code, "  "+cyan+strings.TrimRight(string(seg.Value(r.src)), "\n")+colorOff)
		}
		r.lines(first, rest, strings.Join(code, "\n"))
	case *ast.HTMLBlock:
		r.html(n, first, rest)
	case *table:
		r.table(n, first, rest)
	default:
		// A block the report never writes: its lines as written, or
		// its spans.
		if n.Lines().Len() == 0 {
			r.lines(first, rest, r.inline(n))
			return
		}
		var b strings.Builder
		for i := 0; i < n.Lines().Len(); i++ {
			seg := n.Lines().At(i)
			b.Write(seg.Value(r.src))
		}
		r.lines(first, rest, strings.TrimRight(b.String(), "\n"))
	}
}

// html writes an HTML block as its text, but for the report's collapsed
// sections, whose summary is shown bold and whose tags are not.
func (r *renderer) html(n *ast.HTMLBlock, first, rest string) {
	var kept []string
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		line := strings.TrimRight(string(seg.Value(r.src)), "\n")
		if m := summaryTag().FindStringSubmatch(line); m != nil {
			kept = append(kept, bold+r.span(m[1])+boldOff)
			continue
		}
		if t := strings.TrimSpace(line); t == "<details>" || t == "</details>" {
			continue
		}
		kept = append(kept, line)
	}
	if n.HasClosure() {
		closure := n.ClosureLine
		if t := strings.TrimSpace(string(closure.Value(r.src))); t != "</details>" {
			kept = append(kept, t)
		}
	}
	if len(kept) > 0 {
		r.lines(first, rest, strings.Join(kept, "\n"))
	}
}

// table writes a table with its columns padded to their widest cell, the
// header bold.
func (r *renderer) table(t *table, first, rest string) {
	var rows [][]string
	var widths []int
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			s := r.inline(cell)
			if row.(*tableRow).header {
				s = bold + s + boldOff
			}
			cells = append(cells, s)
			if i := len(cells) - 1; i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[len(cells)-1] = max(widths[len(cells)-1], visible(s))
		}
		rows = append(rows, cells)
	}
	var out []string
	for _, cells := range rows {
		var b strings.Builder
		for i, s := range cells {
			if i > 0 {
				b.WriteString(faint + " │ " + boldOff)
			}
			b.WriteString(s)
			if i < len(cells)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-visible(s)))
			}
		}
		out = append(out, b.String())
	}
	r.lines(first, rest, strings.Join(out, "\n"))
}

// lines writes s, its first line after first and the others after rest.
func (r *renderer) lines(first, rest, s string) {
	for i, line := range strings.Split(s, "\n") {
		p := rest
		if i == 0 {
			p = first
		}
		if line == "" {
			p = strings.TrimRight(p, " ")
		}
		r.out.WriteString(p + line + "\n")
	}
}

// inline renders the spans of a block: code, strong, emphasis,
// strikethrough and links; a soft line break stays a line break, since
// the report's lines are already short.
func (r *renderer) inline(n ast.Node) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			v := c.Segment.Value(r.src)
			if !c.IsRaw() {
				v = util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
			}
			b.Write(v)
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte('\n')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.CodeSpan:
			b.WriteString(cyan)
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if t, ok := t.(*ast.Text); ok {
					v := strings.ReplaceAll(string(t.Segment.Value(r.src)), "\n", " ")
					if inCell(c) {
						// A cell's pipe is escaped even in code.
						v = strings.ReplaceAll(v, `\|`, "|")
					}
					b.WriteString(v)
				}
			}
			b.WriteString(colorOff)
		case *ast.Emphasis:
			if c.Level >= 2 {
				b.WriteString(bold + r.inline(c) + boldOff)
			} else {
				b.WriteString(italic + r.inline(c) + italicOff)
			}
		case *strikethrough:
			b.WriteString(strike + r.inline(c) + strikeOff)
		case *ast.Link:
			b.WriteString(under + r.inline(c) + underOff + " " + faint + "(" + string(c.Destination) + ")" + boldOff)
		case *ast.AutoLink:
			b.WriteString(under + string(c.URL(r.src)) + underOff)
		case *ast.Image:
			b.WriteString(r.inline(c) + " " + faint + "(" + string(c.Destination) + ")" + boldOff)
		case *ast.RawHTML:
			for i := 0; i < c.Segments.Len(); i++ {
				seg := c.Segments.At(i)
				b.Write(seg.Value(r.src))
			}
		default:
			b.WriteString(r.inline(c))
		}
	}
	return b.String()
}

// inCell reports whether n is inside a table's cell.
func inCell(n ast.Node) bool {
	for ; n != nil; n = n.Parent() {
		if _, ok := n.(*tableCell); ok {
			return true
		}
	}
	return false
}

// span renders Markdown known to be one line of inline text.
func (r *renderer) span(s string) string {
	sub := &renderer{src: []byte(s), width: r.width}
	doc := md().Parse(gtext.NewReader(sub.src))
	if p := doc.FirstChild(); p != nil {
		return sub.inline(p)
	}
	return s
}

// visible is the width of s on a terminal, its escape sequences left out
// (one column a rune: the report's cells are short).
func visible(s string) int {
	n, esc := 0, false
	for _, c := range s {
		switch {
		case c == '\033':
			esc = true
		case esc:
			esc = c != 'm'
		default:
			n++
		}
	}
	return n
}
