package conversation

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/internal/toolname"
)

// Limits bound the history a tool loop starts with.
type Limits struct {
	// Turns is the most earlier turns kept.
	Turns int
	// Chars is the most characters (runes) of earlier turns kept.
	Chars int
	// MessageCap truncates a single earlier message longer than this.
	MessageCap int
	// Tokens, if positive, bounds the whole history plus the current turn
	// in tokens: the context window less the answer reserve.
	Tokens int
	// DigestChars bounds the summary of dropped turns.
	DigestChars int
	// Select chooses the turns kept when not all fit: SelectRelevance
	// (the default, "") or SelectRecency.
	Select string
}

// LimitsFrom derives pruning limits from a budget.
func LimitsFrom(b Budget) Limits {
	return Limits{Turns: b.HistoryTurns, Chars: b.HistoryChars, MessageCap: b.MessageCap, Tokens: b.Input(), DigestChars: 4000, Select: b.HistorySelect}
}

// Stats measure a set of messages.
type Stats struct {
	Messages int `json:"messages"`
	Chars    int `json:"chars"`
	Tokens   int `json:"tokens"`
	// Estimated says Tokens is an estimate (Counter.Estimates).
	Estimated bool `json:"tokens_estimated,omitempty"`
}

// PruneEvent records one pruning pass: what it changed and why. It is
// stored with the run and shown in place by replay.
type PruneEvent struct {
	Kind    string   `json:"kind"` // always "prune"
	Turn    int      `json:"turn"` // the turn whose loop this history starts
	Reasons []string `json:"reasons"`
	Before  Stats    `json:"before"`
	After   Stats    `json:"after"`
	// Stubbed lists the refs whose previews became stubs, StubbedIDs the
	// messages; Capped the messages truncated; Dropped the messages of
	// dropped turns.
	Stubbed    []string `json:"stubbed,omitempty"`
	StubbedIDs []string `json:"stubbed_ids,omitempty"`
	Capped     []string `json:"capped,omitempty"`
	Dropped    []string `json:"dropped,omitempty"`
	// Restored lists the messages of turns an earlier pass dropped that
	// relevance to the new question brought back.
	Restored []string `json:"restored,omitempty"`
	// Digest is the summary layer's text after this pass, and Summarizer
	// says who wrote it ("rules", "model", or why the model's was not used).
	Digest     string `json:"digest,omitempty"`
	Summarizer string `json:"summarizer,omitempty"`
	// Select is how the kept turns were chosen, and Scores how each
	// earlier turn scored (relevance selection only).
	Select string      `json:"select,omitempty"`
	Scores []TurnScore `json:"scores,omitempty"`
}

// Changed reports whether the pass changed anything.
func (e *PruneEvent) Changed() bool {
	return len(e.StubbedIDs)+len(e.Capped)+len(e.Dropped)+len(e.Restored) > 0
}

// Summarizer writes the summary of dropped turns from the previous summary
// and the newly dropped messages. The rule-based Digest is the default and
// the fallback when a model-written summary fails.
type Summarizer func(prev string, dropped []Message) (string, error)

