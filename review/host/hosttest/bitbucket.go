package hosttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"regexp"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// Bitbucket Cloud notifies whoever a comment mentions: "@" and an
// account's nickname, or "@{…}" and its account ID in braces, as its
// editor writes a mention it completes (support.atlassian.com,
// "Mention users in pull requests"; the API keeps the raw text it was
// sent). Bitbucket publishes no grammar of its own, so the oracle is
// stricter than any reading of that, in the words of GitHub's published
// rule: the text of a comment as the page shows it (goldmark with
// GitHub's extensions, character references resolved; code spans, code
// blocks and raw HTML are not text, a link's words are; each element,
// a line break and code start a line of their own), in which "@" after anything but an
// ASCII letter, digit or "_", and before "{" or such a character, is a
// mention, whatever the name. Bitbucket has no quick actions.
var bbMention = regexp.MustCompile(`(?:^|[^A-Za-z0-9_])@(\{[^}\s]*\}?|[A-Za-z0-9_][A-Za-z0-9_.-]*)`)

// BitbucketMentions returns the names Bitbucket could notify for body,
// without the "@".
func BitbucketMentions(body string) []string {
	var out []string
	for _, line := range strings.Split(bbStrip([]byte(body)), "\n") {
		for _, m := range bbMention.FindAllStringSubmatch(line, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// bbStrip is the text of body's Markdown as the page shows it, code and
// raw HTML left out, links' words kept.
func bbStrip(src []byte) string {
	md := goldmark.New(goldmark.WithExtensions(extension.GFM, extension.DefinitionList, extension.Footnote))
	doc := md.Parser().Parse(text.NewReader(src))
	var buf strings.Builder
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch v := n.(type) {
		case *ast.CodeSpan, *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock, *ast.RawHTML:
			// The code's text is no name: it ends a name before it and
			// starts none after it.
			buf.WriteByte('\n')
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			if entering {
				buf.WriteString(html.UnescapeString(string(v.Segment.Value(src))))
				if v.SoftLineBreak() || v.HardLineBreak() {
					buf.WriteByte('\n')
				}
			}
		case *ast.String:
			if entering {
				buf.WriteString(html.UnescapeString(string(v.Value)))
			}
		default:
			// A block, and an emphasis or a link within one, is text of
			// its own, as the page's elements are.
			buf.WriteByte('\n')
		}
		return ast.WalkContinue, nil
	})
	return buf.String()
}

// BitbucketSchema holds the definitions of Bitbucket's swagger that
// review sends and reads, vendored in testdata/schemas (its README names
// the source): the scripted Bitbucket checks every request body and every
// answer it gives against them.
const BitbucketSchema = "bitbucket-api.json"

var bbDefs = sync.OnceValues(func() (func(def string) (*jsonschema.Schema, error), error) {
	return swaggerDefs(BitbucketSchema, false)
})

// ValidateBitbucket checks a JSON body against the swagger definition
// def, or against an array of it when def starts with "[]". A request's
// body (request true) may leave out the "type" every object of the API
// requires, its own and its parent's: Bitbucket's own examples of
// requests do, and it fills it in.
func ValidateBitbucket(def string, body []byte, request bool) error {
	defs, err := bbDefs()
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	name, array := cutArray(def)
	s, err := defs(name)
	if err != nil {
		return err
	}
	typed := func(v any) any {
		m, ok := v.(map[string]any)
		if !ok || !request {
			return v
		}
		if m["type"] == nil {
			m["type"] = name
		}
		// A reply names its parent by ID alone, as Bitbucket's examples do.
		if p, ok := m["parent"].(map[string]any); ok && p["type"] == nil {
			p["type"] = name
		}
		return v
	}
	if !array {
		return s.Validate(typed(inst))
	}
	items, ok := inst.([]any)
	if !ok {
		return fmt.Errorf("not an array of %s", name)
	}
	for i, it := range items {
		if err := s.Validate(typed(it)); err != nil {
			return fmt.Errorf("item %d: %w", i, err)
		}
	}
	return nil
}

// bbAnswer answers v, which must be of definition def: an answer off
// Bitbucket's swagger is the scripted server's own fault, answered 500 so
// that the test fails on it.
func bbAnswer(w http.ResponseWriter, status int, def string, v any) {
	b, err := json.Marshal(v)
	if err == nil {
		err = ValidateBitbucket(def, b, false)
	}
	if err != nil {
		bbError(w, http.StatusInternalServerError, "the scripted Bitbucket answered off its swagger ("+def+"): "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// bbError answers an error as Bitbucket does (swagger error).
func bbError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"message": msg}})
}
