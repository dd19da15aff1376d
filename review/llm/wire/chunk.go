package wire

import "encoding/json"

// Chunk is one chat.completion.chunk event of a streamed answer. Strings
// that carry the answer stay raw: a server that streams bytes rather than
// characters may split a UTF-8 character (or a UTF-16 surrogate pair)
// between two events, and decoding each piece on its own would turn both
// halves into U+FFFD. The assembler in review/llm joins them.
type Chunk struct {
	ID                string          `json:"id"`
	Created           int64           `json:"created"`
	Model             string          `json:"model"`
	SystemFingerprint string          `json:"system_fingerprint"`
	Choices           []ChunkChoice   `json:"choices"`
	Usage             json.RawMessage `json:"usage"`
	// An error event: {"error": {...}} (OpenAI) or {"object": "error",
	// "message": ...} (vLLM).
	Object  string          `json:"object"`
	Error   json.RawMessage `json:"error"`
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    any             `json:"code"`
}

// ChunkChoice is the piece of one answer an event carries.
type ChunkChoice struct {
	Index        int     `json:"index"`
	Delta        Delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

// Delta is what an event adds to an answer.
type Delta struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ReasoningContent json.RawMessage `json:"reasoning_content"`
	Refusal          json.RawMessage `json:"refusal"`
	ToolCalls        []DeltaCall     `json:"tool_calls"`
}

// DeltaCall is a piece of a tool call. Index is absent from a few local
// servers' events.
type DeltaCall struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      json.RawMessage `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// DecodeChunk reads the data of one event.
func DecodeChunk(data []byte) (*Chunk, error) {
	var c Chunk
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, err
	}
	return &c, nil
}
