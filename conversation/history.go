package conversation

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// History is a run's conversation and the one owner of its invariants:
// the static layer comes first and is never pruned; a tool call and its
// result are never separated (Validate holds every request to it); earlier
// turns change only by Prune, which reports what it did as an event; and
// the current loop is append-only. Its messages are private: the agent
// changes them through these operations alone, so nothing outside keeps a
// second copy in step by hand.
//
// While a tool loop runs (BeginLoop), History also keeps the loop's
// request view: what the next request carries, its running token count,
// the reasoning sent back within the loop, and the messages of the last
// request recorded, so each request event names only what it adds.
type History struct {
	msgs []Message
	// next numbers the next message's ID.
	next int
	loop *loopView
	// last are the messages of the last request recorded.
	last []MsgRef
	// filter, if set, is applied to every message that joins a turn.
	filter func(string) string
	// enc caches each message's JSON for Parts: nil for a message added
	// or changed since (touch), which Parts encodes and reports.
	enc [][]byte
	// idPrefix starts the IDs of a fork's messages (Fork).
	idPrefix string
}

// touch marks message i changed, to be written again by the next save.
func (c *History) touch(i int) {
	if i < len(c.enc) {
		c.enc[i] = nil
	}
}

// Parts is the stored form of the history in parts: each message's JSON,
// the indexes of those added or changed since the last call, and the next
// message number. A save writes only what changed, so a long run's saves
// cost what each step adds, not the whole history again.
func (c *History) Parts() (parts [][]byte, changed []int, next int, err error) {
	changed = []int{} // not nil: nothing changed is an answer
	for len(c.enc) < len(c.msgs) {
		c.enc = append(c.enc, nil)
	}
	for i := range c.msgs {
		if c.enc[i] != nil {
			continue
		}
		b, err := json.Marshal(c.msgs[i])
		if err != nil {
			return nil, nil, 0, err
		}
		c.enc[i] = b
		changed = append(changed, i)
	}
	return c.enc, changed, c.next, nil
}

// TurnParts is Parts for the messages of turn n that are not static, as a
// fork running a unit of a review keeps them: their IDs and their JSON,
// each encoded once and again only when it changes. A record of forks
// still running is built from them without encoding the whole
// conversation at every save; a fork so recorded is not recorded with its
// own Parts, which would then not name these messages as changed.
func (c *History) TurnParts(n int) (ids []string, parts [][]byte, err error) {
	for len(c.enc) < len(c.msgs) {
		c.enc = append(c.enc, nil)
	}
	for i, m := range c.msgs {
		if m.Turn != n || m.Layer == Static {
			continue
		}
		if c.enc[i] == nil {
			// Only the turn's own messages: a fork's copy of the
			// static layer is the run's, and is not encoded again.
			if c.enc[i], err = json.Marshal(m); err != nil {
				return nil, nil, err
			}
		}
		ids = append(ids, m.ID)
		parts = append(parts, c.enc[i])
	}
	return ids, parts, nil
}

// SetFilter has every message that joins a turn from now on pass f first,
// its text and its tool calls' arguments: the one point a question, a
// tool's result or an answer passes before it is sent or stored, so a new
// path cannot skip it. The static layer is built from a diff that was
// filtered as it was rendered, and does not pass again.
func (c *History) SetFilter(f func(string) string) { c.filter = f }

func (c *History) filtered(m Message) Message {
	if c.filter == nil || m.Layer == Static {
		return m
	}
	m.Content = c.filter(m.Content)
	if len(m.ToolCalls) > 0 {
		calls := slices.Clone(m.ToolCalls)
		for i := range calls {
			calls[i].Arguments = c.filter(calls[i].Arguments)
		}
		m.ToolCalls = calls
	}
	return m
}

// MsgRef names a message of a request as the request's record does: its
// ID, the layer it came from, and the ref of the output behind it.
type MsgRef struct {
	ID    string `json:"id"`
	Layer Layer  `json:"layer"`
	Ref   string `json:"ref,omitempty"`
	Hunks bool   `json:"hunks,omitempty"`
	// Learnings is Message.Learnings.
	Learnings bool `json:"learnings,omitempty"`
}

// Sent notes msgs as the request just recorded and says what it changed
// since the one before: how many leading messages the two share, and the
// rest. A request of a tool loop starts with the messages of the one
// before, so its record names only what it adds; naming them all again
// would make a run's records grow with the square of its steps.
func (c *History) Sent(msgs []Message) (same int, added []MsgRef) {
	refs := make([]MsgRef, len(msgs))
	for i, m := range msgs {
		refs[i] = MsgRef{m.ID, m.Layer, m.Ref, m.Hunks, m.Learnings}
	}
	for same < min(len(refs), len(c.last)) && refs[same] == c.last[same] {
		same++
	}
	c.last = refs
	return same, refs[same:]
}

// historyJSON is the stored form of a History, the one the store keeps
// between follow-up turns.
type historyJSON struct {
	Messages []Message `json:"messages"`
	Next     int       `json:"next"`
}

// MarshalJSON writes the stored form: the messages and the next ID.
func (c *History) MarshalJSON() ([]byte, error) {
	return json.Marshal(historyJSON{Messages: c.msgs, Next: c.next})
}

