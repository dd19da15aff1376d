package llm

import (
	"errors"
	"net/http"
	"strings"
	"sync"
)

// Fallback is a request feature the server refused or ignored, and what
// the client sends instead for the rest of the run. The agent records it
// with the step that learned it, so replay shows why later requests
// differ from the first ones.
type Fallback struct {
	Feature string // "tool_choice", "strict", "max_tokens", "stream" or "stream_options"
	From    string
	To      string
	Reason  string // the server's message, on one line
}

// Forced tool choice levels, from the most to the least precise: a named
// function, "required" (some tool), and "auto" with a nudge in the
// conversation (the caller's final message asks for the tool).
const (
	forceNamed = iota
	forceRequired
	forceAuto
)

var forceNames = [...]string{"function", "required", "auto"}

// caps is what the client has learned about the server during the run.
// Each refusal is learned once: later requests go out in the accepted form
// at once, without another refused attempt.
type caps struct {
	mu       sync.Mutex
	force    int
	noStrict bool
	// maxField is "max_tokens" or "max_completion_tokens" once one was
	// refused; "" follows the model table.
	maxField string
	// noStream and noStreamUsage: the server refused streaming, or its
	// stream_options.
	noStream, noStreamUsage bool
}

func (c *caps) snapshot() (force int, noStrict bool, maxField string, stream, usage bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.force, c.noStrict, c.maxField, !c.noStream, !c.noStreamUsage
}

// adapt rewrites req to what the server is known to accept; stream asks
// for streaming where the server was not found to refuse it.
func (c *caps) adapt(req Request, stream bool) Request {
	force, noStrict, maxField, canStream, streamUsage := c.snapshot()
	req.stream = stream && canStream
	req.streamUsage = req.stream && streamUsage
	if forced(req) {
		switch force {
		case forceRequired:
			req.ToolChoice = "required"
		case forceAuto:
			req.ToolChoice = "auto"
		}
	}
	if noStrict && anyStrict(req) {
		defs := append(req.Tools[:0:0], req.Tools...)
		for i := range defs {
			defs[i].Strict = false
		}
		req.Tools = defs
	}
	if maxField != "" {
		req.maxField = maxField
	}
	return req
}

// forced reports whether req names one tool to call.
func forced(req Request) bool {
	switch req.ToolChoice {
	case "", "auto", "none", "required":
		return false
	}
	return true
}

func anyStrict(req Request) bool {
	for _, d := range req.Tools {
		if d.Strict {
			return true
		}
	}
	return false
}

// learn reads a refusal of sent (the adapted request) and, if the server
// refused a feature we can do without, records the fallback and reports it.
// ok is false when the error is not such a refusal.
func (c *caps) learn(sent, orig Request, err error) (fb Fallback, ok bool) {
	var ae *APIError
	if !errors.As(err, &ae) || (ae.Status != http.StatusBadRequest && ae.Status != http.StatusUnprocessableEntity) || ae.contextLength() {
		return Fallback{}, false
	}
	msg := strings.ToLower(ae.Message + " " + ae.Code + " " + ae.Type)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case (strings.Contains(msg, "tool_choice") || strings.Contains(msg, "tool choice")) && forced(orig) && c.force < forceAuto:
		from := forceNames[c.force]
		if sent.ToolChoice == "required" && c.force < forceRequired {
			c.force = forceRequired
		}
		c.force++
		return Fallback{Feature: "tool_choice", From: from, To: forceNames[c.force], Reason: ae.Message}, true
	case strings.Contains(msg, "strict") && anyStrict(sent) && !c.noStrict:
		c.noStrict = true
		return Fallback{Feature: "strict", From: "strict", To: "not strict", Reason: ae.Message}, true
	case sent.streamUsage && strings.Contains(msg, "stream_options") && !c.noStreamUsage:
		c.noStreamUsage = true
		return Fallback{Feature: "stream_options", From: "include_usage", To: "none", Reason: ae.Message}, true
	case sent.MaxTokens > 0 && unsupportedParam(msg, limitField(sent)):
		from := limitField(sent)
		to := "max_tokens"
		if from == to {
			to = "max_completion_tokens"
		}
		if c.maxField != "" {
			// Both fields refused: there is nothing left to try.
			return Fallback{}, false
		}
		c.maxField = to
		return Fallback{Feature: "max_tokens", From: from, To: to, Reason: ae.Message}, true
	case sent.stream && strings.Contains(msg, "stream") && !c.noStream:
		// Last: "stream" is a word other refusals may use.
		c.noStream = true
		return Fallback{Feature: "stream", From: "stream", To: "whole", Reason: ae.Message}, true
	}
	return Fallback{}, false
}

// wholeAnswer learns that the server answers a streamed request whole,
// and returns the fallback to record.
func (c *caps) wholeAnswer() Fallback {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.noStream = true
	return Fallback{Feature: "stream", From: "stream", To: "whole",
		Reason: "the server answered a streamed request with a whole JSON response"}
}

// limitField is the field that carries req's token limit.
func limitField(req Request) string {
	switch {
	case req.maxField != "":
		return req.maxField
	case Lookup(req.Model).Reasoning:
		return "max_completion_tokens"
	}
	return "max_tokens"
}

// unsupportedParam reports a message that refuses the parameter name.
func unsupportedParam(msg, name string) bool {
	if !strings.Contains(msg, name) {
		return false
	}
	for _, p := range []string{"unsupported", "not supported", "unrecognized", "unknown", "extra inputs", "not allowed", "use '", "use \""} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
