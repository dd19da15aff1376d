package mdterm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	gtext "github.com/yuin/goldmark/text"
)

// reference is goldmark with its own extensions for GitHub's tables and
// strikethrough: the oracle gfm.go is held to. A test imports it; the
// binary does not (see gfm.go).
var reference = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough))

// gfmCases are the shapes of tables and strikethrough that models write,
// and the edges of both grammars.
var gfmCases = []string{
	"| k | value |\n|---|---|\n| a | bb |",
	"k | v\n--|--\na | b",
	"| a |\n|---|\n| 1 |\n| 2 | extra |",
	"| a | b | c |\n|:--|:-:|--:|\n| 1 |",
	"| a | b |\n|---|\n| 1 | 2 |",
	"| a |\n|---|---|\n| 1 | 2 |",
	"text before\n| a | b |\n| - | - |\n| 1 | 2 |\nafter",
	"para one\npara two\n| a |\n| --- |",
	"| a \\| b | `c \\| d` |\n|---|---|\n| `x \\\\| y` | z\\|\n",
	"|a|\n|-|\n|`|`|",
	"    | a |\n    |---|",
	"| a |\n    |---|",
	"| a |\n   |---|",
	"a\n---",
	"| a |\n| --- |\n\n| b |",
	"- | a | b |\n  |---|---|\n  | 1 | 2 |",
	"> | a |\n> |---|\n> | 1 |",
	"| a |\n|:-:|\n",
	"|\n|-|",
	"| a |\n| -- : |",
	"| a |\n| :: |",
	"| a |\n|\t---\t|",
	"| a |\n|---|\v",
	"| **b** | _i_ |\n|---|---|\n| ~~s~~ | [l](u) |",
	"~~gone~~ &amp; &#65; <br>",
	"~one~ ~~two~~ ~~~three~~~",
	"a~~b~~c ~~ spaced ~~ ~~*nested*~~",
	"`~~code~~` ~~`code`~~",
	"~~open only",
	"x~~~y~~z",
	"| ~~a | b~~ |\n|---|---|",
}

// TestGFMMatchesGoldmark: every case parses to the tree goldmark's
// extensions make.
func TestGFMMatchesGoldmark(t *testing.T) {
	for _, c := range gfmCases {
		if got, want := ours(c), theirs(c); got != want {
			t.Errorf("%q:\n got %s\nwant %s", c, got, want)
		}
	}
}

func FuzzGFM(f *testing.F) {
	for _, c := range gfmCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := ours(s), theirs(s); got != want {
			t.Fatalf("%q:\n got %s\nwant %s", s, got, want)
		}
	})
}

func ours(s string) string {
	src := []byte(s)
	return dump(md().Parse(gtext.NewReader(src)), src)
}

func theirs(s string) string {
	src := []byte(s)
	return dump(reference.Parser().Parse(gtext.NewReader(src)), src)
}

// dump writes a tree of either parser in one form: the table's nodes by
// what they are, text by its value, a code span's text whole (goldmark's
// extension splits it where a cell's escaped pipe was; mdterm drops the
// backslash as it renders, see inline).
func dump(n ast.Node, src []byte) string {
	var b strings.Builder
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		name := n.Kind().String()
		switch n := n.(type) {
		case *table, *east.Table:
			name = "table"
		case *tableRow:
			name = "row"
			if n.header {
				name = "head"
			}
		case *east.TableHeader:
			name = "head"
		case *east.TableRow:
			name = "row"
		case *tableCell, *east.TableCell:
			name = "cell"
		case *strikethrough, *east.Strikethrough:
			name = "del"
		case *ast.Text:
			fmt.Fprintf(&b, "%q", n.Segment.Value(src))
			if n.SoftLineBreak() {
				b.WriteString("↵")
			}
			return
		case *ast.CodeSpan:
			var v strings.Builder
			for t := n.FirstChild(); t != nil; t = t.NextSibling() {
				if t, ok := t.(*ast.Text); ok {
					v.Write(t.Segment.Value(src))
				}
			}
			code := v.String()
			if inCell(n) {
				code = strings.ReplaceAll(code, `\|`, "|")
			}
			fmt.Fprintf(&b, "code%q", code)
			return
		}
		b.WriteString(name + "(")
		if n.Type() == ast.TypeBlock && n.Kind() != ast.KindDocument {
			for i := 0; i < n.Lines().Len(); i++ {
				seg := n.Lines().At(i)
				fmt.Fprintf(&b, "[%q]", seg.Value(src))
			}
		}
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			walk(c)
		}
		b.WriteString(")")
	}
	walk(n)
	return b.String()
}
