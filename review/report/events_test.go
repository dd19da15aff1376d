package report

import (
	"encoding/json"
	"testing"
)

// TestEventSentence says each kind of event in words.
func TestEventSentence(t *testing.T) {
	for raw, want := range map[string]string{
		`{"kind":"prune","turn":2,"reasons":["stub","turns"],"before":{"tokens":9000},"after":{"tokens":4000},"stubbed":["a","b"],"dropped":["m1"]}`: "the history was pruned (stub, turns), from 9,000 tokens to 4,000 tokens: 1 message of earlier turns dropped, 2 tool previews shrunk to a stub.",
		`{"kind":"final","reason":"input_budget","turn":1,"tokens":91000,"limit_tokens":90000}`:                                                      "the next request would have carried 91,000 tokens, past the stop line of 90,000 tokens, so the final answer was asked for (input_budget).",
		`{"kind":"final","reason":"context_length","turn":1}`:                                                                                        "the server refused the request as longer than its context window, so the final answer was asked for with what had been seen.",
		`{"kind":"fallback","feature":"tool_choice","from":"function","to":"required","reason":"Invalid tool_choice"}`:                               "the server refused tool_choice as function, so required is sent from here on; it said: Invalid tool_choice",
		`{"kind":"stream","events":12,"bytes":2048,"first_byte_ms":350}`:                                                                             "the answer came as a stream of 12 events, 2.0 KiB, its first byte after 350 ms.",
		`{"kind":"replan","turn":1,"reasons":["context_length"],"before_tokens":8000,"after_tokens":4000,"units":3}`:                                 "the server refused the first request as too long, so the diff context was planned again, from 8,000 tokens to 4,000 tokens, in 3 units.",
	} {
		if got := eventSentence(json.RawMessage(raw)); got != want {
			t.Errorf("%s:\n got %q\nwant %q", raw, got, want)
		}
	}
}