// Prune fits the earlier turns of c into lim before the loop of the latest
// turn starts, changing c in place, and returns the event describing what it
// did (Changed false when nothing needed doing). The static layer and the
// latest turn are never touched. It is idempotent: a second pass with the same
// limits changes nothing. lim.Tokens is decided by counter's exact view,
// bounds first; the event's figures are counted as counter counts.
//
// In order: if the earlier turns are over a limit, every tool preview in
// them becomes a one-line stub at once (a batch, so the prefix then stays
// stable for several turns instead of shifting every turn); oldest whole
// turns are dropped until at most lim.Turns remain and their characters fit
// lim.Chars and the whole request fits lim.Tokens; a single message over
// lim.MessageCap is cut to its head and tail. Dropped turns are folded into
// the summary layer by sum (Digest when nil).
func Prune(c *Conversation, lim Limits, counter *Counter, sum Summarizer) (*PruneEvent, error) {
	cur := c.Turns()
	ev := &PruneEvent{Kind: "prune", Turn: cur}
	ev.Before = c.stats(counter)
	// Relevance selection reconsiders every earlier turn, those an earlier
	// pass dropped too: a question about an old turn's file brings it
	// back. The summary is then rewritten from the turns dropped now.
	relevance := lim.Select != SelectRecency
	wasDropped := map[string]bool{}
	if relevance {
		for i := range c.Messages {
			if m := &c.Messages[i]; m.earlier(cur) && m.Dropped {
				wasDropped[m.ID] = true
				m.Dropped = false
			}
		}
	}

	earlier := func() []int { return c.earlierTurns(cur) }
	charsOf := func() int { return c.chars(cur) }
	// The bound settles most checks; the exact count decides near the
	// limit.
	overTokens := func() bool {
		if lim.Tokens <= 0 {
			return false
		}
		h := c.History(cur + 1)
		return counter.Bounds().CountMessages(h) > lim.Tokens && counter.Exact().CountMessages(h) > lim.Tokens
	}

	// Cap oversized messages first: a single pasted log should not cost
	// every other turn its place.
	if lim.MessageCap > 0 {
		for i := range c.Messages {
			m := &c.Messages[i]
			if !m.earlier(cur) || m.Dropped || runes(m.Content) <= lim.MessageCap {
				continue
			}
			m.Content = capText(m.Content, lim.MessageCap)
			m.Capped = true
			ev.Capped = append(ev.Capped, m.ID)
			ev.addReason("message_cap")
		}
	}

	over := len(earlier()) > lim.Turns || charsOf() > lim.Chars || overTokens()
	if over {
		args := c.callArgs()
		for i := range c.Messages {
			m := &c.Messages[i]
			if !m.earlier(cur) || m.Dropped || m.Stubbed || m.Role != Tool {
				continue
			}
			s := stub(*m, args[m.ToolCallID])
			if runes(s) >= runes(m.Content) {
				// A short result ("Review received: 2 findings.") is
				// already smaller than its stub would be.
				continue
			}
			m.Content = s
			m.Stubbed = true
			ev.StubbedIDs = append(ev.StubbedIDs, m.ID)
			if m.Ref != "" {
				ev.Stubbed = append(ev.Stubbed, m.Ref)
			}
		}
		if len(ev.StubbedIDs) > 0 {
			ev.addReason("stub")
		}
	}

	// The summary grows as turns are dropped, and counts against the token
	// limit, so it is rewritten after every drop; the rule-based digest
	// is used while deciding, a model's only once the set is final.
	prev := c.summary()
	orig := prev
	if relevance {
		prev = ""
	}
	var dropped []Message
	// With relevance selection the turns go in the order of their scores
	// against the new question, computed once; with recency, oldest first.
	var order []int
	if relevance {
		if turns := earlier(); len(turns) > 0 && (len(turns) > lim.Turns || charsOf() > lim.Chars || overTokens()) {
			ev.Select = SelectRelevance
			ev.Scores = c.scoreTurns(turns, c.question(cur))
			order = dropOrder(ev.Scores)
		}
	}
	for {
		turns := earlier()
		if len(turns) == 0 {
			break
		}
		reason := ""
		switch {
		case len(turns) > lim.Turns:
			reason = "turns"
		case charsOf() > lim.Chars:
			reason = "chars"
		case overTokens():
			reason = "tokens"
		}
		if reason == "" {
			break
		}
		ev.addReason(reason)
		victim := turns[0]
		if len(order) > 0 {
			victim, order = order[0], order[1:]
		}
		for i := range c.Messages {
			m := &c.Messages[i]
			if m.Turn == victim && m.Layer != Static && m.Layer != Summary && !m.Dropped {
				m.Dropped = true
				dropped = append(dropped, *m)
				if !wasDropped[m.ID] {
					ev.Dropped = append(ev.Dropped, m.ID)
				}
			}
		}
		c.setSummary(clipDigest(Digest(prev, dropped), lim.DigestChars))
	}

	for i := range ev.Scores {
		ev.Scores[i].Kept = slices.Contains(earlier(), ev.Scores[i].Turn)
	}
	for i := range c.Messages {
		if m := &c.Messages[i]; wasDropped[m.ID] && !m.Dropped {
			ev.Restored = append(ev.Restored, m.ID)
		}
	}
	if relevance && len(dropped) == 0 && len(wasDropped) > 0 {
		// Every turn is back: no summary of dropped turns is left.
		for i := range c.Messages {
			if c.Messages[i].Layer == Summary {
				c.Messages[i].Dropped = true
			}
		}
	}
	if relevance && len(ev.Restored) == 0 {
		// No turn came back: the summary grows from the one before, which
		// may be a model's, by the turns dropped now, as with recency.
		var fresh []Message
		for _, m := range dropped {
			if !wasDropped[m.ID] {
				fresh = append(fresh, m)
			}
		}
		prev, dropped = orig, fresh
		switch {
		case len(fresh) > 0:
			c.setSummary(clipDigest(Digest(prev, fresh), lim.DigestChars))
		case orig != "":
			c.setSummary(orig)
		}
	}
	if len(dropped) > 0 {
		ev.Summarizer = "rules"
		if sum != nil {
			rules := c.summary()
			d, err := sum(prev, dropped)
			switch {
			case err != nil || strings.TrimSpace(d) == "":
				ev.Summarizer = "rules (model summary failed: " + errText(err) + ")"
			default:
				c.setSummary(clipDigest(d, lim.DigestChars))
				ev.Summarizer = "model"
				if overTokens() {
					c.setSummary(rules)
					ev.Summarizer = "rules (model summary did not fit the token budget)"
				}
			}
		}
		ev.Digest = c.summary()
	}
	if err := Validate(c.History(cur + 1)); err != nil {
		return ev, fmt.Errorf("pruning left an invalid conversation: %w", err)
	}
	ev.After = c.stats(counter)
	return ev, nil
}

