package review

import (
	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
)

// DryRun describes the plan for machines.
func (p *Plan) DryRun(model string) result.DryRun {
	d := p.Diff
	out := result.DryRun{
		Revisions: result.RevisionsOf(d),
		Model:     model, Tokenizer: p.Counter.Source(), Borrowed: p.borrowed(model),
		Messages: []result.DryRunMessage{}, Tools: []result.DryRunTool{}, Files: []diffctx.Entry{}, Units: []diffctx.Unit{},
		Budget: result.DryRunBudget{
			Budget: p.Budget, Input: p.Budget.Input(), Static: p.Budget.Static(),
			ToolTokens: p.ToolTokens, TotalTokens: p.Tokens(),
		},
		Plan: p.Estimate, Warnings: d.Warnings, Jobs: max(p.Jobs, 1),
		Sources: p.Sources,
	}
	for _, m := range p.Messages {
		out.Messages = append(out.Messages, result.DryRunMessage{Role: m.Role, Layer: m.Layer, Tokens: p.counter().CountMessage(m), Content: m.Content, Learnings: m.Learnings})
	}
	out.Learnings, out.LearningsLeft, out.LearningsFrom = p.Learnings, p.LearningsLeft, p.LearningsFrom
	for _, t := range p.Tools {
		out.Tools = append(out.Tools, result.DryRunTool{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	if len(p.Units) > 0 {
		out.Units = p.Units
	}
	for _, f := range d.Files {
		if f.HasTag(diffctx.TagSteering) {
			out.Steering = append(out.Steering, f.Path)
		}
	}
	if p.Context != nil {
		out.Files = p.Context.Files
		out.Budget.ContextTokens = p.Context.Tokens
		out.Budget.ContextBudget = p.Context.Budget
	}
	// Last, once everything is counted: a server may have failed on any
	// of it.
	if err := p.Counter.Failed(); err != nil {
		out.TokenizerFailed = err.Error()
	}
	out.Estimated = p.Estimated || out.Borrowed || out.TokenizerFailed != ""
	return out
}

// borrowed reports whether model is counted with another's tokenizer: a
// local model (Qwen, Llama, Mistral…) or an unknown one is counted with
// OpenAI's encoding, which only approximates its own, unless its server
// counts.
func (p *Plan) borrowed(model string) bool {
	return p.Counter.Mode() == conversation.Tiktoken && llm.Lookup(model).Borrowed
}
