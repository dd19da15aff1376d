package conversation

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	call := func(ids ...string) Message {
		m := Message{Role: Assistant}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, ToolCall{ID: id, Name: "t"})
		}
		return m
	}
	res := func(id string) Message { return Message{Role: Tool, ToolCallID: id} }
	user := Message{Role: User}
	for _, tc := range []struct {
		name string
		msgs []Message
		ok   bool
	}{
		{"empty", nil, true},
		{"pair", []Message{user, call("a"), res("a")}, true},
		{"two calls", []Message{user, call("a", "b"), res("a"), res("b"), {Role: Assistant}}, true},
		{"orphan result", []Message{user, res("a")}, false},
		{"result after user", []Message{user, call("a"), user, res("a")}, false},
		{"unanswered", []Message{user, call("a", "b"), res("a"), user}, false},
		{"unanswered at end", []Message{user, call("a")}, false},
		{"answered twice", []Message{user, call("a"), res("a"), res("a")}, false},
		{"duplicate id", []Message{user, call("a", "a"), res("a"), res("a")}, false},
	} {
		if err := Validate(tc.msgs); (err == nil) != tc.ok {
			t.Errorf("%s: Validate = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}

func TestAppendIDs(t *testing.T) {
	var c History
	a := c.Append(Message{Role: System})
	b := c.Append(Message{Role: User, Turn: 2})
	if a.ID != "m1" || b.ID != "m2" || c.Turns() != 2 {
		t.Fatalf("ids %s %s turns %d", a.ID, b.ID, c.Turns())
	}
}

// TestSent checks that a request's record names only what it adds to the
// request recorded before it.
func TestSent(t *testing.T) {
	var h History
	a := h.Append(Message{Role: System, Content: "s", Layer: Static})
	b := h.Append(Message{Role: User, Content: "q", Layer: Loop, Turn: 1})
	if same, added := h.Sent([]Message{a, b}); same != 0 || len(added) != 2 {
		t.Errorf("first request: same %d, added %v", same, added)
	}
	c := h.Append(Message{Role: Assistant, Content: "x", Layer: Loop, Turn: 1, Ref: "r"})
	same, added := h.Sent([]Message{a, b, c})
	if same != 2 || len(added) != 1 || added[0] != (MsgRef{ID: c.ID, Layer: Loop, Ref: "r"}) {
		t.Errorf("second request: same %d, added %v", same, added)
	}
	if same, _ := h.Sent([]Message{a, c}); same != 1 {
		t.Errorf("a request that drops a message shares %d, want 1", same)
	}
}

// TestPartsChanged checks that Parts reports every message added or
// changed since the last call, and that its parts are the history's JSON.
func TestPartsChanged(t *testing.T) {
	h := &History{}
	h.Append(Message{Role: System, Content: "s", Layer: Static})
	for turn := 1; turn <= 4; turn++ {
		h.Append(Message{Role: User, Content: strings.Repeat("question ", 40), Layer: Loop, Turn: turn})
		h.Append(Message{Role: Assistant, Content: strings.Repeat("answer ", 40), Layer: Loop, Turn: turn})
	}
	_, changed, _, err := h.Parts()
	if err != nil || len(changed) != h.Len() {
		t.Fatalf("first Parts: %d changed of %d, %v", len(changed), h.Len(), err)
	}
	if _, changed, _, _ := h.Parts(); len(changed) != 0 {
		t.Errorf("nothing changed, Parts reports %v", changed)
	}
	h.Ask("what now?")
	counter, _ := NewCounter(O200k, Estimate)
	ev, err := h.Prune(Limits{Turns: 1, Chars: 1 << 20}, counter, nil)
	if err != nil || !ev.Changed() {
		t.Fatalf("prune: %+v, %v", ev, err)
	}
	parts, changed, next, err := h.Parts()
	if err != nil || len(changed) == 0 {
		t.Fatalf("after pruning: %v changed, %v", changed, err)
	}
	var b strings.Builder
	b.WriteString(`{"messages":[`)
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(p)
	}
	fmt.Fprintf(&b, `],"next":%d}`, next)
	whole, _ := json.Marshal(h)
	if b.String() != string(whole) {
		t.Errorf("parts join to\n%s\nthe history is\n%s", b.String(), whole)
	}
}

// Forks run turns side by side over the same static layer; adopted back,
// their turns follow in order, each message once.
func TestHistoryFork(t *testing.T) {
	var h History
	h.Append(Message{Role: System, Content: "sys", Layer: Static})
	h.Append(Message{Role: User, Content: "diff", Layer: Static})
	h.Append(Message{Role: User, Content: "unit 1", Layer: Loop, Turn: 1})
	f1, f2 := h.Fork("u1.", 1), h.Fork("u2.", 2)
	f2.Append(Message{Role: User, Content: "unit 2", Layer: Loop, Turn: 2})
	f1.Append(Message{Role: Assistant, Content: "one", Layer: Loop, Turn: 1})
	f2.Append(Message{Role: Assistant, Content: "two", Layer: Loop, Turn: 2})
	if f1.Turns() != 1 || f2.Turns() != 2 || len(f2.Turn(1)) != 0 || f2.Messages()[2].ID != "u2.m1" {
		t.Fatalf("forks: %+v / %+v", f1.Messages(), f2.Messages())
	}
	snap := h.WithTurns(append(f1.TurnMessages(1), f2.TurnMessages(2)...))
	h.Adopt(f1, f2)
	var got, snapped []string
	for _, m := range h.Messages() {
		got = append(got, m.Content)
	}
	for _, m := range snap.Messages() {
		snapped = append(snapped, m.Content)
	}
	want := "sys diff unit 1 one unit 2 two"
	if strings.Join(got, " ") != want || strings.Join(snapped, " ") != want {
		t.Errorf("adopted %q, snapshot %q; want %q", got, snapped, want)
	}
}
