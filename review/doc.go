// Package review is the agent. It builds the conversation (static layer:
// system prompt, tool definitions and diff context; then the turns), runs the
// tool loop against a chat-completion model, stores every tool output in tool
// memory and hands the model a preview, records each request exactly as sent
// so a run can be replayed, and turns the final submit_review call into
// findings checked against the diff. Package report renders them for people
// and for CI.
//
// It is the only package that knows a provider's wire types: openai.go adapts
// conversation messages to and from go-openai, as a second provider would
// have an adapter of its own.
package review
