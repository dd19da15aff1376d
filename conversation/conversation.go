package conversation

import (
	"fmt"
	"strconv"
)

// Conversation is the whole history of a run: the static layer, then turns.
// It is what the store keeps between follow-up turns; what a request carries
// is derived from it by pruning.
type Conversation struct {
	Messages []Message `json:"messages"`
	// Next numbers the next message's ID.
	Next int `json:"next"`
}

// Append adds m, giving it the next ID, and returns it as stored.
func (c *Conversation) Append(m Message) Message {
	c.Next++
	m.ID = "m" + strconv.Itoa(c.Next)
	c.Messages = append(c.Messages, m)
	return m
}

// Turns reports the number of the latest user turn (0 before any).
func (c *Conversation) Turns() int {
	n := 0
	for _, m := range c.Messages {
		n = max(n, m.Turn)
	}
	return n
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
