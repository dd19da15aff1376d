package conversation

import "testing"

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