func (e *PruneEvent) addReason(r string) {
	for _, x := range e.Reasons {
		if x == r {
			return
		}
	}
	e.Reasons = append(e.Reasons, r)
}

func errText(err error) string {
	if err == nil {
		return "empty summary"
	}
	return err.Error()
}

// question is the text of turn cur's user message: what a follow-up asks.
func (c *Conversation) question(cur int) string {
	for _, m := range c.Messages {
		if m.Turn == cur && m.Role == User {
			return m.Content
		}
	}
	return ""
}

// earlier reports whether m belongs to a turn before cur.
func (m *Message) earlier(cur int) bool {
	return m.Layer != Static && m.Layer != Summary && m.Turn > 0 && m.Turn < cur
}

// History is what a request of turn cur starts with: the static layer, the
// summary, then the kept messages of earlier turns, in order. The loop
// appends the current turn's messages after it.
func (c *Conversation) History(cur int) []Message {
	var static, summary, window []Message
	for _, m := range c.Messages {
		switch {
		case m.Dropped:
		case m.Layer == Static:
			static = append(static, m)
		case m.Layer == Summary:
			summary = append(summary, m)
		case m.Turn > 0 && m.Turn < cur:
			m.Layer = Window
			window = append(window, m)
		}
	}
	return append(append(static, summary...), window...)
}

// earlierTurns lists the numbers of the kept turns before cur, oldest first.
func (c *Conversation) earlierTurns(cur int) []int {
	seen := map[int]bool{}
	var out []int
	for i := range c.Messages {
		m := &c.Messages[i]
		if m.earlier(cur) && !m.Dropped && !seen[m.Turn] {
			seen[m.Turn] = true
			out = append(out, m.Turn)
		}
	}
	sort.Ints(out)
	return out
}

