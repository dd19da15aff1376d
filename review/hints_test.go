package review

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/toolmem"
	"github.com/reviewdev/review/tools"
)

// snakeWord matches what reads as a tool or argument name: lower-case
// words joined by underscores.
var snakeWord = regexp.MustCompile(`\b[a-z]+(?:_[a-z]+)+\b`)

// TestHintsNameOfferedTools collects every text that tells the model to
// call a tool (the system prompt, the turn and unit prompts, nudges, the
// diff context's fetch hints, preview headers, stubs and digests of pruned
// turns, and the hints in tool results) and fails if one of them names a
// tool the model is not offered, or an argument no offered tool takes. A
// tool renamed in one place only shows up here.
func TestHintsNameOfferedTools(t *testing.T) {
	long := strings.Repeat("x", 3000)
	dir := newRepo(t,
		map[string]string{"a.go": numbered("// line", 40), "big.txt": numbered("row", 600), "c.go": "package c\n"},
		map[string]string{"a.go": numbered("// changed", 40), "big.txt": numbered("row", 600) + long + "\n"})
	plan, st := prepareRepo(t, dir)
	set := offered(tools.New(tools.Env{Root: plan.Diff.Root, Head: plan.Diff.HeadSHA, Base: plan.Diff.MergeBase, Store: st}), nil, nil)

	// What the model is offered: tools and their arguments, items of
	// array arguments included.
	allowed := map[string]bool{}
	for _, d := range set.Definitions() {
		allowed[d.Name] = true
		var schema struct {
			Properties map[string]struct {
				Items struct{ Properties map[string]any }
			}
		}
		if err := json.Unmarshal(d.Parameters, &schema); err != nil {
			t.Fatal(err)
		}
		for name, p := range schema.Properties {
			allowed[name] = true
			for item := range p.Items.Properties {
				allowed[item] = true
			}
		}
	}
	for _, name := range []string{toolname.ListProjectFiles, toolname.SearchInProject, toolname.ReadFileHunk, toolname.GetFileDiff, toolname.GetDependencies, toolname.ReadToolOutput, toolname.SubmitReview} {
		if !allowed[name] {
			t.Errorf("%s is named in package toolname but not offered", name)
		}
	}

	texts := map[string]string{
		"system prompt":  SystemPrompt(""),
		"task prompt":    taskPrompt("main", "HEAD"),
		"nudge":          nudge,
		"final":          final,
		"summary prompt": summaryPrompt,
		"digest header":  conversation.DigestHeader,
	}
	for k := 1; k <= 3; k++ {
		texts["unit prompt "+string(rune('0'+k))] = unitPrompt(plan.Diff, k, 3, "")
	}
	texts["single unit prompt"] = unitPrompt(plan.Diff, 1, 1, "")

	// The diff context: files that do not fit come with the call that
	// fetches them; a unit cuts long lines with a hint.
	ctx := diffctx.Render(plan.Diff, 1, plan.Counter)
	texts["diff context"] = ctx.Markdown
	for _, e := range ctx.Files {
		texts["fetch "+e.Path] = e.Fetch
	}
	units := diffctx.Units(plan.Diff, diffctx.Render(plan.Diff, 0, plan.Counter), 100000, plan.Counter)
	for i, u := range units {
		md, err := diffctx.RenderUnit(plan.Diff, u)
		if err != nil {
			t.Fatal(err)
		}
		texts["unit "+string(rune('0'+i))] = md
	}
	if !strings.Contains(strings.Join(slices.Collect(maps.Values(texts)), "\n"), "shows it whole") {
		t.Error("no unit cut a long line; the hint is not covered")
	}

	// Tool results: previews, pages, and hints towards other tools.
	lim := toolmem.Limits{}
	call := func(name, args string) string {
		a, err := set.Answer(context.Background(), tools.Call{Run: "run-hints", Step: 1, ID: name, Name: name, Args: args}, lim)
		if err != nil {
			t.Fatal(err)
		}
		texts[name+" "+args] = a.Content
		return a.Ref
	}
	ref := call(toolname.ReadFileHunk, `{"path": "big.txt", "start_line": 1, "end_line": 600}`)
	if ref == "" {
		t.Fatal("a large read was not stored")
	}
	call(toolname.ReadToolOutput, `{"ref": "`+ref+`", "start_line": 1, "line_count": 5}`)
	call(toolname.ListProjectFiles, `{"limit": 1}`)
	call(toolname.GetFileDiff, `{"path": "c.go"}`)
	call(toolname.GetFileDiff, `{"path": "."}`)
	call(toolname.ReadFileHunk, `{"path": ".git/config", "start_line": 1, "end_line": 2}`)
	call(toolname.ReadFileHunk, `{"path": "nosuch.go", "start_line": 1, "end_line": 2}`)
	call(toolname.GetDependencies, `{"path": "a.go"}`)
	call("grep", `{}`)
	call(toolname.SubmitReview, `[]`)
	call(toolname.SubmitReview, `{"findings": [{"path": "a.go", "severity": "urgent"}]}`)

	// Pruned turns: a stored preview becomes a stub naming the call that
	// reads it again.
	c := &conversation.History{}
	c.Append(conversation.Message{Role: conversation.User, Layer: conversation.Window, Turn: 1, Content: "first"})
	c.Append(conversation.Message{Role: conversation.Assistant, Layer: conversation.Window, Turn: 1,
		ToolCalls: []conversation.ToolCall{{ID: "c1", Name: toolname.ReadFileHunk, Arguments: `{"path": "a.go"}`}}})
	c.Append(conversation.Message{Role: conversation.Tool, Layer: conversation.Window, Turn: 1, ToolCallID: "c1", Name: toolname.ReadFileHunk, Ref: ref, Content: strings.Repeat("preview line\n", 50)})
	c.Append(conversation.Message{Role: conversation.Assistant, Layer: conversation.Window, Turn: 1, Content: "done"})
	c.Append(conversation.Message{Role: conversation.User, Layer: conversation.Window, Turn: 2, Content: "second"})
	if _, err := c.Prune(conversation.Limits{Turns: 4, Chars: 100}, plan.Counter, nil); err != nil {
		t.Fatal(err)
	}
	stubbed := false
	for _, m := range c.Messages() {
		if strings.HasPrefix(m.Content, conversation.StubPrefix) {
			texts["stub"], stubbed = m.Content, true
		}
	}
	if !stubbed {
		t.Error("no preview was stubbed; the stub is not covered")
	}

	hints := 0
	for what, text := range texts {
		for _, w := range snakeWord.FindAllString(text, -1) {
			if !allowed[w] {
				t.Errorf("%s names %q, which is neither an offered tool nor an argument of one:\n%s", what, w, text)
			}
			hints++
		}
	}
	if hints < 30 {
		t.Errorf("only %d names found in the hints; the collection lost its texts", hints)
	}
}

// TestDocsTools holds the table of tools in docs/context.md (the README
// names them and links there) to the tools offered:
// the same tools in the same order, each with its arguments, optional ones
// (those that take null) marked with "?".
func TestDocsTools(t *testing.T) {
	readme, err := os.ReadFile("../docs/context.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| `([^`]*)` \\|")
	var got []string
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		got = append(got, m[1]+"("+m[2]+")")
	}
	var want []string
	for _, d := range offered(tools.New(tools.Env{}), nil, nil).Definitions() {
		var schema struct {
			Properties map[string]struct{ Type any }
			Required   []string
		}
		if err := json.Unmarshal(d.Parameters, &schema); err != nil {
			t.Fatal(err)
		}
		var args []string
		for _, name := range schema.Required { // every property, in order
			if _, nullable := schema.Properties[name].Type.([]any); nullable {
				name += "?"
			}
			args = append(args, name)
		}
		want = append(want, d.Name+"("+strings.Join(args, ", ")+")")
	}
	if !slices.Equal(got, want) {
		t.Errorf("docs/context.md's tools table:\n%s\nthe tools offered:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
