package record

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestConversationByMessage stores a growing conversation step by step,
// message by message: it reads back byte for byte, and the store's
// records stay readable for doctor.
func TestConversationByMessage(t *testing.T) {
	s := openTest(t)
	run := "20260101-000000-abcdef"
	var msgs []string
	for step := 1; step <= 60; step++ {
		msgs = append(msgs, fmt.Sprintf(`{"id":"m%d","role":"tool","content":%q}`, step, strings.Repeat("x", step*10)))
		if step == 30 {
			msgs[3] = `{"id":"m4","role":"tool","content":"[stub]"}` // pruning changed one
		}
		data := []byte(`{"messages":[` + strings.Join(msgs, ",") + `],"next":` + strconv.Itoa(step) + `}`)
		if err := NewWriter(s, run).Conversation(data); err != nil {
			t.Fatal(err)
		}
		got, err := LoadConversation(s, run)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("step %d: read back %d bytes (%v), want %d", step, len(got), err, len(data))
		}
		if c, err := s.Conversation(run); err != nil || len(c.Parts) != len(msgs) {
			t.Fatalf("step %d: stored in %d parts (%v), want one a message", step, len(c.Parts), err)
		}
	}
	// Shrinking and other shapes round-trip too.
	for _, data := range []string{`{"messages":[],"next":0}`, `{"other":1}`, `{"messages":[{"id":"m1"}],"next":1}`} {
		if err := NewWriter(s, run).Conversation([]byte(data)); err != nil {
			t.Fatal(err)
		}
		if got, err := LoadConversation(s, run); err != nil || string(got) != data {
			t.Fatalf("read back %q (%v), want %q", got, err, data)
		}
	}
	rep, err := s.Verify()
	if err != nil || len(rep.Problems) > 0 {
		t.Fatalf("verify: %+v, %v", rep.Problems, err)
	}
}
