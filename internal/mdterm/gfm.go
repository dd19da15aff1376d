package mdterm

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	gtext "github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// GitHub's tables and strikethrough, which models write in their
// summaries, read as goldmark's extension package reads them
// (TestGFMMatchesGoldmark holds the trees to its, FuzzGFM too). That
// package is not linked: it compiles seven regular expressions when the
// program starts, whatever the command, for features the report never
// uses (links found in plain text, task lists).

var (
	kindTable  = ast.NewNodeKind("mdterm.Table")
	kindRow    = ast.NewNodeKind("mdterm.TableRow")
	kindCell   = ast.NewNodeKind("mdterm.TableCell")
	kindStrike = ast.NewNodeKind("mdterm.Strikethrough")
)

// table is a table: its rows, the header first.
type table struct{ ast.BaseBlock }

func (*table) Kind() ast.NodeKind                   { return kindTable }
func (n *table) Dump(src []byte, level int)         { ast.DumpHelper(n, src, level, nil, nil) }
func (*tableRow) Kind() ast.NodeKind                { return kindRow }
func (n *tableRow) Dump(src []byte, level int)      { ast.DumpHelper(n, src, level, nil, nil) }
func (*tableCell) Kind() ast.NodeKind               { return kindCell }
func (n *tableCell) Dump(src []byte, level int)     { ast.DumpHelper(n, src, level, nil, nil) }
func (*strikethrough) Kind() ast.NodeKind           { return kindStrike }
func (n *strikethrough) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// tableRow is a row of cells; header is set for the first.
type tableRow struct {
	ast.BaseBlock
	header bool
}

// tableCell is a cell: one line of inline text, parsed as a paragraph's.
type tableCell struct{ ast.BaseBlock }

// strikethrough is text between one or two tildes.
type strikethrough struct{ ast.BaseInline }

// gfm is the parser's options for both.
func gfm() []parser.Option {
	return []parser.Option{
		parser.WithParagraphTransformers(util.Prioritized(tables{}, 200)),
		parser.WithInlineParsers(util.Prioritized(strikes{}, 500)),
	}
}

// tables turns a paragraph holding a header row and a delimiter row into
// a table; the paragraph's lines before the header stay a paragraph.
type tables struct{}

func (tables) Transform(p *ast.Paragraph, r gtext.Reader, pc parser.Context) {
	lines, src := p.Lines(), r.Source()
	for i := 1; i < lines.Len(); i++ {
		seg := lines.At(i)
		cols := delimiterRow(seg.Value(src))
		if cols == 0 {
			continue
		}
		head := row(src, lines.At(i-1), cols, true)
		if head.ChildCount() != cols {
			return
		}
		t := &table{}
		t.AppendChild(t, head)
		for j := i + 1; j < lines.Len(); j++ {
			t.AppendChild(t, row(src, lines.At(j), cols, false))
		}
		parent := p.Parent()
		lines.SetSliced(0, i-1)
		parent.InsertAfter(parent, p, t)
		if lines.Len() == 0 {
			parent.RemoveChild(parent, p)
			return
		}
		last := lines.At(i - 2)
		last.Stop-- // the paragraph now ends before the header's line
		lines.Set(i-2, last)
		return
	}
}

// delimiterRow returns the number of columns of line if it is a
// delimiter row (| --- | :-: |), else 0: at most three columns of
// indentation, then only dashes, colons, pipes and spaces, not dashes
// alone; each cell between pipes a run of dashes with a colon at either
// end or none.
func delimiterRow(line []byte) int {
	if w, _ := util.IndentWidth(line, 0); w > 3 {
		return 0
	}
	dashes := true
	for _, c := range line {
		if c != '-' {
			dashes = false
		}
		if !util.IsSpace(c) && c != '-' && c != '|' && c != ':' {
			return 0
		}
	}
	if dashes {
		return 0
	}
	cols := bytes.Split(line, []byte{'|'})
	if util.IsBlank(cols[0]) {
		cols = cols[1:]
	}
	if len(cols) > 0 && util.IsBlank(cols[len(cols)-1]) {
		cols = cols[:len(cols)-1]
	}
	for _, c := range cols {
		c = bytes.Trim(c, " \t\n\f\r") // what \s is to Go's regexp
		c = bytes.TrimPrefix(c, []byte{':'})
		c = bytes.TrimSuffix(c, []byte{':'})
		if len(c) == 0 || len(bytes.Trim(c, "-")) != 0 {
			return 0
		}
	}
	return len(cols)
}

// row splits seg into cells at pipes not escaped by a backslash, a pipe
// at either end of the line opening or closing it. A body row keeps its
// first cols cells; every row is filled up to cols with empty cells.
func row(src []byte, seg gtext.Segment, cols int, header bool) *tableRow {
	seg = seg.TrimLeftSpace(src)
	seg = seg.TrimRightSpace(src)
	line := seg.Value(src)
	pos, limit := 0, len(line)
	if limit > 0 && line[0] == '|' {
		pos++
	}
	if limit > 0 && line[limit-1] == '|' {
		limit--
	}
	r := &tableRow{header: header}
	n := 0
	for ; pos < limit; n++ {
		if n >= cols && !header {
			return r
		}
		end := pos
		for end < limit && (line[end] != '|' || end > 0 && line[end-1] == '\\') {
			end++
		}
		c := &tableCell{}
		cell := gtext.NewSegment(seg.Start+pos, seg.Start+end)
		cell = cell.TrimLeftSpace(src)
		c.Lines().Append(cell.TrimRightSpace(src))
		r.AppendChild(r, c)
		pos = end + 1
	}
	for ; n < cols; n++ {
		r.AppendChild(r, &tableCell{})
	}
	return r
}

// strikes reads a run of one or two tildes as a delimiter of
// strikethrough text; a longer run is text.
type strikes struct{}

func (strikes) Trigger() []byte { return []byte{'~'} }

func (strikes) Parse(_ ast.Node, block gtext.Reader, pc parser.Context) ast.Node {
	before := block.PrecendingCharacter()
	line, seg := block.PeekLine()
	d := parser.ScanDelimiter(line, before, 1, tildes{})
	if d == nil || d.OriginalLength > 2 || before == '~' {
		return nil
	}
	d.Segment = seg.WithStop(seg.Start + d.OriginalLength)
	block.Advance(d.OriginalLength)
	pc.PushDelimiter(d)
	return d
}

func (strikes) CloseBlock(ast.Node, parser.Context) {}

// tildes pairs tilde delimiters into strikethrough.
type tildes struct{}

func (tildes) IsDelimiter(b byte) bool                   { return b == '~' }
func (tildes) CanOpenCloser(o, c *parser.Delimiter) bool { return o.Char == c.Char }
func (tildes) OnMatch(int) ast.Node                      { return &strikethrough{} }