// UnmarshalJSON reads the stored form.
func (c *History) UnmarshalJSON(b []byte) error {
	var h historyJSON
	if err := json.Unmarshal(b, &h); err != nil {
		return err
	}
	c.msgs, c.next, c.loop, c.enc = h.Messages, h.Next, nil, nil
	return nil
}

// Messages returns a copy of every message, dropped ones included, in the
// order they were added.
func (c *History) Messages() []Message { return slices.Clone(c.msgs) }

// Len is the number of messages, dropped ones included.
func (c *History) Len() int { return len(c.msgs) }

// Append adds m, giving it the next ID, and returns it as stored (through
// the filter, see SetFilter). A message of the current turn's loop joins
// the running loop's request view too.
func (c *History) Append(m Message) Message {
	m = c.filtered(m)
	c.next++
	m.ID = c.idPrefix + "m" + strconv.Itoa(c.next)
	c.msgs = append(c.msgs, m)
	if v := c.loop; v != nil && m.Layer == Loop && m.Turn == v.turn {
		v.sent = append(v.sent, m)
		v.tokens += v.counter().CountMessage(m)
	}
	return m
}

// Ask starts a new turn with a user question and returns its number.
func (c *History) Ask(question string) int {
	turn := c.Turns() + 1
	c.Append(Message{Role: User, Content: question, Layer: Loop, Turn: turn})
	return turn
}

// Question is the text of the latest turn's user message.
func (c *History) Question() string { return c.question(c.Turns()) }

// Turns reports the number of the latest user turn (0 before any).
func (c *History) Turns() int {
	n := 0
	for _, m := range c.msgs {
		n = max(n, m.Turn)
	}
	return n
}

// Turn returns the messages of turn n that are still kept, in order.
func (c *History) Turn(n int) []Message {
	var out []Message
	for _, m := range c.msgs {
		if m.Turn == n && !m.Dropped {
			out = append(out, m)
		}
	}
	return out
}

// Validate checks the tool-call pairing a provider requires: every tool
// result answers a call of the assistant message before it (after other
// results of that message), and every call is answered before the next
// non-tool message. A request that fails this is never sent: providers answer
// such a request with 400, and with 400 again on every later turn.
func Validate(msgs []Message) error {
	pending := map[string]bool{}
	var order []string
	for i, m := range msgs {
		if m.Role == Tool {
			if !pending[m.ToolCallID] {
				return fmt.Errorf("message %d (%s): tool result %q answers no call of the preceding assistant message", i+1, m.ID, m.ToolCallID)
			}
			delete(pending, m.ToolCallID)
			continue
		}
		if len(pending) > 0 {
			for _, id := range order {
				if pending[id] {
					return fmt.Errorf("message %d (%s): tool call %q is not answered", i+1, m.ID, id)
				}
			}
		}
		pending, order = map[string]bool{}, nil
		if m.Role == Assistant {
			for _, tc := range m.ToolCalls {
				if pending[tc.ID] {
					return fmt.Errorf("message %d (%s): duplicate tool call ID %q", i+1, m.ID, tc.ID)
				}
				pending[tc.ID] = true
				order = append(order, tc.ID)
			}
		}
	}
	for _, id := range order {
		if pending[id] {
			return fmt.Errorf("last message: tool call %q is not answered", id)
		}
	}
	return nil
}

// Fork returns a History of its own for turn run side by side with
// others: the static layer, byte for byte, and of the turns only what c
// already holds of turn itself, so every fork's requests start with the
// same prefix (which keeps providers' prompt caches warm) and none carries
// another's messages. Its new messages are numbered apart (IDs
// "<prefix>m1", ...), so that Adopt can bring them back into c. The fork
// has c's filter; c is not changed.
func (c *History) Fork(prefix string, turn int) *History {
	f := &History{filter: c.filter, idPrefix: prefix}
	for _, m := range c.msgs {
		if !m.Dropped && (m.Layer == Static || m.Turn == turn) {
			f.msgs = append(f.msgs, m)
		}
	}
	return f
}

// Adopt appends the turns of forks, in the order given, after c's own:
// the history a follow-up question continues once the turns run side by
// side are done. What a fork took from c (Fork) is not copied again.
func (c *History) Adopt(forks ...*History) {
	have := make(map[string]bool, len(c.msgs))
	for _, m := range c.msgs {
		have[m.ID] = true
	}
	for _, f := range forks {
		for _, m := range f.msgs {
			if !have[m.ID] {
				c.msgs = append(c.msgs, m)
			}
		}
	}
}

// TurnMessages returns a copy of the messages of turn n, dropped ones
// included: a fork's turn as it stands, for a record saved while it runs.
func (c *History) TurnMessages(n int) []Message {
	var out []Message
	for _, m := range c.msgs {
		if m.Turn == n && m.Layer != Static {
			out = append(out, m)
		}
	}
	return out
}

// WithTurns returns a copy of c with msgs appended after its own but for
// those it holds already, for a record of the turns of forks still
// running (see Adopt).
func (c *History) WithTurns(msgs []Message) *History {
	have := make(map[string]bool, len(c.msgs))
	for _, m := range c.msgs {
		have[m.ID] = true
	}
	out := &History{msgs: slices.Clip(c.msgs), next: c.next}
	for _, m := range msgs {
		if !have[m.ID] {
			out.msgs = append(out.msgs, m)
		}
	}
	return out
}
