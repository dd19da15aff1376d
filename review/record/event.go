package record

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/internal/egress"
)

// Event kinds, as the "kind" field of a recorded event names them.
const (
	KindRequest  = "request"
	KindPrune    = "prune"
	KindReplan   = "replan"
	KindFallback = "fallback"
	KindStream   = "stream"
	KindFinal    = "final"
	KindEgress   = "egress"
)

// Event is something that happened during a run, recorded with the step it
// belongs to (or precedes): one of the types of this file.
type Event interface {
	// Kind is the event's "kind".
	Kind() string
}

// Request names the messages of a request and their layers, so replay
// can show which layer each message came from. A request that starts with
// the messages of the request before it, as every request of a tool loop
// does, names only the messages it adds, and in Same how many it shares:
// naming them all again would make a run's events grow with the square of
// its steps. Load puts the shared ones back (Same is then 0).
//
// Units reviewed side by side send their requests at once: there a
// request names its Unit (from 1), and Of, the step whose request it
// shares Same messages with (that unit's request before it).
type Request struct {
	Same     int    `json:"same,omitempty"`
	Messages []Name `json:"messages"`
	Unit     int    `json:"unit,omitempty"`
	Of       int    `json:"of,omitempty"`
}

// Name is a message of a request as its request event names it: the
// history's own account of what it sent (conversation.History.Sent, which
// also decides what a request shares with the one before).
type Name = conversation.MsgRef

// Prune is a pruning pass over the history, as package conversation
// describes it.
type Prune struct {
	conversation.PruneEvent
}

// Replan is the first turn planned again after the provider refused its
// first request as longer than its context window.
type Replan struct {
	Turn    int      `json:"turn"`
	Reasons []string `json:"reasons"`
	// Before and After are our counts of the diff context and the turn's
	// hunks.
	Before int `json:"before_tokens"`
	After  int `json:"after_tokens"`
	Units  int `json:"units"`
}

// Fallback is a request feature the server refused or ignored, and what
// is sent instead for the rest of the run, recorded with the step that
// learned it so replay shows why later requests differ from the first.
type Fallback struct {
	Feature string `json:"feature"` // "tool_choice", "strict", "max_tokens", "stream" or "stream_options"
	From    string `json:"from"`
	To      string `json:"to"`
	Reason  string `json:"reason"` // the server's message, on one line
}

// Stream is how a streamed answer arrived; the step's response is the
// completion reassembled from its events.
type Stream struct {
	// Events counts the data events; Bytes the bytes of the body,
	// framing included.
	Events int   `json:"events"`
	Bytes  int64 `json:"bytes"`
	// FirstByteMS is how long the first byte of the answer took, from
	// the request.
	FirstByteMS int64 `json:"first_byte_ms"`
}

// Final is the loop asking for the review before its budget ran out,
// recorded before the step it precedes.
type Final struct {
	Reason string `json:"reason"`
	Turn   int    `json:"turn"`
	// Tokens is our count of the request that would have been sent,
	// Limit the share of the input budget it passed.
	Tokens int `json:"tokens"`
	Limit  int `json:"limit_tokens"`
}

// Egress is what the run sent since the egress event before it: the
// destinations it contacted, with requests and bytes, and the redactions
// what it sent carried (see package egress). The run records one as it
// goes, when it saves, and the command one after posting; Load sums them.
type Egress struct {
	egress.Record
}

// Other is an event of a kind this version does not know, kept as it was
// recorded.
type Other struct {
	Type string
	Data json.RawMessage
}

// Kind methods.
func (Request) Kind() string  { return KindRequest }
func (Prune) Kind() string    { return KindPrune }
func (Replan) Kind() string   { return KindReplan }
func (Fallback) Kind() string { return KindFallback }
func (Stream) Kind() string   { return KindStream }
func (Final) Kind() string    { return KindFinal }
func (Egress) Kind() string   { return KindEgress }
func (o Other) Kind() string  { return o.Type }

// The events are recorded as their fields after "kind".

// MarshalJSON encodes the event as it is recorded.
func (e Request) MarshalJSON() ([]byte, error) {
	type plain Request
	return json.Marshal(struct {
		Kind string `json:"kind"`
		plain
	}{KindRequest, plain(e)})
}

// MarshalJSON encodes the event as it is recorded.
func (e Prune) MarshalJSON() ([]byte, error) {
	ev := e.PruneEvent
	ev.Kind = KindPrune
	return json.Marshal(ev)
}

// MarshalJSON encodes the event as it is recorded.
func (e Replan) MarshalJSON() ([]byte, error) {
	type plain Replan
	return json.Marshal(struct {
		Kind string `json:"kind"`
		plain
	}{KindReplan, plain(e)})
}

// MarshalJSON encodes the event as it is recorded.
func (e Fallback) MarshalJSON() ([]byte, error) {
	type plain Fallback
	return json.Marshal(struct {
		Kind string `json:"kind"`
		plain
	}{KindFallback, plain(e)})
}

// MarshalJSON encodes the event as it is recorded.
func (e Stream) MarshalJSON() ([]byte, error) {
	type plain Stream
	return json.Marshal(struct {
		Kind string `json:"kind"`
		plain
	}{KindStream, plain(e)})
}

// MarshalJSON encodes the event as it is recorded.
func (e Final) MarshalJSON() ([]byte, error) {
	type plain Final
	return json.Marshal(struct {
		Kind string `json:"kind"`
		plain
	}{KindFinal, plain(e)})
}

// MarshalJSON encodes the event as it is recorded.
func (e Egress) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Kind string `json:"kind"`
		egress.Record
	}{KindEgress, e.Record})
}

// MarshalJSON gives the event back as it was recorded.
func (o Other) MarshalJSON() ([]byte, error) { return o.Data, nil }

// Encode is the form ev is recorded in.
func Encode(ev Event) ([]byte, error) {
	return json.Marshal(ev)
}

// Decode reads a recorded event. An event of a kind this version does not
// know is an Other; one that is not an object with a kind is an error.
func Decode(data []byte) (Event, error) {
	var k struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(data, &k); err != nil {
		return nil, err
	}
	var ev Event
	var err error
	switch k.Kind {
	case "":
		return nil, errors.New("the event has no kind")
	case KindRequest:
		ev, err = decodeAs[Request](data)
	case KindPrune:
		ev, err = decodeAs[Prune](data)
	case KindReplan:
		ev, err = decodeAs[Replan](data)
	case KindFallback:
		ev, err = decodeAs[Fallback](data)
	case KindStream:
		ev, err = decodeAs[Stream](data)
	case KindFinal:
		ev, err = decodeAs[Final](data)
	case KindEgress:
		ev, err = decodeAs[Egress](data)
	default:
		ev = Other{Type: k.Kind, Data: data}
	}
	if err != nil {
		return nil, fmt.Errorf("%s event: %w", k.Kind, err)
	}
	return ev, nil
}

func decodeAs[T Event](data []byte) (Event, error) {
	var v T
	err := json.Unmarshal(data, &v)
	return v, err
}
