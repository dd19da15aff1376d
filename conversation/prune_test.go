package conversation

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// genText returns n runes of ASCII code or CJK prose.
func genText(r *rand.Rand, n int) string {
	if r.IntN(3) == 0 {
		return string([]rune(strings.Repeat("漢字のテキスト", n/7+1))[:n])
	}
	return strings.Repeat("x := f(y) // ok\n", n/16+1)[:n]
}

// genConversation builds a conversation of static messages and turns with
// random tool groups, the last turn being the current one (just asked).
func genConversation(r *rand.Rand) *History {
	c := &History{}
	c.Append(Message{Role: System, Layer: Static, Content: "system prompt"})
	c.Append(Message{Role: User, Layer: Static, Content: genText(r, 2000)})
	turns := 1 + r.IntN(12)
	call := 0
	for t := 1; t <= turns; t++ {
		c.Append(Message{Role: User, Layer: Loop, Turn: t, Content: "question " + genText(r, 20+r.IntN(300))})
		if t == turns {
			break
		}
		for g := r.IntN(4); g > 0; g-- {
			a := Message{Role: Assistant, Layer: Loop, Turn: t, Content: genText(r, r.IntN(50))}
			n := 1 + r.IntN(3)
			for i := 0; i < n; i++ {
				call++
				a.ToolCalls = append(a.ToolCalls, ToolCall{ID: fmt.Sprintf("call_%d", call), Name: "read_file_hunk", Arguments: fmt.Sprintf(`{"path":"f%d.go"}`, call)})
			}
			c.Append(a)
			for _, tc := range a.ToolCalls {
				m := Message{Role: Tool, Layer: Loop, Turn: t, ToolCallID: tc.ID, Name: tc.Name, Content: genText(r, 50+r.IntN(3000))}
				if r.IntN(4) > 0 {
					m.Ref = "ref" + tc.ID
				}
				c.Append(m)
			}
		}
		c.Append(Message{Role: Assistant, Layer: Loop, Turn: t, Content: "answer " + genText(r, r.IntN(5000))})
	}
	return c
}

func clone(c *History) *History {
	d := *c
	d.msgs = append([]Message(nil), c.msgs...)
	return &d
}

func TestPruneProperties(t *testing.T) {
	counter, _ := NewCounter(O200k, Estimate)
	for seed := range uint64(cases(300)) {
		r := rand.New(rand.NewPCG(seed, 7))
		c := genConversation(r)
		orig := clone(c)
		lim := Limits{Turns: r.IntN(5), Chars: 500 + r.IntN(20000), messageCap: 1000 + r.IntN(6000), digestChars: 4000}
		if r.IntN(2) == 0 {
			lim.Tokens = 1500 + r.IntN(6000)
		}
		ev, err := c.Prune(lim, counter, nil)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		cur := c.Turns()
		hist := c.prefix(cur + 1)

		// Static layer intact, first, in order.
		var static []Message
		for _, m := range orig.msgs {
			if m.Layer == Static {
				static = append(static, m)
			}
		}
		for i, m := range static {
			if hist[i].ID != m.ID || hist[i].Content != m.Content {
				t.Fatalf("seed %d: static message %d changed", seed, i)
			}
		}
		// Limits respected on the earlier turns.
		turns := c.earlierTurns(cur)
		if len(turns) > lim.Turns {
			t.Errorf("seed %d: %d earlier turns, limit %d", seed, len(turns), lim.Turns)
		}
		if n := c.chars(cur); n > lim.Chars && len(turns) > 0 {
			t.Errorf("seed %d: %d chars, limit %d", seed, n, lim.Chars)
		}
		if n := counter.CountMessages(hist); lim.Tokens > 0 && n > lim.Tokens && len(turns) > 0 {
			t.Errorf("seed %d: %d tokens, limit %d", seed, n, lim.Tokens)
		}
		for _, m := range hist {
			if m.earlier(cur) && runes(m.Content) > lim.messageCap {
				t.Errorf("seed %d: message %s has %d chars, cap %d", seed, m.ID, runes(m.Content), lim.messageCap)
			}
		}
		// Tool pairs intact in what would be sent, current turn included.
		if err := Validate(append(hist, c.turnMessages(cur)...)); err != nil {
			t.Errorf("seed %d: %v", seed, err)
		}
		// Nothing changed but by a recorded stub, cap or drop; the current
		// turn untouched.
		recorded := map[string]string{}
		for _, id := range ev.StubbedIDs {
			recorded[id] = "stub"
		}
		for _, id := range ev.Capped {
			recorded[id] += "cap"
		}
		for _, id := range ev.Dropped {
			recorded[id] += "drop"
		}
		for i, m := range c.msgs {
			if m.Layer == Summary {
				continue
			}
			o := orig.msgs[i]
			if o.ID != m.ID {
				t.Fatalf("seed %d: message order changed at %d", seed, i)
			}
			changed := o.Content != m.Content || m.Dropped
			if changed && recorded[m.ID] == "" {
				t.Errorf("seed %d: message %s changed without an event", seed, m.ID)
			}
			if changed && m.Turn == cur {
				t.Errorf("seed %d: current turn message %s changed", seed, m.ID)
			}
			if m.Stubbed && !strings.HasPrefix(m.Content, StubPrefix) {
				t.Errorf("seed %d: stub without prefix", seed)
			}
			if m.Stubbed && m.Ref != "" && !strings.Contains(m.Content, m.Ref) {
				t.Errorf("seed %d: stub of %s lost its ref", seed, m.ID)
			}
			if m.Stubbed && runes(m.Content) >= runes(o.Content) {
				t.Errorf("seed %d: stub of %s is no shorter than the preview it replaced", seed, m.ID)
			}
		}
		if len(ev.Dropped) > 0 && !strings.HasPrefix(c.summary(), DigestHeader) {
			t.Errorf("seed %d: dropped turns but no digest", seed)
		}
		// Idempotent.
		again := clone(c)
		ev2, err := again.Prune(lim, counter, nil)
		if err != nil || ev2.Changed() {
			t.Errorf("seed %d: second pass changed %+v (%v)", seed, ev2, err)
		}
		for i := range c.msgs {
			if !reflect.DeepEqual(c.msgs[i], again.msgs[i]) {
				t.Errorf("seed %d: second pass modified %s", seed, c.msgs[i].ID)
			}
		}
	}
}

