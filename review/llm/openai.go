package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/review/llm/wire"
)

// EncodeRequest renders req as the exact body to send, shared by Client
// and by in-process models that must produce the same bytes. The messages
// and tools go through package wire's adapter; what depends on the model
// and the server (the token-limit field, the temperature, streaming) is
// decided here.
func EncodeRequest(req Request) ([]byte, error) {
	if req.Model == "" {
		return nil, ErrNoModel
	}
	if len(req.Messages) == 0 {
		return nil, errors.New("model request has no messages")
	}
	w := wire.Request{
		Model:    req.Model,
		Messages: make([]wire.Message, len(req.Messages)),
	}
	for i, m := range req.Messages {
		switch m.Role {
		case conversation.System, conversation.User, conversation.Assistant:
		case conversation.Tool:
			if m.ToolCallID == "" {
				return nil, fmt.Errorf("message %d is a tool result without the ID of its call", i)
			}
		default:
			return nil, fmt.Errorf("message %d has unknown role %q", i, m.Role)
		}
		w.Messages[i] = wire.FromMessage(m)
		if m.Role == conversation.Assistant && req.Reasoning[m.ID] != "" {
			w.Messages[i].ReasoningContent = req.Reasoning[m.ID]
		}
	}
	if len(req.Tools) > 0 {
		w.Tools = make([]wire.Tool, len(req.Tools))
		for i, d := range req.Tools {
			w.Tools[i] = wire.FromDefinition(d)
		}
		choice, err := wire.ToolChoice(req.ToolChoice, req.Tools)
		if err != nil {
			return nil, err
		}
		w.ToolChoice = choice
	} else if req.ToolChoice != "" && req.ToolChoice != "auto" && req.ToolChoice != "none" {
		return nil, fmt.Errorf("tool choice %q needs tools, but the request offers none", req.ToolChoice)
	}
	if Lookup(req.Model).Reasoning {
		// Reasoning models reject max_tokens and any temperature but the
		// default, so the limit moves and the temperature is left out.
		w.MaxCompletionTokens = req.MaxTokens
	} else {
		w.MaxTokens = req.MaxTokens
		w.Temperature = req.Temperature
	}
	// A field the server refused moves the limit to the one it accepts.
	switch req.maxField {
	case "max_tokens":
		w.MaxTokens, w.MaxCompletionTokens = w.MaxTokens+w.MaxCompletionTokens, 0
	case "max_completion_tokens":
		w.MaxTokens, w.MaxCompletionTokens = 0, w.MaxTokens+w.MaxCompletionTokens
	}
	if req.stream {
		w.Stream = true
		if req.streamUsage {
			w.StreamOptions = &wire.StreamOptions{IncludeUsage: true}
		}
	}
	body, err := w.Encode()
	if err != nil {
		return nil, fmt.Errorf("encode model request: %w", err)
	}
	return body, nil
}

// DecodeReply parses a successful response body. Bodies that are not a
// chat completion (HTML from a proxy, an empty object, an error object sent
// with HTTP 200) are errors, never panics.
func DecodeReply(status int, body []byte) (*Reply, error) {
	resp, err := wire.DecodeCompletion(body)
	var u wire.Usage
	if err == nil {
		u, err = resp.Tokens()
	}
	if err != nil {
		return nil, fmt.Errorf("%w (HTTP %d, %d bytes): %v: check that OPENAI_BASE_URL points at an OpenAI-compatible API", ErrBadResponse, status, len(body), err)
	}
	if len(resp.Choices) == 0 {
		if apiErr, ok := decodeAPIError(status, body); ok {
			return nil, apiErr
		}
		return nil, fmt.Errorf("%w (HTTP %d): the reply has no choices", ErrBadResponse, status)
	}
	return reply(status, body, resp.Choices[0], u)
}

// reply is the Reply of a completion's first choice.
func reply(status int, body []byte, choice wire.Choice, u wire.Usage) (*Reply, error) {
	msg := choice.Message.ToMessage()
	if msg.Role != conversation.Assistant {
		return nil, fmt.Errorf("%w (HTTP %d): the reply's role is %q, not assistant", ErrBadResponse, status, msg.Role)
	}
	fillCallIDs(msg.ToolCalls, body)
	r := &Reply{
		Message:      msg,
		Reasoning:    choice.Message.ReasoningContent,
		FinishReason: choice.FinishReason,
		Usage: Usage{
			Prompt:     u.PromptTokens,
			Completion: u.CompletionTokens,
			Total:      u.TotalTokens,
		},
	}
	if d := u.PromptTokensDetails; d != nil {
		r.Usage.Cached = d.CachedTokens
	}
	if d := u.CompletionTokensDetails; d != nil {
		r.Usage.Reasoning = d.ReasoningTokens
	}
	if r.Usage.Cached == 0 {
		// DeepSeek reports its prompt cache at the top level of usage.
		r.Usage.Cached = u.PromptCacheHit
	}
	return r, nil
}

// fillCallIDs names tool calls that came without an ID, as some local
// servers send them: a tool result must refer to its call, and an empty
// tool_call_id is rejected in the next request. The IDs derive from the
// response so a replayed run gets the same ones.
func fillCallIDs(calls []conversation.ToolCall, body []byte) {
	var prefix string
	for i := range calls {
		if calls[i].ID != "" {
			continue
		}
		if prefix == "" {
			sum := sha256.Sum256(body)
			prefix = "call_" + hex.EncodeToString(sum[:6])
		}
		calls[i].ID = fmt.Sprintf("%s_%d", prefix, i)
	}
}