// chars counts the characters of the kept earlier turns. The summary is
// bounded on its own (Limits.DigestChars) and by the token check.
func (c *Conversation) chars(cur int) int {
	n := 0
	for i := range c.Messages {
		m := &c.Messages[i]
		if m.earlier(cur) && !m.Dropped {
			n += msgChars(*m)
		}
	}
	return n
}

func msgChars(m Message) int {
	n := runes(m.Content)
	for _, tc := range m.ToolCalls {
		n += runes(tc.Name) + runes(tc.Arguments)
	}
	return n
}

func runes(s string) int { return utf8.RuneCountInString(s) }

func (c *Conversation) stats(counter *Counter) Stats {
	h := c.History(c.Turns() + 1)
	s := Stats{Messages: len(h), Tokens: counter.CountMessages(h), Estimated: counter.Kind() != ExactCount}
	for _, m := range h {
		s.Chars += msgChars(m)
	}
	return s
}

// callArgs maps tool call IDs to their arguments.
func (c *Conversation) callArgs() map[string]ToolCall {
	out := map[string]ToolCall{}
	for _, m := range c.Messages {
		for _, tc := range m.ToolCalls {
			out[tc.ID] = tc
		}
	}
	return out
}

func (c *Conversation) summary() string {
	for _, m := range c.Messages {
		if m.Layer == Summary {
			return m.Content
		}
	}
	return ""
}

// setSummary replaces the summary layer with one message holding digest.
// The summary sits after the static layer wherever it is in the slice,
// because History orders by layer.
func (c *Conversation) setSummary(digest string) {
	for i := range c.Messages {
		if c.Messages[i].Layer == Summary {
			c.Messages[i].Content = digest
			c.Messages[i].Dropped = false
			return
		}
	}
	c.Append(Message{Role: User, Layer: Summary, Content: digest})
}

// StubPrefix starts every stub, so stubs are recognisable and never stubbed
// twice.
const StubPrefix = "[stub] "

// stub is the one-line replacement of a tool preview: the tool, its
// arguments in brief, and where the full output is.
func stub(m Message, call ToolCall) string {
	name := m.Name
	if name == "" {
		name = call.Name
	}
	args := text.OneLine(call.Arguments, 120)
	if m.Ref != "" {
		return fmt.Sprintf(`%s%s %s → output stored as ref %s (%d chars shown earlier); read it with `+toolname.ReadToolOutput+` {"ref": %q}`,
			StubPrefix, name, args, m.Ref, runes(m.Content), m.Ref)
	}
	return fmt.Sprintf("%s%s %s → %s", StubPrefix, name, args, text.OneLine(m.Content, 120))
}

// capMarker joins the head and tail of a capped message.
const capMarker = "\n[… %d characters cut from this message …]\n"

// capText keeps the head and tail of s within n runes, marked in the middle.
func capText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	// The widest marker this cut can need, so the result never exceeds n.
	keep := max(n-runes(fmt.Sprintf(capMarker, len(r))), 0)
	head := keep * 2 / 3
	tail := keep - head
	cut := len(r) - head - tail
	return string(r[:head]) + fmt.Sprintf(capMarker, cut) + string(r[len(r)-tail:])
}

// clipDigest bounds a digest, keeping its newest lines: the summary should
// remember what was concluded last.
func clipDigest(d string, n int) string {
	if n <= 0 || runes(d) <= n {
		return d
	}
	lines := strings.Split(d, "\n")
	head := lines[0]
	var kept []string
	total := runes(head) + 1
	for i := len(lines) - 1; i > 0; i-- {
		if total+runes(lines[i])+1 > n {
			break
		}
		total += runes(lines[i]) + 1
		kept = append([]string{lines[i]}, kept...)
	}
	return strings.Join(append([]string{head}, kept...), "\n")
}
