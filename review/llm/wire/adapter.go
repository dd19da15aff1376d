package wire

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/tools"
)

// Placeholders for messages that would otherwise go out without content:
// most endpoints reject a tool or user message without one.
const (
	emptyToolOutput = "(empty output)"
	emptyMessage    = "(empty message)"
)

// emptyParameters is sent for a tool that declares no parameters: the
// function's parameters must be a JSON Schema object, never null.
var emptyParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// FromMessage converts a conversation message to its wire form. Only what
// the provider reads is carried over: layer, turn, ID and ref stay with
// us, and a tool result's Name is not part of the chat-completions tool
// message. Reasoning is the caller's to add.
func FromMessage(m conversation.Message) Message {
	w := Message{
		Role:       string(m.Role),
		Content:    m.Content,
		ToolCallID: m.ToolCallID,
	}
	if len(m.ToolCalls) > 0 {
		w.ToolCalls = make([]ToolCall, len(m.ToolCalls))
		for i, tc := range m.ToolCalls {
			args := tc.Arguments
			if args == "" {
				args = "{}" // the field is required
			}
			w.ToolCalls[i] = ToolCall{ID: tc.ID, Type: TypeFunction, Function: FunctionCall{Name: tc.Name, Arguments: args}}
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

// ToMessage converts a request's message back: role, content and tool
// calls, as the model saw them.
func (w Message) ToMessage() conversation.Message {
	return conversation.Message{Role: conversation.Role(w.Role), Content: w.Content, ToolCallID: w.ToolCallID, ToolCalls: calls(w.ToolCalls)}
}

// Conversation is the request's messages as conversation messages.
func (r *Request) Conversation() []conversation.Message {
	out := make([]conversation.Message, len(r.Messages))
	for i, m := range r.Messages {
		out[i] = m.ToMessage()
	}
	return out
}

// ToMessage converts a completion's answer. Content and tool calls (IDs,
// names and arguments byte for byte, in order) survive a round trip
// through FromMessage. A refusal becomes the content so the agent sees why
// the model declined; reasoning_content is not part of the message.
func (a *Answer) ToMessage() conversation.Message {
	m := conversation.Message{Role: conversation.Role(a.Role), Content: a.Text(), ToolCalls: calls(a.ToolCalls)}
	if m.Role == "" {
		m.Role = conversation.Assistant
	}
	if m.Content == "" && a.Refusal != nil {
		m.Content = *a.Refusal
	}
	return m
}

func calls(w []ToolCall) []conversation.ToolCall {
	if len(w) == 0 {
		return nil
	}
	out := make([]conversation.ToolCall, len(w))
	for i, tc := range w {
		out[i] = conversation.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments}
	}
	return out
}

// FromDefinition is a tool definition's wire form.
func FromDefinition(d tools.Definition) Tool {
	params := d.Parameters
	if len(bytes.TrimSpace(params)) == 0 {
		params = emptyParameters
	}
	return Tool{Function: &Function{Name: d.Name, Description: d.Description, Strict: d.Strict, Parameters: params}, Type: TypeFunction}
}

// Definitions are the request's tool definitions as they were offered.
func (r *Request) Definitions() []tools.Definition {
	var defs []tools.Definition
	for _, t := range r.Tools {
		if t.Function == nil {
			continue
		}
		f := t.Function
		defs = append(defs, tools.Definition{Name: f.Name, Description: f.Description, Parameters: f.Parameters, Strict: f.Strict})
	}
	return defs
}

// ToolChoice is the wire form of a tool choice: a mode, "" for "auto", or
// the name of one of defs to force that function.
func ToolChoice(choice string, defs []tools.Definition) (json.RawMessage, error) {
	switch choice {
	case "":
		return json.RawMessage(`"auto"`), nil
	case "auto", "none", "required":
		return json.Marshal(choice)
	}
	for _, d := range defs {
		if d.Name == choice {
			var c toolChoice
			c.Type, c.Function.Name = TypeFunction, choice
			return json.Marshal(c)
		}
	}
	return nil, fmt.Errorf("tool choice %q is not one of the offered tools", choice)
}
