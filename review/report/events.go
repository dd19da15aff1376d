package report

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/record"
)

// eventSentence says what a recorded event means, in words, for a person
// reading the replay: the record's JSON is exact, and stays beside it.
func eventSentence(raw json.RawMessage) string {
	e, err := record.Decode(raw)
	if err != nil {
		return "an event that cannot be read."
	}
	tok := func(n int) string { return text.Number(n) + " tokens" }
	switch e := e.(type) {
	case record.Prune:
		var parts []string
		if n := len(e.Dropped); n > 0 {
			parts = append(parts, text.Plural(n, "message")+" of earlier turns dropped")
		}
		if n := len(e.Restored); n > 0 {
			parts = append(parts, text.Plural(n, "message")+" of earlier turns the question names restored")
		}
		if n := len(e.Stubbed); n > 0 {
			parts = append(parts, text.Plural(n, "tool preview")+" shrunk to a stub")
		}
		if n := len(e.Capped); n > 0 {
			parts = append(parts, text.Plural(n, "message")+" capped")
		}
		s := fmt.Sprintf("the history was pruned (%s), from %s to %s", strings.Join(e.Reasons, ", "), tok(e.Before.Tokens), tok(e.After.Tokens))
		if len(parts) > 0 {
			s += ": " + strings.Join(parts, ", ")
		}
		return s + "."
	case record.Final:
		if e.Reason == "context_length" {
			return "the server refused the request as longer than its context window, so the final answer was asked for with what had been seen."
		}
		return fmt.Sprintf("the next request would have carried %s, past the stop line of %s, so the final answer was asked for (%s).", tok(e.Tokens), tok(e.Limit), e.Reason)
	case record.Fallback:
		return fmt.Sprintf("the server refused %s as %s, so %s is sent from here on; it said: %s", e.Feature, e.From, e.To, text.OneLine(e.Reason, 200))
	case record.Stream:
		return fmt.Sprintf("the answer came as a stream of %s, %s, its first byte after %s ms.", text.Plural(e.Events, "event"), humanize.IBytes(uint64(max(e.Bytes, 0))), text.Number(int(e.FirstByteMS)))
	case record.Replan:
		s := fmt.Sprintf("the server refused the first request as too long, so the diff context was planned again, from %s to %s", tok(e.Before), tok(e.After))
		if e.Units > 0 {
			s += ", in " + text.Plural(e.Units, "unit")
		}
		return s + "."
	}
	return "a " + e.Kind() + " event."
}
