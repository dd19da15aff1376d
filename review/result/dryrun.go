package result

import (
	"encoding/json"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/review/learn"
)

// DryRun is the machine-readable view of what the first request would carry.
type DryRun struct {
	Revisions
	Model     string `json:"model"`
	Tokenizer string `json:"tokenizer"`
	// Estimated says the token figures are estimates: the first request
	// is far from every limit, so upper bounds planned it and nothing
	// was counted exactly (--exact-counts counts them).
	Estimated bool `json:"estimated"`
	// Borrowed says the model's own tokenizer is not known: the counts
	// are made with Tokenizer, which the model may not share, and are
	// estimates of what the server will count.
	Borrowed bool `json:"tokenizer_borrowed,omitempty"`
	// TokenizerFailed is the server tokenizer's first failure: the texts
	// it failed to count were counted with tiktoken instead, and the
	// counts are estimates.
	TokenizerFailed string          `json:"tokenizer_failed,omitempty"`
	Messages        []DryRunMessage `json:"messages"`
	// Learnings are the team's learnings the model would read, and
	// LearningsFrom where they were read; LearningsLeft those in force
	// that the budget left out.
	Learnings     []learn.Learning `json:"learnings,omitempty"`
	LearningsFrom string           `json:"learnings_from,omitempty"`
	LearningsLeft []learn.Learning `json:"learnings_left_out,omitempty"`
	Tools         []DryRunTool     `json:"tools"`
	Files         []diffctx.Entry  `json:"files"`
	// Units are the turns a diff too large for the diff context is
	// reviewed in; empty when it fits.
	Units []diffctx.Unit `json:"units"`
	// Jobs is how many units run side by side; 1 runs them in sequence.
	Jobs int `json:"jobs"`
	// Sources says where the window and Jobs came from, and what a real
	// run asks the server that the dry run, which sends nothing, did not.
	Sources DryRunSources `json:"sources"`
	Budget  DryRunBudget  `json:"budget"`
	// Plan is what the review would send at most, and what the caps
	// leave out.
	Plan Estimate `json:"plan"`
	// Warnings are git's, from diffing.
	Warnings []string `json:"warnings,omitempty"`
	// Settings says whose .review.yaml the run's settings and the
	// repository's instructions are read from; the command sets it.
	Settings *DryRunSettings `json:"settings,omitempty"`
	// Steering are the changed files that instruct AI agents and
	// reviewers (diffctx.TagSteering): data to review, not instructions.
	Steering []string `json:"steering,omitempty"`
}

// DryRunSettings is which revision's .review.yaml a run reads.
type DryRunSettings struct {
	// From is SettingsFromBase, the base revision of the review (the
	// default in CI, so that a change cannot loosen its own review), or
	// SettingsFromWorktree.
	From string `json:"from"`
	// Revision is the base as named, when From is the base.
	Revision string `json:"revision,omitempty"`
	// File names the file read, with its revision; empty when there is
	// none.
	File string `json:"file,omitempty"`
}

// Where the settings of a run come from (DryRunSettings.From).
const (
	SettingsFromBase     = "base"
	SettingsFromWorktree = "worktree"
)

// DryRunMessage is one message with our token count.
type DryRunMessage struct {
	Role    conversation.Role  `json:"role"`
	Layer   conversation.Layer `json:"layer"`
	Tokens  int                `json:"tokens"`
	Content string             `json:"content"`
	// Learnings marks the message that holds the team's learnings.
	Learnings bool `json:"learnings,omitempty"`
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

// DryRunSources says where a dry run, which sends nothing anywhere, took
// what a real run may ask the server.
type DryRunSources struct {
	// Window names where the context window came from: a setting
	// ("--context-window", "context_window in .review.yaml:3"), "the
	// model table", or a guess.
	Window string `json:"window"`
	// Jobs names where DryRun.Jobs came from: a setting ("--jobs"), or
	// the rule a run follows when none says ("hosted API").
	Jobs string `json:"jobs"`
	// AtRunTime is what a real run asks the server, one line each.
	AtRunTime []string `json:"at_run_time,omitempty"`
}
