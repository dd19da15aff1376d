package hosttest

import (
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// GitHub notifies whoever a posted text mentions. Its rule is ported here
// from the mention filter it published (html-pipeline's
// HTML::Pipeline::MentionFilter, jch/html-pipeline): in the rendered
// page's text, outside pre, code and a elements,
//
//	(?:^|\W)@((?>[a-z0-9][a-z0-9-]*))(?!\/)(?=\.+[ \t\W]|\.+$|[^0-9a-zA-Z_.]|$)
//
// case-insensitive, where Ruby's \W is any character but an ASCII letter,
// digit or "_". The page is rendered from GitHub Flavored Markdown here by
// goldmark with its GFM extensions (links made of bare addresses
// included); backslash escapes and character references are resolved as
// a renderer would. Raw HTML is read as text, which only adds mentions.
// A team, "@org/team", is a mention as well (its filter follows the same
// pattern with "/team" after the organisation).

// Mentions returns the logins GitHub would notify for body.
func Mentions(body string) []string {
	src := []byte(body)
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	doc := md.Parser().Parse(text.NewReader(src))
	var found []string
	var run []byte
	flush := func() {
		found = append(found, mentionsIn(string(run))...)
		run = run[:0]
	}
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		switch n := n.(type) {
		case *ast.CodeSpan, *ast.Link, *ast.AutoLink, *ast.Image, *ast.FencedCodeBlock, *ast.CodeBlock:
			flush()
			return
		case *ast.Text:
			run = append(run, resolve(n.Segment.Value(src))...)
			if n.SoftLineBreak() || n.HardLineBreak() {
				run = append(run, '\n')
			}
			return
		case *ast.String:
			run = append(run, resolve(n.Value)...)
			return
		case *ast.RawHTML:
			flush()
			for i := 0; i < n.Segments.Len(); i++ {
				seg := n.Segments.At(i)
				run = append(run, seg.Value(src)...)
			}
			flush()
			return
		case *ast.HTMLBlock:
			flush()
			for i := 0; i < n.Lines().Len(); i++ {
				seg := n.Lines().At(i)
				run = append(run, seg.Value(src)...)
			}
			flush()
			return
		}
		// Any other node is an element of its own: its text is a text
		// node apart from what is around it.
		flush()
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			walk(c)
		}
		flush()
	}
	walk(doc)
	return found
}

// resolve is a text segment as the page shows it: backslash escapes
// taken away, character references resolved.
func resolve(b []byte) []byte {
	return util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(b)))
}

// mentionsIn applies the mention pattern to one text node.
func mentionsIn(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] != '@' || (i > 0 && word(s[i-1])) {
			continue
		}
		j := i + 1
		if j >= len(s) || !alnum(s[j]) {
			continue
		}
		for j < len(s) && (alnum(s[j]) || s[j] == '-') {
			j++
		}
		// A team, @org/team, is notified too (TeamMentionFilter).
		if j+1 < len(s) && s[j] == '/' && alnum(s[j+1]) {
			for j++; j < len(s) && (alnum(s[j]) || s[j] == '-' || s[j] == '_'); j++ {
			}
			out = append(out, strings.ToLower(s[i+1:j]))
			continue
		}
		if followsMention(s[j:]) {
			out = append(out, strings.ToLower(s[i+1:j]))
		}
	}
	return out
}

// followsMention is the pattern's lookahead after a login: no "/", then
// dots followed by space or a non-word character, dots at the end of a
// line, a character that is neither a word character nor a dot, or the
// end of a line.
func followsMention(rest string) bool {
	if rest == "" || rest[0] == '\n' {
		return true
	}
	if rest[0] == '/' {
		return false
	}
	if rest[0] != '.' {
		return !word(rest[0])
	}
	dots := strings.TrimLeft(rest, ".")
	return dots == "" || dots[0] == '\n' || dots[0] == ' ' || dots[0] == '\t' || !word(dots[0])
}

func alnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }

func word(c byte) bool { return alnum(c) || c == '_' }