// turnMessages are the kept messages of turn t.
func (c *History) turnMessages(t int) []Message {
	var out []Message
	for _, m := range c.msgs {
		if m.Turn == t && m.Layer == Loop && !m.Dropped {
			out = append(out, m)
		}
	}
	return out
}

func TestPruneNothingToDo(t *testing.T) {
	counter, _ := NewCounter("", Estimate)
	c := &History{}
	c.Append(Message{Role: System, Layer: Static, Content: "s"})
	c.Append(Message{Role: User, Layer: Loop, Turn: 1, Content: "q1"})
	c.Append(Message{Role: Assistant, Layer: Loop, Turn: 1, Content: "a1"})
	c.Append(Message{Role: User, Layer: Loop, Turn: 2, Content: "q2"})
	ev, err := c.Prune(Limits{Turns: 4, Chars: 1000}, counter, nil)
	if err != nil || ev.Changed() {
		t.Fatalf("changed %+v, %v", ev, err)
	}
	if h := c.prefix(3); len(h) != 4 || h[1].Layer != Window {
		t.Fatalf("history %+v", h)
	}
}

func TestPruneSummarizer(t *testing.T) {
	counter, _ := NewCounter("", Estimate)
	build := func() *History {
		c := &History{}
		c.Append(Message{Role: System, Layer: Static, Content: "s"})
		for turn := 1; turn <= 3; turn++ {
			c.Append(Message{Role: User, Layer: Loop, Turn: turn, Content: fmt.Sprintf("q%d", turn)})
			c.Append(Message{Role: Assistant, Layer: Loop, Turn: turn, Content: fmt.Sprintf("a%d", turn)})
		}
		return c
	}
	c := build()
	ev, err := c.Prune(Limits{Turns: 1, Chars: 1000}, counter, func(prev string, d []Message) (string, error) {
		return "model summary of " + d[0].Content, nil
	})
	if err != nil || ev.Summarizer != "model" || c.summary() != "model summary of q1" {
		t.Fatalf("%+v %v %q", ev, err, c.summary())
	}
	c = build()
	ev, err = c.Prune(Limits{Turns: 1, Chars: 1000}, counter, func(string, []Message) (string, error) {
		return "", fmt.Errorf("HTTP 500")
	})
	if err != nil || !strings.Contains(ev.Summarizer, "HTTP 500") || !strings.HasPrefix(c.summary(), DigestHeader) {
		t.Fatalf("fallback: %+v %v %q", ev, err, c.summary())
	}
}

func TestCapText(t *testing.T) {
	for _, n := range []int{100, 200, 1000} {
		for _, s := range []string{strings.Repeat("a", 5000), strings.Repeat("語", 5000)} {
			got := capText(s, n)
			if runes(got) > n {
				t.Errorf("capText(%d) = %d runes", n, runes(got))
			}
			if capText(got, n) != got {
				t.Errorf("capText not idempotent")
			}
		}
	}
}

func TestDigest(t *testing.T) {
	msgs := []Message{
		{Role: User, Turn: 2, Content: "why is this a race?"},
		{Role: Assistant, Turn: 2, ToolCalls: []ToolCall{{ID: "c1", Name: "read_file_hunk", Arguments: `{"path":"a.go","start_line":1}`}}},
		{Role: Tool, Turn: 2, ToolCallID: "c1", Ref: "k3f9a2", Content: "..."},
		{Role: Assistant, Turn: 2, ToolCalls: []ToolCall{{ID: "c2", Name: "submit_review", Arguments: `{"summary":"racy","findings":[{"path":"a.go","line":3,"severity":"high","title":"data race"}]}`}}},
	}
	d := digest("", msgs)
	for _, want := range []string{DigestHeader, "Turn 2 asked: why is this a race?", "ref k3f9a2", "files read: a.go", "[high] a.go:3 data race", "concluded: racy"} {
		if !strings.Contains(d, want) {
			t.Errorf("digest lacks %q:\n%s", want, d)
		}
	}
	d2 := digest(d, []Message{{Role: User, Turn: 3, Content: "and now?"}})
	if strings.Count(d2, DigestHeader) != 1 || !strings.Contains(d2, "Turn 2") || !strings.Contains(d2, "Turn 3") {
		t.Errorf("extended digest:\n%s", d2)
	}
}

