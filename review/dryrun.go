package review

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/diffctx"
)

// DryRun is the machine-readable view of what the first request would carry.
type DryRun struct {
	Revisions
	Model     string          `json:"model"`
	Tokenizer string          `json:"tokenizer"`
	Messages  []DryRunMessage `json:"messages"`
	Tools     []DryRunTool    `json:"tools"`
	Files     []diffctx.Entry `json:"files"`
	// Units are the turns a diff too large for the diff context is
	// reviewed in; empty when it fits.
	Units  []diffctx.Unit `json:"units"`
	Budget DryRunBudget   `json:"budget"`
}

// DryRunMessage is one message with our token count.
type DryRunMessage struct {
	Role    conversation.Role  `json:"role"`
	Layer   conversation.Layer `json:"layer"`
	Tokens  int                `json:"tokens"`
	Content string             `json:"content"`
}

// DryRunTool is one tool definition offered to the model.
type DryRunTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// DryRunBudget is the budget and how much of it the first request uses.
type DryRunBudget struct {
	conversation.Budget
	Input         int `json:"input"`
	Static        int `json:"static"`
	ContextTokens int `json:"context_tokens"`
	ContextBudget int `json:"context_budget"`
	ToolTokens    int `json:"tool_tokens"`
	TotalTokens   int `json:"total_tokens"`
}

// DryRun describes the plan for machines.
func (p *Plan) DryRun(model string) DryRun {
	d := p.Diff
	out := DryRun{
		Revisions: revisionsOf(d),
		Model:     model, Tokenizer: p.tokenizer(),
		Messages: []DryRunMessage{}, Tools: []DryRunTool{}, Files: []diffctx.Entry{}, Units: []diffctx.Unit{},
		Budget: DryRunBudget{
			Budget: p.Budget, Input: p.Budget.Input(), Static: p.Budget.Static(),
			ToolTokens: p.ToolTokens, TotalTokens: p.Tokens(),
		},
	}
	for _, m := range p.Messages {
		out.Messages = append(out.Messages, DryRunMessage{Role: m.Role, Layer: m.Layer, Tokens: p.Counter.CountMessage(m), Content: m.Content})
	}
	for _, t := range p.Tools {
		out.Tools = append(out.Tools, DryRunTool{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	if len(p.Units) > 0 {
		out.Units = p.Units
	}
	if p.Context != nil {
		out.Files = p.Context.Files
		out.Budget.ContextTokens = p.Context.Tokens
		out.Budget.ContextBudget = p.Context.Budget
	}
	return out
}

func (p *Plan) tokenizer() string {
	if p.Counter.Mode() == conversation.Estimate {
		return conversation.Estimate
	}
	return conversation.Tiktoken + " " + p.Counter.Encoding()
}

// WriteDryRun prints the messages of the first request for a person: each
// message whole, headed by its role, layer and token count, then the budget.
func (p *Plan) WriteDryRun(w io.Writer, model string) error {
	d := p.Diff
	var b strings.Builder
	fmt.Fprintf(&b, "Dry run: %s (%s) → %s (%s), merge base %s\n", d.Base, short(d.BaseSHA), d.Head, short(d.HeadSHA), short(d.MergeBase))
	fmt.Fprintf(&b, "Model %s, tokenizer %s. Nothing is sent.\n\n", model, p.tokenizer())
	for i, m := range p.Messages {
		fmt.Fprintf(&b, "━━ message %d · %s · %s layer · %d tokens ━━\n", i+1, m.Role, m.Layer, p.Counter.CountMessage(m))
		b.WriteString(m.Content)
		if !strings.HasSuffix(m.Content, "\n") {
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	names := make([]string, len(p.Tools))
	for i, t := range p.Tools {
		names[i] = t.Name
	}
	fmt.Fprintf(&b, "━━ tools · static layer · %d tokens ━━\n%s\n\n", p.ToolTokens, strings.Join(names, ", "))
	bu := p.Budget
	fmt.Fprintf(&b, "Budget: context window %d, answer reserve %d, input %d tokens.\n", bu.ContextWindow, bu.AnswerReserve, bu.Input())
	if p.Context != nil {
		fmt.Fprintf(&b, "Diff context: %d of %d tokens; %d of %d files inlined.\n", p.Context.Tokens, p.Context.Budget, included(p.Context.Files), len(p.Context.Files))
	}
	if len(p.Units) > 0 {
		fmt.Fprintf(&b, "Units: the hunks do not fit the diff context, so the review takes %d turns, one per unit:\n", len(p.Units))
		for i, u := range p.Units {
			fmt.Fprintf(&b, "  unit %d: %d tokens: %s\n", i+1, u.Tokens, unitFiles(u))
		}
	}
	fmt.Fprintf(&b, "First request: %d tokens (%.1f%% of input).\n", p.Tokens(), 100*float64(p.Tokens())/float64(max(bu.Input(), 1)))
	_, err := io.WriteString(w, b.String())
	return err
}

func included(es []diffctx.Entry) int {
	n := 0
	for _, e := range es {
		if e.Included {
			n++
		}
	}
	return n
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
