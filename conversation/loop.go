package conversation

import (
	"errors"
	"maps"
)

// loopView is the request view of the tool loop running for the latest
// turn: the history before the turn, then the turn's messages, appended
// only.
type loopView struct {
	turn int
	sent []Message
	// reasoning is the reasoning_content of this loop's assistant
	// messages, by message ID: sent back within the loop only, as
	// reasoning models require.
	reasoning map[string]string
	// tokens is the count of the next request: its messages and what
	// extra counts (the tool definitions). It grows with each appended
	// message rather than being recounted every step, which would make a
	// loop quadratic in its length. It is an upper bound (Counter.Bounds)
	// until exact is set, when the exact count takes over.
	tokens int
	exact  bool
	count  *Counter
	extra  func(*Counter) int
}

func (v *loopView) counter() *Counter {
	if v.exact {
		return v.count
	}
	return v.count.Bounds()
}

func (v *loopView) recount() {
	c := v.counter()
	v.tokens = c.CountMessages(v.sent)
	if v.extra != nil {
		v.tokens += v.extra(c)
	}
}

// BeginLoop starts the request view of the latest turn's tool loop: the
// static layer, the summary and the kept earlier turns, then the messages
// the turn already has (its question). count counts the requests, by upper
// bounds until exact is set; extra counts what every request carries
// besides its messages (the tool definitions), as the counter it is given
// counts. The view lasts until EndLoop or the next BeginLoop.
func (c *History) BeginLoop(count *Counter, exact bool, extra func(*Counter) int) {
	turn := c.Turns()
	v := &loopView{turn: turn, sent: c.prefix(turn), count: count, exact: exact, extra: extra}
	for _, m := range c.msgs {
		if m.Layer == Loop && m.Turn == turn && !m.Dropped {
			v.sent = append(v.sent, m)
		}
	}
	v.recount()
	c.loop = v
}

// EndLoop closes the request view: the next turn's history goes without
// this loop's reasoning.
func (c *History) EndLoop() { c.loop = nil }

// Request is what the next request of the running loop carries, checked
// for the call/result pairing a provider requires. The slice is the
// view's own: callers read it and do not keep it past the next change.
func (c *History) Request() ([]Message, error) {
	if c.loop == nil {
		return nil, errors.New("no tool loop is running")
	}
	if err := Validate(c.loop.sent); err != nil {
		return nil, err
	}
	return c.loop.sent, nil
}

// Reasoning is the reasoning sent back with the loop's assistant
// messages, by message ID.
func (c *History) Reasoning() map[string]string {
	if c.loop == nil {
		return nil
	}
	return maps.Clone(c.loop.reasoning)
}

// SetReasoning keeps the reasoning of the loop's assistant message id.
func (c *History) SetReasoning(id, r string) {
	if c.loop == nil || r == "" {
		return
	}
	if c.loop.reasoning == nil {
		c.loop.reasoning = map[string]string{}
	}
	c.loop.reasoning[id] = r
}

// Tokens is the running count of the next request, and whether it is
// exact (else an upper bound).
func (c *History) Tokens() (n int, exact bool) {
	if c.loop == nil {
		return 0, false
	}
	return c.loop.tokens, c.loop.exact
}

// CountExactly makes the running count exact from now on.
func (c *History) CountExactly() {
	if v := c.loop; v != nil && !v.exact {
		v.exact = true
		v.recount()
	}
}

// Recount counts the next request whole, after what extra counts changed
// (fewer tools offered).
func (c *History) Recount() {
	if c.loop != nil {
		c.loop.recount()
	}
}

// DropLastStep takes the model's last tool calls and their results off the
// requests to come, when the loop has any: the request that carried them
// was refused as too long. The history keeps them; the next request is
// the last one that fitted, plus what is appended to it.
func (c *History) DropLastStep() bool {
	v := c.loop
	if v == nil {
		return false
	}
	for i := len(v.sent) - 1; i >= 0; i-- {
		m := v.sent[i]
		if m.Layer != Loop || m.Turn != v.turn {
			return false
		}
		if m.Role == Assistant && len(m.ToolCalls) > 0 {
			v.sent = v.sent[:i]
			v.recount()
			return true
		}
	}
	return false
}

// FirstTurn returns the diff context of the static layer (its first user
// message) and the task of the first turn, which Replan may rewrite.
func (c *History) FirstTurn() (context, task string, ok bool) {
	ci, ti := c.firstTurn()
	if ci < 0 || ti < 0 {
		return "", "", false
	}
	return c.msgs[ci].Content, c.msgs[ti].Content, true
}

func (c *History) firstTurn() (ci, ti int) {
	ci, ti = -1, -1
	for i, m := range c.msgs {
		switch {
		case m.Role != User:
		case m.Layer == Static && ci < 0:
			ci = i
		case m.Turn == 1 && ti < 0:
			ti = i
		}
	}
	return ci, ti
}

// Replan rewrites the diff context and the first turn's task: the one
// change the static layer allows, and only while the provider has taken
// no request with it (the first request was refused as too long). The
// caller records it as a replan event.
func (c *History) Replan(context, task string) error {
	ci, ti := c.firstTurn()
	if ci < 0 || ti < 0 {
		return errors.New("no first turn to replan")
	}
	if c.Turns() != 1 {
		return errors.New("only the first turn of a run can be replanned")
	}
	c.msgs[ci].Content = context
	c.msgs[ti].Content = task
	c.touch(ci)
	c.touch(ti)
	return nil
}
