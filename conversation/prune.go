package conversation

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
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
	// messageCap truncates a single earlier message longer than this.
	messageCap int
	// Tokens, if positive, is the stop line in tokens (Budget.StopLine):
	// a turn whose first request, counted whole (its messages and Extra),
	// would start above it is pruned down to target in one step.
	Tokens int
	// target is what a turn over Tokens is pruned down to; 0 is Tokens.
	target int
	// Extra counts, with the counter it is given, what every request
	// carries besides its messages (the tool definitions): a bound first,
	// exactly only near the stop line. Nil is nothing.
	Extra func(*Counter) int
	// digestChars bounds the summary of dropped turns.
	digestChars int
	// Select chooses the turns kept when not all fit: SelectRelevance
	// (the default, "") or SelectRecency.
	Select string
}

// LimitsFrom derives pruning limits from a budget: the same stop line the
// loop holds its requests to, and the same counts.
func LimitsFrom(b Budget) Limits {
	return Limits{Turns: b.HistoryTurns, Chars: b.historyCharsCap(), messageCap: b.messageChars(), Tokens: b.StopLine(), target: b.pruneTo(),
		digestChars: b.summaryChars(), Select: b.HistorySelect}
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
	// Line is the token line the pass pruned to (the stop line, or the
	// target below it), counted with the tool definitions; Saved is the
	// share of the history's tokens the pass took off.
	Line  int     `json:"line_tokens,omitempty"`
	Saved float64 `json:"saved,omitempty"`
	// Request is the turn's first request as the pass leaves it, counted
	// as Line is: the static layer, the summary, the kept history, the
	// question and the tool definitions.
	Request int `json:"request_tokens,omitempty"`
	// Floor says the pass could not bring the request down to Line: what
	// it cannot drop (the static layer, the tool definitions, the
	// question and the summary at its cap) passes it alone, so every
	// earlier turn went.
	Floor bool `json:"floor,omitempty"`
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
// and the newly dropped messages. The rule-based digest is the default and
// the fallback when a model-written summary fails.
type Summarizer func(prev string, dropped []Message) (string, error)

// Prune fits the earlier turns into lim before the loop of the latest turn
// starts, changing the history in place, and returns the event describing
// what it did (Changed false when nothing needed doing). The static layer
// and the latest turn are never touched. It is idempotent: a second pass
// with the same limits changes nothing. lim.Tokens is decided by counter's
// exact view, bounds first; the event's figures are counted as counter
// counts.
//
// In order: a single message over lim.messageCap is cut to its head and
// tail; if the earlier turns are over a limit, every tool preview in them
// becomes a one-line stub at once (a batch, so the prefix then stays
// stable for several turns instead of shifting every turn); then whole
// turns are dropped (oldest first, or least relevant to the question)
// until at most lim.Turns remain, their characters fit lim.Chars and the
// whole request fits lim.Tokens. Dropped turns are folded into the summary
// layer by sum (the rule-based digest when nil).
//
// The event's token figures are exact counts (Counter.Exact), or the
// counter's estimates in Estimate mode, marked so: a figure that says a
// request fits must not be below what it counts.
func (c *History) Prune(lim Limits, counter *Counter, sum Summarizer) (*PruneEvent, error) {
	p := &pruner{c: c, lim: lim, counter: counter, cur: c.Turns(), relevance: lim.Select != SelectRecency}
	p.ev = &PruneEvent{Kind: "prune", Turn: p.cur}
	before := c.prefix(p.cur + 1)
	p.line = lim.Tokens
	// Turns an earlier pass dropped are reconsidered when this turn must
	// prune anyway, or when the question names one of them and it scores
	// above a turn kept (recalls): a history within its limits otherwise
	// stays as it is, so the prefix a prune left holds for the turns after
	// it. A recall changes that prefix, on purpose; the event says so.
	if p.over() || p.recalls() {
		p.reconsider()
	} else {
		p.orig, p.wasDropped = c.summary(), map[string]bool{}
	}
	p.chars, p.turns = lim.Chars, lim.Turns
	if lim.target > 0 && lim.target < lim.Tokens {
		if p.overTokens() {
			p.line = lim.target
		}
		// Characters over their cap are pruned down in the same
		// proportion, for the same reason; turns too, keeping two at
		// least (or all --history-turns asks for, if fewer).
		if p.c.chars(p.cur) > lim.Chars {
			p.chars = int(int64(lim.Chars) * int64(lim.target) / int64(lim.Tokens))
		}
		if len(p.earlier()) > lim.Turns {
			p.turns = max(min(2, lim.Turns), lim.Turns*lim.target/lim.Tokens)
		}
	}
	p.capMessages()
	if p.over() {
		p.stubPreviews()
	}
	dropped := p.dropTurns()
	prev, dropped := p.settleSummary(dropped)
	p.summarize(sum, prev, dropped)
	p.fitSummary()
	if err := Validate(c.prefix(p.cur + 1)); err != nil {
		return p.ev, fmt.Errorf("pruning left an invalid conversation: %w", err)
	}
	if !p.ev.Changed() {
		return p.ev, nil
	}
	exact := counter.Exact()
	p.ev.Before = stats(before, exact)
	p.ev.After = stats(c.prefix(p.cur+1), exact)
	p.ev.Line = p.line
	p.ev.Request = p.ev.After.Tokens
	if p.lim.Extra != nil {
		p.ev.Request += p.lim.Extra(exact)
	}
	p.ev.Floor = p.lim.Tokens > 0 && p.ev.Request > p.line && len(p.earlier()) == 0
	if b := p.ev.Before.Tokens; b > 0 && p.ev.After.Tokens < b {
		p.ev.Saved = math.Round(1000*float64(b-p.ev.After.Tokens)/float64(b)) / 1000
	}
	return p.ev, nil
}

// pruner is one pass of Prune, in phases.
type pruner struct {
	c         *History
	lim       Limits
	counter   *Counter
	cur       int
	ev        *PruneEvent
	relevance bool
	// wasDropped are the messages an earlier pass dropped, which
	// relevance selection reconsiders.
	wasDropped map[string]bool
	// orig is the summary before this pass.
	orig string
	// line is the token line this pass prunes to: lim.Tokens, or
	// lim.target once the turn would start above lim.Tokens; chars and
	// turns the characters and turns kept, lim's or as much less once
	// over them.
	line, chars, turns int
}

// reconsider brings back, for relevance selection, every earlier turn an
// earlier pass dropped: a question about an old turn's file brings it
// back. The summary is then rewritten from the turns dropped now.
func (p *pruner) reconsider() {
	p.orig = p.c.summary()
	p.wasDropped = map[string]bool{}
	if !p.relevance {
		return
	}
	for i := range p.c.msgs {
		if m := &p.c.msgs[i]; m.earlier(p.cur) && m.Dropped {
			p.wasDropped[m.ID] = true
			m.Dropped = false
			p.c.touch(i)
		}
	}
}

func (p *pruner) earlier() []int { return p.c.earlierTurns(p.cur) }

// recalls reports, for relevance selection, whether the question names a
// turn an earlier pass dropped — a ref it produced, a path or an
// identifier in it, not only common words — that scores above a turn
// kept, or that would be the only earlier turn.
func (p *pruner) recalls() bool {
	if !p.relevance {
		return false
	}
	dropped := map[int]bool{}
	all := map[int]bool{}
	for i := range p.c.msgs {
		if m := &p.c.msgs[i]; m.earlier(p.cur) {
			all[m.Turn] = true
			if m.Dropped {
				dropped[m.Turn] = true
			}
		}
	}
	if len(dropped) == 0 {
		return false
	}
	turns := make([]int, 0, len(all))
	for t := range all {
		turns = append(turns, t)
	}
	sort.Ints(turns)
	q := p.c.question(p.cur)
	scores := p.c.scoreTurns(turns, q)
	strong := map[string]bool{}
	for _, t := range questionTerms(q) {
		// A path or an identifier; a number ("question 12") names
		// nothing, however often it occurs.
		if t.weight == strongWeight && strings.ContainsFunc(t.text, unicode.IsLetter) {
			strong[t.text] = true
		}
	}
	names := func(s TurnScore) bool {
		return s.Named || slices.ContainsFunc(s.Terms, func(t string) bool { return strong[t] })
	}
	lowest, kept := math.Inf(1), false
	for _, s := range scores {
		if !dropped[s.Turn] {
			lowest, kept = min(lowest, s.Score), true
		}
	}
	if !kept {
		lowest = math.Inf(-1) // nothing kept: any named turn is above it
	}
	for _, s := range scores {
		if dropped[s.Turn] && names(s) && s.Relevance >= minRelevance && s.Score > lowest {
			return true
		}
	}
	return false
}

// overTokens reports whether the next request is over lim.Tokens. The
// bound settles most checks; the exact count decides near the limit.
func (p *pruner) overTokens() bool {
	if p.lim.Tokens <= 0 {
		return false
	}
	h := p.c.prefix(p.cur + 1)
	line := cmp.Or(p.line, p.lim.Tokens)
	count := func(c *Counter) int {
		n := c.CountMessages(h)
		if p.lim.Extra != nil {
			n += p.lim.Extra(c)
		}
		return n
	}
	return count(p.counter.Bounds()) > line && count(p.counter.Exact()) > line
}

// overReason names the first limit the earlier turns are over, "" when
// they fit.
func (p *pruner) overReason() string {
	switch {
	case len(p.earlier()) > p.maxTurns():
		return "turns"
	case p.c.chars(p.cur) > cmp.Or(p.chars, p.lim.Chars):
		return "chars"
	case p.overTokens():
		return "tokens"
	}
	return ""
}

func (p *pruner) over() bool { return p.overReason() != "" }

// maxTurns is the most earlier turns this pass keeps.
func (p *pruner) maxTurns() int {
	if p.turns > 0 && p.turns < p.lim.Turns {
		return p.turns
	}
	return p.lim.Turns
}

// capMessages cuts oversized messages first: a single pasted log should
// not cost every other turn its place.
func (p *pruner) capMessages() {
	if p.lim.messageCap <= 0 {
		return
	}
	for i := range p.c.msgs {
		m := &p.c.msgs[i]
		if !m.earlier(p.cur) || m.Dropped || runes(m.Content) <= p.lim.messageCap {
			continue
		}
		m.Content = capText(m.Content, p.lim.messageCap)
		m.Capped = true
		p.c.touch(i)
		p.ev.Capped = append(p.ev.Capped, m.ID)
		p.ev.addReason("message_cap")
	}
}

// stubPreviews turns every earlier tool preview into its one-line stub.
func (p *pruner) stubPreviews() {
	args := p.c.callArgs()
	for i := range p.c.msgs {
		m := &p.c.msgs[i]
		if !m.earlier(p.cur) || m.Dropped || m.Stubbed || m.Role != Tool {
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
		p.c.touch(i)
		p.ev.StubbedIDs = append(p.ev.StubbedIDs, m.ID)
		if m.Ref != "" {
			p.ev.Stubbed = append(p.ev.Stubbed, m.Ref)
		}
	}
	if len(p.ev.StubbedIDs) > 0 {
		p.ev.addReason("stub")
	}
}

// dropTurns drops whole earlier turns while they are over a limit and
// returns the messages dropped. With relevance selection the turns go in
// the order of their scores against the new question, computed once; with
// recency, oldest first. The summary grows as turns are dropped, and
// counts against the token limit, so it is rewritten after every drop; the
// rule-based digest is used while deciding, a model's only once the set is
// final.
func (p *pruner) dropTurns() []Message {
	prev := p.orig
	var order []int
	if p.relevance {
		prev = ""
		if turns := p.earlier(); len(turns) > 0 && p.over() {
			p.ev.Select = SelectRelevance
			p.ev.Scores = p.c.scoreTurns(turns, p.c.question(p.cur))
			order = dropOrder(p.ev.Scores)
		}
	}
	var dropped []Message
	digests := map[int]string{}
	for {
		turns := p.earlier()
		if len(turns) == 0 {
			break
		}
		reason := p.overReason()
		if reason == "" {
			break
		}
		p.ev.addReason(reason)
		victim := turns[0]
		if len(order) > 0 {
			victim, order = order[0], order[1:]
		}
		first := len(dropped)
		for i := range p.c.msgs {
			m := &p.c.msgs[i]
			if m.Turn == victim && m.Layer != Static && m.Layer != Summary && !m.Dropped {
				m.Dropped = true
				p.c.touch(i)
				dropped = append(dropped, *m)
				if !p.wasDropped[m.ID] {
					p.ev.Dropped = append(p.ev.Dropped, m.ID)
				}
			}
		}
		// The summary extends the digests made so far by the victim's:
		// each dropped turn is digested once.
		digests[victim] = turnDigest(victim, dropped[first:])
		p.c.setSummary(clipDigest(joinDigest(prev, digests), p.lim.digestChars))
	}
	kept := p.earlier()
	for i := range p.ev.Scores {
		p.ev.Scores[i].Kept = slices.Contains(kept, p.ev.Scores[i].Turn)
	}
	for i := range p.c.msgs {
		if m := &p.c.msgs[i]; p.wasDropped[m.ID] && !m.Dropped {
			p.ev.Restored = append(p.ev.Restored, m.ID)
		}
	}
	return dropped
}

// settleSummary fixes the summary relevance selection leaves: none when
// every turn is back; when no turn came back, the summary before this pass
// (which may be a model's) grown by the turns dropped now, as with
// recency. It returns the summary the turns dropped now extend, and them.
func (p *pruner) settleSummary(dropped []Message) (string, []Message) {
	if !p.relevance {
		return p.orig, dropped
	}
	if len(dropped) == 0 && len(p.wasDropped) > 0 {
		for i := range p.c.msgs {
			if p.c.msgs[i].Layer == Summary {
				p.c.msgs[i].Dropped = true
				p.c.touch(i)
			}
		}
	}
	if len(p.ev.Restored) > 0 {
		return "", dropped
	}
	var fresh []Message
	for _, m := range dropped {
		if !p.wasDropped[m.ID] {
			fresh = append(fresh, m)
		}
	}
	switch {
	case len(fresh) > 0:
		p.c.setSummary(clipDigest(digest(p.orig, fresh), p.lim.digestChars))
	case p.orig != "":
		p.c.setSummary(p.orig)
	}
	return p.orig, fresh
}

// summarize has sum write the summary of the turns dropped now, when there
// is one, keeping the rule-based digest if it fails or does not fit.
func (p *pruner) summarize(sum Summarizer, prev string, dropped []Message) {
	if len(dropped) == 0 {
		return
	}
	c, ev := p.c, p.ev
	ev.Summarizer = "rules"
	if sum != nil {
		rules := c.summary()
		d, err := sum(prev, dropped)
		switch {
		case err != nil || strings.TrimSpace(d) == "":
			ev.Summarizer = "rules (model summary failed: " + errText(err) + ")"
		default:
			c.setSummary(clipDigest(d, p.lim.digestChars))
			ev.Summarizer = "model"
			if p.overTokens() {
				c.setSummary(rules)
				ev.Summarizer = "rules (model summary did not fit the token budget)"
			}
		}
	}
	ev.Digest = c.summary()
}

// fitSummary shrinks the summary, keeping its newest lines, while the
// request is over the line with no earlier turn left to drop: the summary
// must not take the room a turn starts with. What is left over the line
// then is what the pass cannot drop (the event's Floor).
func (p *pruner) fitSummary() {
	s := p.c.summary()
	if s == "" || len(p.earlier()) > 0 || !p.overTokens() {
		return
	}
	for n := runes(s); n > minSummaryChars && p.overTokens(); {
		n = max(n*3/4, minSummaryChars)
		p.c.setSummary(clipDigest(s, n))
	}
	p.ev.addReason("summary")
	p.ev.Digest = p.c.summary()
}

// minSummaryChars is the least a summary is shrunk to: its first line
// and a few more.
const minSummaryChars = 200

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
func (c *History) question(cur int) string {
	for _, m := range c.msgs {
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

// prefix is what a request of turn cur starts with: the static layer, the
// summary, then the kept messages of earlier turns, in order. The loop
// appends the current turn's messages after it.
func (c *History) prefix(cur int) []Message {
	var static, summary, window []Message
	for _, m := range c.msgs {
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
func (c *History) earlierTurns(cur int) []int {
	seen := map[int]bool{}
	var out []int
	for i := range c.msgs {
		m := &c.msgs[i]
		if m.earlier(cur) && !m.Dropped && !seen[m.Turn] {
			seen[m.Turn] = true
			out = append(out, m.Turn)
		}
	}
	sort.Ints(out)
	return out
}

// chars counts the characters of the kept earlier turns. The summary is
// bounded on its own (Limits.digestChars) and by the token check.
func (c *History) chars(cur int) int {
	n := 0
	for i := range c.msgs {
		m := &c.msgs[i]
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

func stats(h []Message, counter *Counter) Stats {
	s := Stats{Messages: len(h), Tokens: counter.CountMessages(h), Estimated: counter.Kind() != ExactCount}
	for _, m := range h {
		s.Chars += msgChars(m)
	}
	return s
}

// callArgs maps tool call IDs to their arguments.
func (c *History) callArgs() map[string]ToolCall {
	out := map[string]ToolCall{}
	for _, m := range c.msgs {
		for _, tc := range m.ToolCalls {
			out[tc.ID] = tc
		}
	}
	return out
}

func (c *History) summary() string {
	for _, m := range c.msgs {
		if m.Layer == Summary {
			return m.Content
		}
	}
	return ""
}

// setSummary replaces the summary layer with one message holding digest.
// The summary sits after the static layer wherever it is in the slice,
// because History orders by layer.
func (c *History) setSummary(digest string) {
	for i := range c.msgs {
		if c.msgs[i].Layer == Summary {
			c.msgs[i].Content = digest
			c.msgs[i].Dropped = false
			c.touch(i)
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
