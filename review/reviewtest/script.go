package reviewtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"
)

// Step is one scripted answer. Requests to the chat-completions endpoint
// take the steps in order.
type Step struct {
	// Status is the HTTP status; 0 means 200.
	Status int `json:"status,omitempty"`
	// Headers are added to the response, e.g. Retry-After.
	Headers map[string]string `json:"headers,omitempty"`
	// Error, if set, is sent as an OpenAI-style error body instead of a
	// completion. Set Status too: an error body with 200 is what some
	// proxies send.
	Error *ErrorBody `json:"error,omitempty"`
	// Content is the assistant's text.
	Content string `json:"content,omitempty"`
	// Reasoning is sent as the message's reasoning_content, as DeepSeek's
	// and Moonshot's reasoning models do.
	Reasoning string `json:"reasoning_content,omitempty"`
	// RequireReasoning answers 400 "Missing reasoning_content" when an
	// assistant message with tool calls in the request lacks it, as
	// DeepSeek does within a tool loop.
	RequireReasoning bool `json:"require_reasoning,omitempty"`
	// Reject answers 400 with this message when the request body holds
	// the given JSON fragment (e.g. "\"max_completion_tokens\"" or
	// "\"strict\":true"), the way servers refuse a field they lack.
	Reject map[string]string `json:"reject,omitempty"`
	// ToolCalls are the tool calls of the reply, in order.
	ToolCalls []ScriptCall `json:"tool_calls,omitempty"`
	// FinishReason overrides the computed one ("tool_calls" when there are
	// tool calls, else "stop"), e.g. to script "length".
	FinishReason string `json:"finish_reason,omitempty"`
	// Usage overrides the usage computed from the sizes of the request
	// and the reply.
	Usage *Usage `json:"usage,omitempty"`
	// Delay is a Go duration to wait before answering. A client that
	// gives up meanwhile ends the wait.
	Delay string `json:"delay,omitempty"`
	// Raw, if set, is sent verbatim as the body instead of a completion
	// (malformed responses).
	Raw string `json:"raw,omitempty"`
	// Repeat answers this many requests with the step; 0 means once.
	Repeat int `json:"repeat,omitempty"`
	// When, if set, keeps the step for a request whose body holds this
	// text ("This is unit 2 of 3"): a request takes the first step not
	// yet used that it matches, so a script can answer units that run
	// side by side, whatever order their requests arrive in.
	When string `json:"when,omitempty"`

	// A request with "stream": true is answered with server-sent events
	// (unless the script says stream: "whole"). The delay then comes after
	// the headers, before the first event.

	// ChunkBytes cuts reasoning, content and tool-call arguments into
	// pieces of this many bytes, one event each, even inside a UTF-8
	// character, as a server streaming bytes would; 0 cuts pieces of up
	// to 8 bytes between characters.
	ChunkBytes int `json:"chunk_bytes,omitempty"`
	// StallAfter sends this many events, then nothing more until the
	// client gives up: a stream stalled mid-answer.
	StallAfter int `json:"stall_after,omitempty"`
	// CutAfter sends this many events, then ends the response: a
	// connection closed mid-answer.
	CutAfter int `json:"cut_after,omitempty"`
}

// ErrorBody is the error object of an OpenAI-style error response.
type ErrorBody struct {
	Message string `json:"message"`
	Type    string `json:"type,omitempty"`
	Code    string `json:"code,omitempty"`
}

// ScriptCall is a scripted tool call.
type ScriptCall struct {
	// ID defaults to call_<n>, numbering the server's tool calls from 1.
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	// Arguments is a JSON object, sent compacted as the arguments string.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// RawArguments, if set, is sent verbatim instead, to script malformed
	// arguments.
	RawArguments string `json:"raw_arguments,omitempty"`
}

// Usage is scripted token usage.
type Usage struct {
	Prompt     int `json:"prompt_tokens"`
	Completion int `json:"completion_tokens"`
	// Cached is sent as prompt_tokens_details.cached_tokens.
	Cached int `json:"cached_tokens,omitempty"`
	// Total defaults to Prompt + Completion.
	Total int `json:"total_tokens,omitempty"`
	// Reasoning is sent as completion_tokens_details.reasoning_tokens.
	Reasoning int `json:"reasoning_tokens,omitempty"`
	// CacheHit is sent as DeepSeek's top-level prompt_cache_hit_tokens.
	CacheHit int `json:"prompt_cache_hit_tokens,omitempty"`
}

