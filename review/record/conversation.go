package record

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/reviewdev/review/toolmem"
)

// LoadConversation returns the conversation stored for run, byte for byte
// as it was saved.
func LoadConversation(st *toolmem.Store, run string) ([]byte, error) {
	c, err := st.Conversation(run)
	if err != nil {
		return nil, err
	}
	if c.Parts == nil {
		return c.Whole, nil
	}
	return joinConversation(c.Parts, c.Next), nil
}

// splitConversation splits data of the form {"messages":[...],"next":N}
// into its messages, when joinConversation gives the same bytes back.
func splitConversation(data []byte) ([][]byte, int, bool) {
	var c struct {
		Messages []json.RawMessage `json:"messages"`
		Next     int               `json:"next"`
	}
	if json.Unmarshal(data, &c) != nil || c.Messages == nil {
		return nil, 0, false
	}
	parts := make([][]byte, len(c.Messages))
	for i, m := range c.Messages {
		parts[i] = m
	}
	if !bytes.Equal(joinConversation(parts, c.Next), data) {
		return nil, 0, false
	}
	return parts, c.Next, true
}

// joinConversation is the encoding package conversation gives a
// conversation: its messages, then the next message number.
func joinConversation(msgs [][]byte, next int) []byte {
	b := []byte(`{"messages":[`)
	for i, m := range msgs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, m...)
	}
	b = append(b, `],"next":`...)
	b = strconv.AppendInt(b, int64(next), 10)
	return append(b, '}')
}
