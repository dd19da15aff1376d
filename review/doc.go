// Package review is the agent. It builds the conversation (static layer:
// system prompt, tool definitions and diff context; then the turns), runs the
// tool loop against a chat-completion model, stores every tool output in tool
// memory and hands the model a preview, records each request exactly as sent
// so a run can be replayed, and turns the final submit_review call into
// findings checked against the diff, each with its evidence: the lines it
// cites that the model was shown, from the diff context or a stored tool
// output (evidence.go), and, when asked for, checked once more by one
// request per unit (verify.go). Large diffs are reviewed in units, side
// by side (side.go) or in sequence (units.go), and every review is planned
// and priced before its first request: units, requests, prompt tokens and
// cost at most, within the caps (plan.go).
//
// It speaks to the model only through the llm.Model interface; the wire
// protocol lives in review/llm, the result it produces (findings, the
// result, usage, the dry run, the run's configuration) in review/result,
// output formats in review/report and posting in review/host/github and
// review/host/gitlab, behind review/host's seam. None of those imports this
// package.
package review
