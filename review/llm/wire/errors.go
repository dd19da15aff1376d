package wire

import (
	"encoding/json"

	openai "github.com/sashabaranov/go-openai"
)

// ErrorBody is an error a server sent, in any of the shapes seen.
type ErrorBody struct {
	Message string
	Type    string
	// Code is a string, a number or null, as servers send it.
	Code any
}

// DecodeError reads an error body: OpenAI's {"error": {...}}, which
// go-openai reads in all its variants (a message given as an array, a
// numeric code), Ollama's {"error": "text"}, and older vLLM's top-level
// {"message", "type", "code"}. ok is false for anything else.
func DecodeError(body []byte) (e ErrorBody, ok bool) {
	var std openai.ErrorResponse
	if json.Unmarshal(body, &std) == nil && std.Error != nil &&
		(std.Error.Message != "" || std.Error.Type != "" || std.Error.Code != nil) {
		return ErrorBody{Message: std.Error.Message, Type: std.Error.Type, Code: std.Error.Code}, true
	}
	var alt struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	if json.Unmarshal(body, &alt) != nil {
		return ErrorBody{}, false
	}
	var s string
	if json.Unmarshal(alt.Error, &s) == nil && s != "" {
		return ErrorBody{Message: s}, true
	}
	if alt.Message != "" {
		var code any
		_ = json.Unmarshal(alt.Code, &code)
		return ErrorBody{Message: alt.Message, Type: alt.Type, Code: code}, true
	}
	return ErrorBody{}, false
}

// StreamError reads the error a chunk carries, if it is an error event.
func (c *Chunk) StreamError() (ErrorBody, bool) {
	if c.Object == "error" {
		return ErrorBody{Message: c.Message, Type: c.Type, Code: c.Code}, true
	}
	if len(c.Error) == 0 || string(c.Error) == "null" {
		return ErrorBody{}, false
	}
	var e struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"`
	}
	if json.Unmarshal(c.Error, &e.Message) != nil && (json.Unmarshal(c.Error, &e) != nil || e.Message == "") {
		e.Message = string(c.Error)
	}
	return ErrorBody{Message: e.Message, Type: e.Type, Code: e.Code}, true
}
