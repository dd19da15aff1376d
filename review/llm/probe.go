package llm

import (
	"context"
	"encoding/json"
	"time"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/tools"
)

// Probe is what one minimal request taught about an endpoint: the window
// it serves the model with and where that came from, whether it counts
// tokens, whether it streams,
// what it refused (the fallbacks a review would take), and how long it
// took.
type Probe struct {
	// Window is the window the server told; WindowKnown is false when it
	// told none, and Table is then what the model table says (0 for a
	// model it does not know).
	Window      Window
	WindowKnown bool
	Table       int
	// Discovery is all the server said of itself (Discover): how many
	// requests it serves at once too.
	Discovery Discovery
	// Tokenizer is the server's count of tokens (FindTokenizer);
	// TokenizerErr says why it has none.
	Tokenizer    *Tokenizer
	TokenizerErr error
	// Latency is the request's time, retries included; FirstByte, for a
	// streamed answer, the wait for its first byte.
	Latency   time.Duration
	FirstByte time.Duration
	Attempts  int
	// Streamed says the answer came as server-sent events; asked for
	// streaming, a server that sent it whole adds a stream fallback.
	Streamed bool
	// ToolChoice is the tool choice finally sent; Called says the model
	// called the tool it was asked to.
	ToolChoice string
	Called     bool
	Fallbacks  []Fallback
	Usage      Usage
}

// probeTool is the one tool of the probe, forced the way a review forces
// submit_review: by name, with a strict schema.
var probeTool = tools.Definition{
	Name:        "report_status",
	Description: "Report that you can call tools.",
	Parameters:  json.RawMessage(`{"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"], "additionalProperties": false}`),
	Strict:      true,
}

// probeMaxTokens bounds the probe's answer: a tool call with one boolean,
// with room for a reasoning model's thoughts.
const probeMaxTokens = 256

// ProbeEndpoint asks the server cfg names the window it serves model with
// and how many requests it serves at once (Discover), and, unless it is a
// hosted API, whether it counts tokens (FindTokenizer), then
// makes one minimal request as a review makes them: a forced tool with a
// strict schema, streamed if cfg says so. The error is the request's,
// with the probe so far.
func ProbeEndpoint(ctx context.Context, cfg ClientConfig, model string) (*Probe, error) {
	p := &Probe{}
	p.Discovery = Discover(ctx, cfg, model, true)
	p.Window, p.WindowKnown = p.Discovery.Window, p.Discovery.WindowKnown
	if p.Discovery.Hosted {
		// A hosted API is asked nothing but the OpenAI API.
		p.TokenizerErr = &TokenizerError{URL: DisplayURL(cfg.BaseURL), Setting: cfg.BaseURLFrom, Reason: "a hosted API, not asked: only a local or llama.cpp server is"}
	} else {
		p.Tokenizer, p.TokenizerErr = FindTokenizer(ctx, cfg)
	}
	if info := Lookup(model); info.Known() {
		p.Table = info.Window
	}
	req := Request{
		Model: model,
		Messages: []conversation.Message{{Role: conversation.User,
			Content: "This is a connection check. Call " + probeTool.Name + " with ok set to true."}},
		Tools:      []tools.Definition{probeTool},
		ToolChoice: probeTool.Name,
		MaxTokens:  probeMaxTokens,
	}
	start := time.Now()
	r, err := NewClient(cfg).Complete(ctx, req)
	p.Latency = time.Since(start)
	if r != nil {
		p.Attempts, p.Fallbacks, p.ToolChoice, p.Usage = r.Attempts, r.Fallbacks, r.ToolChoice, r.Usage
		if r.Stream != nil {
			p.Streamed, p.FirstByte = true, time.Duration(r.Stream.FirstByteMS)*time.Millisecond
		}
		for _, c := range r.Message.ToolCalls {
			p.Called = p.Called || c.Name == probeTool.Name
		}
	}
	return p, err
}
