package hosttest

import (
	"bytes"
	"regexp"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// Gitea (and Forgejo) notify whoever a posted text mentions. Their rule is
// ported here from Gitea's source (modules/references/references.go,
// FindAllMentionsMarkdown, and modules/markup/mdstripper): the text is
// parsed as Markdown by goldmark (tables, strikethrough, task lists,
// definition lists, footnotes, links made of bare addresses) and
// stripped to the text of its nodes that are not raw (code spans and
// code blocks are not text; a link's words are skipped), one node a line
// unless it follows another text node; then
//
//	(?:\s|^|\(|\[)(@[-\w][-.\w]*?|@[-\w][-.\w]*?/[-\w][-.\w]*?)(?:\s|$|[:,;.?!](\s|$)|'|\)|\])
//
// is found again and again, each search starting after the name found
// (less its trailing space), so that two mentions side by side both
// count. Gitea has no quick actions: a comment's lines run nothing.
var (
	giteaMention = regexp.MustCompile(`(?:\s|^|\(|\[)(@[-\w][-.\w]*?|@[-\w][-.\w]*?/[-\w][-.\w]*?)(?:\s|$|[:,;.?!](\s|$)|'|\)|\])`)
	giteaTrimmed = regexp.MustCompile(`(?:.*[0-9a-zA-Z-_])\s`)
)

// GiteaMentions returns the names Gitea would notify for body, without
// the "@".
func GiteaMentions(body string) []string {
	content := giteaStrip([]byte(body))
	var out []string
	pos := 0
	for {
		m := giteaMention.FindSubmatchIndex(content[pos:])
		if m == nil {
			return out
		}
		start, end := m[2]+pos, m[3]+pos
		out = append(out, string(content[start+1:end]))
		if notrail := giteaTrimmed.FindSubmatchIndex(content[start:end]); notrail == nil {
			pos = end
		} else {
			pos = end + notrail[1] - notrail[3]
		}
	}
}

// giteaStrip is mdstripper.StripMarkdownBytes: the text of body's
// Markdown, its links' words and code left out.
func giteaStrip(src []byte) []byte {
	md := goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList,
		extension.DefinitionList, extension.Footnote, extension.Linkify))
	doc := md.Parser().Parse(text.NewReader(src))
	var buf bytes.Buffer
	empty := true
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := n.(type) {
		case *ast.Text:
			if v.IsRaw() {
				return ast.WalkContinue, nil
			}
			if _, coalesce := n.PreviousSibling().(*ast.Text); !coalesce && !empty {
				buf.WriteByte('\n')
			}
			buf.Write(v.Segment.Value(src))
			empty = false
			if v.SoftLineBreak() && !empty {
				buf.WriteByte('\n')
			}
		case *ast.Link, *ast.AutoLink:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return buf.Bytes()
}