// TestPruneExtraBoundFirst: what every request carries besides its
// messages is bounded first, like them, and counted exactly only when the
// bound comes near the stop line, so a turn far from it reads no
// tokenizer table; near it, the exact count decides.
func TestPruneExtraBoundFirst(t *testing.T) {
	counter, _ := NewCounter("", Tiktoken)
	history := func() *History {
		c := &History{}
		c.Append(Message{Role: System, Layer: Static, Content: "system"})
		c.Append(Message{Role: User, Layer: Loop, Turn: 1, Content: "q1"})
		c.Append(Message{Role: Assistant, Layer: Loop, Turn: 1, Content: "a1"})
		c.Append(Message{Role: User, Layer: Loop, Turn: 2, Content: "q2"})
		return c
	}
	const defs = "tool definitions of forty bytes or so...."
	var exact int
	extra := func(c *Counter) int {
		if c.Kind() == ExactCount {
			exact++
		}
		return c.Count(defs)
	}
	if _, err := history().Prune(Limits{Turns: 4, Chars: 1000, Tokens: 10_000, Extra: extra}, counter, nil); err != nil {
		t.Fatal(err)
	}
	if exact != 0 {
		t.Errorf("far from the line, Extra was counted exactly %d times", exact)
	}
	// The bound (its bytes) is over a line the exact count is under: the
	// exact count decides, and nothing is pruned.
	msgs := counter.Exact().CountMessages(history().prefix(3))
	line := msgs + counter.Exact().Count(defs) + 1
	if counter.Bounds().CountMessages(history().prefix(3))+len(defs) <= line {
		t.Fatalf("the bound is under the line %d: the test needs a closer one", line)
	}
	ev, err := history().Prune(Limits{Turns: 4, Chars: 1000, Tokens: line, Extra: extra}, counter, nil)
	if err != nil {
		t.Fatal(err)
	}
	if exact == 0 || ev.Changed() {
		t.Errorf("near the line: %d exact counts, changed %v; want the exact count to keep every turn", exact, ev.Changed())
	}
}

// TestPruneTargetWholeRequest holds a prune to its target over the whole
// request: the static layer, the tool definitions (Extra), the summary,
// the history and the question. Where what cannot be dropped passes the
// target alone, every earlier turn goes, the summary is shrunk, and the
// event says the history is at its floor; its request_tokens is the exact
// count of the request it leaves, never an estimate below it.
func TestPruneTargetWholeRequest(t *testing.T) {
	counter, err := NewCounter(O200k, Tiktoken)
	if err != nil {
		t.Fatal(err)
	}
	build := func(static int) *History {
		c := &History{}
		c.Append(Message{Role: System, Layer: Static, Content: "system prompt"})
		c.Append(Message{Role: User, Layer: Static, Content: strings.Repeat("the diff context, line by line\n", static)})
		for turn := 1; turn <= 6; turn++ {
			c.Append(Message{Role: User, Layer: Loop, Turn: turn, Content: fmt.Sprintf("question %d about the table", turn)})
			if turn == 6 {
				break
			}
			c.Append(Message{Role: Assistant, Layer: Loop, Turn: turn, Content: strings.Repeat(fmt.Sprintf("answer %d, with a reason. ", turn), 40)})
		}
		return c
	}
	tools := func(c *Counter) int { return 300 }
	lim := Limits{Turns: 10, Chars: 1 << 20, messageCap: 1 << 20, digestChars: 4000, Tokens: 1600, target: 1000, Extra: tools, Select: SelectRecency}
	for _, tc := range []struct {
		name   string
		static int
		floor  bool
	}{
		{"room for history", 20, false},
		{"static and tools pass the target", 150, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := build(tc.static)
			ev, err := c.Prune(lim, counter, nil)
			if err != nil {
				t.Fatal(err)
			}
			whole := counter.Exact().CountMessages(c.prefix(c.Turns()+1)) + tools(counter)
			if ev.Line != lim.target || ev.Request != whole || ev.Floor != tc.floor || ev.After.Estimated {
				t.Fatalf("line %d, request %d (whole %d), floor %v, estimated %v", ev.Line, ev.Request, whole, ev.Floor, ev.After.Estimated)
			}
			if !tc.floor && whole > lim.target {
				t.Errorf("request %d over the target %d with no floor said", whole, lim.target)
			}
			if tc.floor && len(c.earlierTurns(c.Turns())) != 0 {
				t.Errorf("at the floor with earlier turns kept: %v", c.earlierTurns(c.Turns()))
			}
		})
	}
}
