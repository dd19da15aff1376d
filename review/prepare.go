package review

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/tools"
)

// Options configure a review. cmd fills them from flags, environment and
// configuration files.
type Options struct {
	Dir  string // any directory inside the repository
	Base string
	Head string

	Model     string
	Tokenizer string // conversation.Tiktoken or conversation.Estimate
	Budget    conversation.Budget

	// Instructions from the repository's configuration, appended to the
	// system prompt.
	Instructions string
	// Ignore globs leave files out of the diff context and the tools.
	Ignore []string
	// Question, if set, is the first turn instead of the review task.
	Question string
}

// Plan is everything the first request of a review is built from: the diff,
// its rendered context, and the messages and tools the model will see.
type Plan struct {
	Diff    *diffctx.Diff
	Context *diffctx.Context
	// Units, for a diff whose hunks do not fit the static context, are the
	// shares of its hunks reviewed one per turn; Context then holds the
	// header and overview only, and the first turn carries the first unit.
	Units []diffctx.Unit
	// Messages are the static layer followed by the first turn's task.
	Messages []conversation.Message
	Tools    []tools.Definition
	// ToolTokens is our count of the tool definitions as sent.
	ToolTokens int
	Budget     conversation.Budget
	Counter    *conversation.Counter
}

// Prepare loads the diff and builds the first request's context. A diff with
// no files yields a Plan with no messages; callers report "nothing to review".
func Prepare(ctx context.Context, opts Options) (*Plan, error) {
	if err := opts.Budget.Validate(); err != nil {
		return nil, err
	}
	counter, err := conversation.NewCounter(llm.Lookup(opts.Model).Encoding, opts.Tokenizer)
	if err != nil {
		return nil, err
	}
	d, err := diffctx.Load(ctx, diffctx.Options{Dir: opts.Dir, Base: opts.Base, Head: opts.Head, Ignore: opts.Ignore})
	if err != nil {
		return nil, err
	}
	p := &Plan{Diff: d, Budget: opts.Budget, Counter: counter}
	if len(d.Files) == 0 {
		return p, nil
	}
	set := tools.New(tools.Env{Root: d.Root, Head: d.HeadSHA, Base: d.MergeBase, Ignore: opts.Ignore})
	p.Tools = offered(set, nil).Definitions()
	defs, err := json.Marshal(p.Tools)
	if err != nil {
		return nil, fmt.Errorf("encoding tool definitions: %w", err)
	}
	p.ToolTokens = counter.Count(string(defs))

	sys := conversation.Message{ID: "m1", Role: conversation.System, Content: SystemPrompt(opts.Instructions), Layer: conversation.Static}
	// The diff context gets the static share of the input budget, less what
	// the system prompt and tool definitions already take of it.
	room := opts.Budget.Static() - counter.CountMessage(sys) - p.ToolTokens
	p.Context = diffctx.Render(d, max(room, 0), counter)
	task := taskPrompt(d.Base, d.Head)
	if opts.Question != "" {
		task = opts.Question
	} else {
		// A review whose hunks do not fit is split into units; a question
		// is answered with what fits and the tools.
		p.Context, p.Units = splitUnits(d, p.Context, room, counter)
		if len(p.Units) > 0 {
			task = unitPrompt(d, 1, len(p.Units), p.Units[0].Markdown)
		}
	}
	p.Messages = []conversation.Message{
		sys,
		{ID: "m2", Role: conversation.User, Content: p.Context.Markdown, Layer: conversation.Static},
		{ID: "m3", Role: conversation.User, Content: task, Layer: conversation.Loop, Turn: 1},
	}
	return p, nil
}

// Tokens is our count of everything the first request carries.
func (p *Plan) Tokens() int {
	return p.Counter.CountMessages(p.Messages) + p.ToolTokens
}
