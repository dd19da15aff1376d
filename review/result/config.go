package result

import (
	"sync"
	"time"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/internal/redact"
	"github.com/reviewdev/review/review/learn"
	"github.com/reviewdev/review/review/llm"
)

// Config is how a run is made: the model and its endpoint, the budget, what
// the diff leaves out, redaction and caps. It is the one configuration
// struct: cmd fills it from flags, the environment and configuration files
// (cmd/config embeds it in its settings), and Prepare, the agent and the
// model client read it from here alone.
type Config struct {
	Model   string
	BaseURL string
	// BaseURLFrom names what set BaseURL, as the user wrote it
	// ("--base-url", "OPENAI_BASE_URL", "base_url in FILE:LINE"); "" for
	// the default. Errors about the endpoint name it.
	BaseURLFrom string
	// Tokenizer is conversation.Tiktoken, Estimate or Server.
	Tokenizer string
	// OffDiff decides what happens to findings outside the changed hunks.
	OffDiff OffDiff
	Budget  conversation.Budget
	// Instructions from configuration are appended to the system prompt.
	Instructions string
	// Learnings are the team's learnings (package learn), read like the
	// configuration: from the base revision in CI. Those that apply to a
	// change are a section of its static layer. LearningsFrom names where
	// they were read (".review/learnings.md@origin/main", "--learnings
	// FILE"); "" when none were.
	Learnings     []learn.Learning
	LearningsFrom string
	// Ignore globs leave files out of the diff context and the tools.
	Ignore []string
	// Price, if set, prices the model's tokens (USD per million).
	Price *llm.Price
	// Timeout bounds the wait for each model response to start, and then
	// the reading of it, per attempt.
	Timeout time.Duration
	// Stream asks for answers as server-sent events; FirstByteTimeout
	// bounds the wait for a streamed answer's first byte and any silence
	// in it.
	Stream           bool
	FirstByteTimeout time.Duration
	// Caps bound what a review may spend: units, prompt tokens, cost.
	Caps Caps
	// Jobs is how many units of a review in units run side by side, each
	// its own tool loop over the same static layer; 1 runs them in
	// sequence, each with the earlier units' turns as its history. 0
	// takes what the server says it serves at once (review.JobsFor).
	Jobs int
	// JobsFrom names what set Jobs ("--jobs", "jobs in .review.yaml:3"),
	// for a person; "" when a default did.
	JobsFrom string
	// SummarizeUnits has one more model request write the summary of a
	// review in units from the units' summaries and findings; without
	// it, the summary is each unit's, by unit.
	SummarizeUnits bool
	// FindCopies has git detect copies as well as renames.
	FindCopies bool
	// NoNavigation leaves out find_definition, find_references and the
	// overview's lines naming the symbols a change touches, so that a
	// bench can measure a model with and without them.
	NoNavigation bool
	// OverviewSymbols names, under each changed file of the overview, the
	// symbols the change adds, modifies or removes with the uses the head
	// has of them. Off by default: reading the index before the first
	// request costs time as well as the lines' tokens (docs/context.md).
	OverviewSymbols bool
	// ReviewData reviews bulk files (minified, data fixtures, one file
	// holding most of a large change) in priority order like code, rather
	// than after every other file.
	ReviewData bool
	// ExactCounts counts every token figure exactly, even far from every
	// limit, where bounds decide and figures are otherwise estimates.
	ExactCounts bool
	// Redact replaces secrets with placeholders in everything the model
	// is sent and everything stored: the diff, the instructions, the
	// questions, the tools' outputs. Off sends text as it is.
	Redact bool
	// AllowSecrets (path globs) and AllowSecretRules (rule IDs) name
	// known fixtures: their secrets are still redacted, but not reported
	// as findings.
	AllowSecrets, AllowSecretRules []string
	// ReportAllSecrets reports generic secrets (a password, a random
	// value named key or token) found in documentation, test fixtures and
	// minified code too, which are otherwise only redacted.
	ReportAllSecrets bool
	// Headers are added to every model request; values may hold ${VAR}.
	Headers map[string]string
	// ExtraBody fields are added to every model request body.
	ExtraBody map[string]any
	// WindowUnknown is set when no context window was given and the model
	// table does not know the model: the window is a guess, to be asked of
	// the server.
	WindowUnknown bool
	// ReserveSet is set when the answer reserve was given.
	ReserveSet bool
	// Quiet is which findings the review shows: ungrounded ones, the
	// least severity, how many at most.
	Quiet Quiet
	// Verify has one more request per unit, after it submits, check its
	// findings against their evidence and drop the ones it rejects.
	Verify bool
	// WindowFrom names what set the context window ("--context-window",
	// "context_window in .review.yaml:3"); "" for the model table's or
	// the guess.
	WindowFrom string
}

// theRedactor is the process's secret scanner: its rules compile once.
var theRedactor = sync.OnceValue(func() *redact.Redactor { return redact.New(redact.Options{}) })

// Redactor is the scanner the configuration asks for: nil when redaction
// is off, which sends and stores text as it is.
func (c *Config) Redactor() *redact.Redactor {
	if !c.Redact {
		return nil
	}
	return theRedactor()
}

// OffDiff says what happens to a finding on a line the change did not touch.
type OffDiff string

// OffDiff policies.
const (
	// KeepFileLevel keeps the finding on its file, without a line.
	KeepFileLevel OffDiff = "file"
	// DropOffDiff drops it, recording why.
	DropOffDiff OffDiff = "drop"
)

// DefaultPromptBudget is the prompt tokens a review is planned to take at
// most unless configured: a change of 40 files of 300 new lines each,
// which a 32k window reviews in 40 units, is expected to take 1.7 million,
// and a change of thousands of files is left in part, and says so.
const DefaultPromptBudget = 3_000_000

// Caps bound what a review may spend. A zero field is no bound.
type Caps struct {
	// MaxUnits bounds the units of a diff reviewed in units; the files of
	// the others are reported as not reviewed.
	MaxUnits int
	// Budget bounds the prompt tokens the review is expected to take
	// (Estimate.PromptTokens): the units past it are left out, as past
	// MaxUnits. It plans, and holds no request back: MaxPromptTokens
	// does.
	Budget int
	// MaxPromptTokens bounds the prompt tokens of all requests, by our
	// count or the server's, whichever is larger.
	MaxPromptTokens int
	// MaxCost bounds the cost in US dollars, prompts at Price and each
	// answer counted as long as the answer reserve allows.
	MaxCost float64
	// Price is what MaxCost is reckoned in: the configured price, else
	// the model's list price. It must be set with MaxCost.
	Price *llm.Price
}

// How many units run side by side unless configured: what the server says
// it serves at once, else DefaultJobs for a hosted API, LocalJobs for a
// server on this machine or network that does not say.
const (
	DefaultJobs = 8
	LocalJobs   = 4
)
