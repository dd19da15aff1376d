package llm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/tools"
)

// Placeholders for messages that would otherwise go out without content.
// go-openai drops an empty content (omitempty), and most endpoints reject a
// tool or user message without one.
const (
	emptyToolOutput = "(empty output)"
	emptyMessage    = "(empty message)"
)

// emptyParameters is sent for a tool that declares no parameters: the
// function's parameters must be a JSON Schema object, never null.
var emptyParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// chatRequest is the chat-completions request body. It is ours rather than
// go-openai's ChatCompletionRequest because that type drops a temperature of
// 0 (omitempty on a float32), and a review asked to run at temperature 0 must
// really run at 0. Messages and tools keep go-openai's wire types.
type chatRequest struct {
	Model               string                         `json:"model"`
	Messages            []openai.ChatCompletionMessage `json:"messages"`
	Tools               []openai.Tool                  `json:"tools,omitempty"`
	ToolChoice          any                            `json:"tool_choice,omitempty"`
	Temperature         *float32                       `json:"temperature,omitempty"`
	MaxTokens           int                            `json:"max_tokens,omitempty"`
	MaxCompletionTokens int                            `json:"max_completion_tokens,omitempty"`
	Stream              bool                           `json:"stream,omitempty"`
	StreamOptions       *openai.StreamOptions          `json:"stream_options,omitempty"`
}

// EncodeRequest renders req as the exact body to send: the first half of
// the wire adapter, shared by Client and by in-process models that must
// produce the same bytes.
func EncodeRequest(req Request) ([]byte, error) {
	if req.Model == "" {
		return nil, ErrNoModel
	}
	if len(req.Messages) == 0 {
		return nil, errors.New("model request has no messages")
	}
	w := chatRequest{
		Model:    req.Model,
		Messages: make([]openai.ChatCompletionMessage, len(req.Messages)),
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
		w.Messages[i] = toWire(m)
		if m.Role == conversation.Assistant && req.Reasoning[m.ID] != "" {
			w.Messages[i].ReasoningContent = req.Reasoning[m.ID]
		}
	}
	if len(req.Tools) > 0 {
		w.Tools = make([]openai.Tool, len(req.Tools))
		for i, d := range req.Tools {
			w.Tools[i] = wireTool(d)
		}
		choice, err := toolChoice(req.ToolChoice, req.Tools)
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
			w.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
		}
	}
	body, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("encode model request: %w", err)
	}
	return body, nil
}

func wireTool(d tools.Definition) openai.Tool {
	params := d.Parameters
	if len(bytes.TrimSpace(params)) == 0 {
		params = emptyParameters
	}
	return openai.Tool{
		Type: openai.ToolTypeFunction,
		Function: &openai.FunctionDefinition{
			Name:        d.Name,
			Description: d.Description,
			Strict:      d.Strict,
			Parameters:  params,
		},
	}
}

// toolChoice maps Request.ToolChoice to its wire form: a mode string, or the
// named-function object that forces one tool.
func toolChoice(choice string, defs []tools.Definition) (any, error) {
	switch choice {
	case "":
		return "auto", nil
	case "auto", "none", "required":
		return choice, nil
	}
	for _, d := range defs {
		if d.Name == choice {
			return openai.ToolChoice{
				Type:     openai.ToolTypeFunction,
				Function: openai.ToolFunction{Name: choice},
			}, nil
		}
	}
	return nil, fmt.Errorf("tool choice %q is not one of the offered tools", choice)
}