// Script is the sequence of answers a Server gives.
type Script struct {
	Steps []Step `json:"steps"`
	// Fallback answers requests after the steps run out. Without one they
	// get HTTP 500 "script exhausted", which a test will notice.
	Fallback *Step `json:"fallback,omitempty"`
	// Forced, if set, answers every request whose tool_choice names a
	// function, as a model that obeys the choice would, without taking a
	// step.
	Forced *Step `json:"forced,omitempty"`
	// Window, if set, is a context window in tokens, counted as a quarter
	// of the request's bytes: a longer request is refused with HTTP 400
	// context_length_exceeded, as OpenAI refuses it, without taking a
	// step.
	Window int `json:"window,omitempty"`
	// Discovery bodies, served as a provider serves them so the client can
	// learn the context window: GET /v1/models (vLLM, llama.cpp), POST
	// /api/show (Ollama), GET /props and GET /slots (llama.cpp).
	// Unset ones answer 404.
	// These requests are not numbered with the chat requests.
	Models json.RawMessage `json:"models,omitempty"`
	Show   json.RawMessage `json:"show,omitempty"`
	Props  json.RawMessage `json:"props,omitempty"`
	Slots  json.RawMessage `json:"slots,omitempty"`
	// Tokenize, if set, answers POST /tokenize as llama.cpp does; unset,
	// it answers 404. It is not numbered with the chat requests either.
	Tokenize *Tokenize `json:"tokenize,omitempty"`
	// Stream "whole" answers a streamed request with a whole JSON
	// completion, as a server that does not stream does; "" streams.
	Stream string `json:"stream,omitempty"`
	// RateLimit, if set, answers every chat request that arrives within
	// its window with HTTP 429 and Retry-After, without taking a step: a
	// provider's rate-limit storm.
	RateLimit *RateLimit `json:"rate_limit,omitempty"`
}

// RateLimit is a storm of 429s: For (a Go duration) from the first chat
// request on, every chat request is answered 429 with Retry-After
// RetryAfter (seconds, as the header takes them).
type RateLimit struct {
	For        string `json:"for"`
	RetryAfter string `json:"retry_after"`
}

// Tokenize is how a scripted llama.cpp server counts tokens: one a
// character of the content, which a test can tell from any tiktoken
// count.
type Tokenize struct {
	// FailAfter, if set, is how many counts it answers; then it fails
	// every one with HTTP 500, as a server that went away mid-run.
	FailAfter int `json:"fail_after,omitempty"`
	// Status, if set, answers every count with it instead.
	Status int `json:"status,omitempty"`
}

// LoadScript reads a script from a JSON file: either an array of steps or
// an object {"steps": [...], "fallback": {...}}.
func LoadScript(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read model script: %w", err)
	}
	s, err := ParseScript(data)
	if err != nil {
		return nil, fmt.Errorf("model script %s: %w", path, err)
	}
	return s, nil
}

// ParseScript parses a script in the form LoadScript reads. Unknown fields
// are errors, so a misspelt key does not silently script the wrong reply.
func ParseScript(data []byte) (*Script, error) {
	data = bytes.TrimSpace(data)
	var s Script
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var err error
	if len(data) > 0 && data[0] == '[' {
		err = dec.Decode(&s.Steps)
	} else {
		err = dec.Decode(&s)
	}
	if err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("unexpected data after the script")
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// Validate reports the first step that cannot be served.
func (s *Script) Validate() error {
	for i, st := range s.Steps {
		if err := st.validate(); err != nil {
			return fmt.Errorf("step %d: %w", i+1, err)
		}
	}
	if s.Fallback != nil {
		if err := s.Fallback.validate(); err != nil {
			return fmt.Errorf("fallback: %w", err)
		}
	}
	if s.Forced != nil {
		if err := s.Forced.validate(); err != nil {
			return fmt.Errorf("forced: %w", err)
		}
	}
	if s.Window < 0 {
		return fmt.Errorf("window %d is negative", s.Window)
	}
	if t := s.Tokenize; t != nil && (t.FailAfter < 0 || (t.Status != 0 && (t.Status < 100 || t.Status > 599))) {
		return errors.New("tokenize: fail_after must not be negative, status must be an HTTP status")
	}
	if r := s.RateLimit; r != nil {
		if d, err := time.ParseDuration(r.For); err != nil || d <= 0 {
			return fmt.Errorf("rate_limit: for %q is not a duration such as 10s", r.For)
		}
	}
	if s.Stream != "" && s.Stream != "whole" {
		return fmt.Errorf("stream %q: use \"whole\" or leave it out", s.Stream)
	}
	return nil
}

func (st Step) validate() error {
	if st.Status != 0 && (st.Status < 100 || st.Status > 599) {
		return fmt.Errorf("status %d is not an HTTP status", st.Status)
	}
	if st.Repeat < 0 {
		return fmt.Errorf("repeat %d is negative", st.Repeat)
	}
	if st.ChunkBytes < 0 || st.StallAfter < 0 || st.CutAfter < 0 {
		return errors.New("chunk_bytes, stall_after and cut_after must not be negative")
	}
	if _, err := st.delay(); err != nil {
		return err
	}
	for j, c := range st.ToolCalls {
		if c.Name == "" {
			return fmt.Errorf("tool call %d has no name", j+1)
		}
		if len(c.Arguments) > 0 && c.RawArguments == "" {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(c.Arguments, &obj); err != nil || obj == nil {
				return fmt.Errorf("tool call %d: arguments must be a JSON object (use raw_arguments for malformed ones)", j+1)
			}
		}
	}
	return nil
}

func (st Step) delay() (time.Duration, error) {
	if st.Delay == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(st.Delay)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("delay %q is not a duration such as 250ms or 2s", st.Delay)
	}
	return d, nil
}
