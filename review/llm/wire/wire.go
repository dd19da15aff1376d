package wire

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/reviewdev/review/internal/text"
)

// Request is a chat-completions request body. The token limits and the
// temperature are pointers or omitted when zero as the endpoint expects
// them: a temperature of 0 is sent (go-openai's own request type drops
// it), an absent one leaves the server's default.
type Request struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	Tools    []Tool    `json:"tools,omitempty"`
	// ToolChoice is a mode string ("auto", "none", "required") or the
	// object naming one function, as encoded JSON.
	ToolChoice          json.RawMessage `json:"tool_choice,omitempty"`
	Temperature         *float32        `json:"temperature,omitempty"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	Stream              bool            `json:"stream,omitempty"`
	StreamOptions       *StreamOptions  `json:"stream_options,omitempty"`
}

// StreamOptions asks a streamed answer for its usage in a last event.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage,omitempty"`
}

// Message is one message of a request. Content may arrive as an array of
// parts in a body another client wrote; decoding joins their text.
type Message struct {
	Role             string     `json:"role"`
	Content          string     `json:"content,omitempty"`
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string     `json:"tool_call_id,omitempty"`
}

// UnmarshalJSON reads a message whose content is a string, null, or an
// array of text parts.
func (m *Message) UnmarshalJSON(b []byte) error {
	type plain Message
	var w struct {
		plain
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	text, _, err := contentText(w.Content)
	if err != nil {
		return err
	}
	*m = Message(w.plain)
	m.Content = text
	return nil
}

// ToolCall is a call of a function, in a request's assistant message or a
// completion. Requests always carry all three fields: the adapter fills an
// empty ID, name or arguments before a call goes back to the server.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall is the function a ToolCall calls, with its arguments as
// the JSON text the model wrote.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// TypeFunction is the one tool type the review uses.
const TypeFunction = "function"

// Tool is a tool offered in a request. Its fields are in name order,
// as go-openai (which encodes a tool as a map) sent them, so requests
// keep their bytes from one version to the next.
type Tool struct {
	Function *Function `json:"function,omitempty"`
	Type     string    `json:"type"`
}

// Function is a tool's definition. Parameters is a JSON Schema object,
// kept as its bytes so a recorded request's definitions read back as sent.
type Function struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Strict      bool            `json:"strict,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// toolChoice is the tool_choice object that forces one function.
type toolChoice struct {
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

// Encode renders r as the body to send. <, > and & go as they are, not
// as json.Marshal's \u003c, \u003e and \u0026: a body is never HTML, and
// code is full of them (<-, &&, ->, generics), each six bytes escaped.
func (r *Request) Encode() ([]byte, error) { return text.JSON(r) }

// DecodeRequest reads a request body, as recorded or received.
func DecodeRequest(body []byte) (*Request, error) {
	var r Request
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ForcesFunction reports whether the request's tool choice names a
// function rather than a mode.
func (r *Request) ForcesFunction() bool {
	var c toolChoice
	return json.Unmarshal(r.ToolChoice, &c) == nil && c.Type == TypeFunction
}

// Completion is a chat.completion object: a whole answer, or a streamed
// one reassembled, in the field order OpenAI sends. Usage is kept as it
// was received (see Tokens).
type Completion struct {
	ID                string          `json:"id"`
	Object            string          `json:"object"`
	Created           int64           `json:"created"`
	Model             string          `json:"model"`
	Choices           []Choice        `json:"choices"`
	Usage             json.RawMessage `json:"usage,omitempty"`
	SystemFingerprint string          `json:"system_fingerprint,omitempty"`
}

// Choice is one answer of a completion.
type Choice struct {
	Index        int       `json:"index"`
	Message      Answer    `json:"message"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason string    `json:"finish_reason"`
}

// Answer is the assistant message of a completion. Content and Refusal
// are null when absent, as servers send them.
type Answer struct {
	Role             string     `json:"role"`
	Content          *string    `json:"content"`
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	Refusal          *string    `json:"refusal"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
}

// UnmarshalJSON reads an answer whose content is a string, null, or an
// array of text parts.
func (a *Answer) UnmarshalJSON(b []byte) error {
	type plain Answer
	var w struct {
		plain
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	text, ok, err := contentText(w.Content)
	if err != nil {
		return err
	}
	*a = Answer(w.plain)
	if ok {
		a.Content = &text
	}
	return nil
}

// Text is the answer's content, "" when it has none.
func (a *Answer) Text() string {
	if a.Content == nil {
		return ""
	}
	return *a.Content
}

// Usage is the token usage a server reports. DeepSeek reports its prompt
// cache at the top level (PromptCacheHit); OpenAI in the details.
type Usage struct {
	PromptTokens            int                `json:"prompt_tokens"`
	CompletionTokens        int                `json:"completion_tokens"`
	TotalTokens             int                `json:"total_tokens"`
	PromptTokensDetails     *PromptDetails     `json:"prompt_tokens_details"`
	CompletionTokensDetails *CompletionDetails `json:"completion_tokens_details"`
	// PromptCacheHit is read leniently (see Tokens): a server that
	// sends something else there still has its answer read.
	PromptCacheHit int `json:"-"`
}

// PromptDetails break down the prompt tokens.
type PromptDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

// CompletionDetails break down the completion tokens.
type CompletionDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

// DecodeCompletion reads a chat completion. A body that is not JSON, or
// whose fields have the wrong types, is an error; a body without choices
// is not (the caller decides what an empty answer means).
func DecodeCompletion(body []byte) (*Completion, error) {
	var c Completion
	if err := json.Unmarshal(body, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

// Tokens decodes the completion's usage; absent or null is all zeros.
func (c *Completion) Tokens() (Usage, error) {
	var u Usage
	if len(c.Usage) == 0 || string(c.Usage) == "null" {
		return u, nil
	}
	if err := json.Unmarshal(c.Usage, &u); err != nil {
		return u, err
	}
	var ds struct {
		Hit int `json:"prompt_cache_hit_tokens"`
	}
	if json.Unmarshal(c.Usage, &ds) == nil {
		u.PromptCacheHit = ds.Hit
	}
	return u, nil
}

// Encode renders c as a server that does not stream would have sent it,
// text unescaped (no \u003c for <): a streamed answer is recorded as the
// completion its events make.
func (c *Completion) Encode() ([]byte, error) { return text.JSON(c) }

// contentText reads a message content: a string, null (ok false), or an
// array of parts whose text is joined. Any other JSON is an error.
func contentText(raw json.RawMessage) (text string, ok bool, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false, nil
	}
	if raw[0] == '"' {
		err := json.Unmarshal(raw, &text)
		return text, err == nil, err
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", false, errors.New("message content is neither a string nor an array of parts")
	}
	var b []byte
	for _, p := range parts {
		if p.Type == "text" || p.Type == "" {
			b = append(b, p.Text...)
		}
	}
	return string(b), true, nil
}