// toWire converts a conversation message to go-openai's type. Only what the
// provider reads is carried over: layer, turn, ID and ref stay with us, and a
// tool result's Name is not part of the chat-completions tool message.
func toWire(m conversation.Message) openai.ChatCompletionMessage {
	w := openai.ChatCompletionMessage{
		Role:       string(m.Role),
		Content:    m.Content,
		ToolCallID: m.ToolCallID,
	}
	if len(m.ToolCalls) > 0 {
		w.ToolCalls = make([]openai.ToolCall, len(m.ToolCalls))
		for i, tc := range m.ToolCalls {
			args := tc.Arguments
			if args == "" {
				// go-openai omits empty arguments, and the field is required.
				args = "{}"
			}
			w.ToolCalls[i] = openai.ToolCall{
				ID:       tc.ID,
				Type:     openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: tc.Name, Arguments: args},
			}
		}
	}
	if w.Content == "" && len(w.ToolCalls) == 0 {
		if m.Role == conversation.Tool {
			w.Content = emptyToolOutput
		} else {
			w.Content = emptyMessage
		}
	}
	return w
}

// fromWire converts a reply message back. Content and tool calls (IDs, names
// and arguments byte for byte, in order) survive a round trip through toWire.
// A refusal becomes the content so the agent sees why the model declined;
// reasoning_content is not part of the message: DecodeReply puts it in
// Reply.Reasoning, and only the running loop sends it back.
func fromWire(w openai.ChatCompletionMessage) conversation.Message {
	m := conversation.Message{
		Role:    conversation.Role(w.Role),
		Content: w.Content,
	}
	if m.Role == "" {
		m.Role = conversation.Assistant
	}
	if m.Content == "" {
		var parts []string
		for _, p := range w.MultiContent {
			if p.Type == openai.ChatMessagePartTypeText || p.Type == "" {
				parts = append(parts, p.Text)
			}
		}
		m.Content = strings.Join(parts, "")
	}
	if m.Content == "" {
		m.Content = w.Refusal
	}
	if len(w.ToolCalls) > 0 {
		m.ToolCalls = make([]conversation.ToolCall, len(w.ToolCalls))
		for i, tc := range w.ToolCalls {
			m.ToolCalls[i] = conversation.ToolCall{
				ID:        tc.ID,
				Name:      tc.Function.Name,
				Arguments: tc.Function.Arguments,
			}
		}
	}
	return m
}

// DecodeReply parses a successful response body. Bodies that are not a
// chat completion (HTML from a proxy, an empty object, an error object sent
// with HTTP 200) are errors, never panics.
func DecodeReply(status int, body []byte) (*Reply, error) {
	var resp openai.ChatCompletionResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("%w (HTTP %d, %d bytes): %v: check that OPENAI_BASE_URL points at an OpenAI-compatible API", ErrBadResponse, status, len(body), err)
	}
	if len(resp.Choices) == 0 {
		if apiErr, ok := decodeAPIError(status, body); ok {
			return nil, apiErr
		}
		return nil, fmt.Errorf("%w (HTTP %d): the reply has no choices", ErrBadResponse, status)
	}
	choice := resp.Choices[0]
	msg := fromWire(choice.Message)
	if msg.Role != conversation.Assistant {
		return nil, fmt.Errorf("%w (HTTP %d): the reply's role is %q, not assistant", ErrBadResponse, status, msg.Role)
	}
	fillCallIDs(msg.ToolCalls, body)
	r := &Reply{
		Message:      msg,
		Reasoning:    choice.Message.ReasoningContent,
		FinishReason: string(choice.FinishReason),
		Usage: Usage{
			Prompt:     resp.Usage.PromptTokens,
			Completion: resp.Usage.CompletionTokens,
			Total:      resp.Usage.TotalTokens,
		},
	}
	if d := resp.Usage.PromptTokensDetails; d != nil {
		r.Usage.Cached = d.CachedTokens
	}
	if d := resp.Usage.CompletionTokensDetails; d != nil {
		r.Usage.Reasoning = d.ReasoningTokens
	}
	if r.Usage.Cached == 0 {
		// DeepSeek reports its prompt cache at the top level of usage.
		var ds struct {
			Usage struct {
				Hit int `json:"prompt_cache_hit_tokens"`
			} `json:"usage"`
		}
		if json.Unmarshal(body, &ds) == nil {
			r.Usage.Cached = ds.Usage.Hit
		}
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
