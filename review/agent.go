package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/egress"
	"github.com/reviewdev/review/internal/redact"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/review/learn"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/record"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/toolmem"
	"github.com/reviewdev/review/tools"
	"github.com/reviewdev/review/tools/symbols"
)

// Agent runs tool loops against a model and records them. Tools store the
// outputs of calls in their Env.Store, which is to be Store; a loop offers
// submit_review with them.
type Agent struct {
	// Config is how the run is made: the model's name, the budget, the
	// caps, what happens to findings off the diff, the globs the tools
	// hide, redaction, and how many units run side by side.
	result.Config
	// Client is the model endpoint's client.
	Client  llm.Model
	Store   *toolmem.Store
	Tools   *tools.Set
	Counter *conversation.Counter
	// Temperature, if set, is sent with every request.
	Temperature *float32
	// Progress, if set, is told about each step (for a terminal's progress line).
	Progress func(Progress)
	Now      func() time.Time
	// Egress, if set, counts what the run sends; each save records what
	// it counted since the last (recordEgress).
	Egress *egress.Meter
}

// redact is the scanner of the agent's sessions: nil when redaction is
// off.
func (a *Agent) redact() *redact.Redactor { return a.Config.Redactor() }

// Progress is the state of a running loop.
type Progress struct {
	// Step is the request of the loop under way, from 1 in each unit and
	// each question.
	Step      int
	ToolCalls int
	// Tokens is the prompt tokens sent so far by our exact count, the
	// figure the review's footer gives as "tokens sent".
	Tokens int
	// Unit and Units say which unit of a review in units is under way
	// (from 1); Units is 0 for a review in one piece and for questions.
	Unit, Units int
	// Running are the units under way when units run side by side, in
	// order; nil when they run in sequence.
	Running []int
	// Receiving is set while the answer to step Step streams in, with
	// about the tokens received so far in Received.
	Receiving bool
	Received  int
	// Tool names the tool call under way, "" between calls.
	Tool string
	// Usage is the run's usage so far, for the cost.
	Usage result.RunUsage
}

// Session is a run in progress: its record, conversation and usage.
type Session struct {
	*Agent
	Run toolmem.Run
	// History is the run's conversation: the one owner of its messages,
	// the running loop's request view and the request records' deltas.
	History *conversation.History
	Diff    *diffctx.Diff
	Usage   result.RunUsage
	// Steps is the number of the last recorded step; steps are numbered
	// across all turns of a run.
	Steps int
	// Stopped says why the plan's bounds stopped the review, if they did.
	Stopped string
	// FindCopies says the run's diff was loaded with copies detected.
	FindCopies bool

	guard             *guard               // holds the run to its plan; nil: no bounds
	unitNow, unitsAll int                  // the unit under way (from 1) and how many, for progress
	unitParts         []diffctx.Part       // the hunks of the unit under way, which its turn shows
	contextWhole      map[string]bool      // the files the static layer shows whole, when not in units
	notReviewed       []result.NotReviewed // what the plan leaves out
	leaks             []diffctx.Leak       // secrets the change adds, reported as findings

	// injections are the text the change adds that speaks to the
	// reviewer, reported as findings.
	injections []diffctx.Injection
	// learnings are the team's learnings the model was given: the
	// numbers a finding may cite to be withheld.
	learnings []learn.Learning
	// unforced is set once the server ignored a forced tool choice: from
	// then on the run asks for submit_review with a nudge instead.
	unforced bool
	// fig follows the tokens of each request by layer and of the naive
	// transcript, for the step records and the run's efficiency.
	fig *figureState
	// rec writes the run's records.
	rec *record.Writer
	// tools is the exact count of the tool definitions, once counted;
	// shared by the units side by side, copies of this session.
	tools *toolCount

	// main is the session of the run when this one is a unit running
	// side by side with others (side.go): a copy with a history of its
	// own (a fork of the static layer) and its lane. The run's step
	// numbers, usage, figures, records and guard are main's; nil for the
	// run's own session.
	main *Session
	lane *lane
	// side is the state units side by side share, in the main session;
	// nil while units run in sequence.
	side *sideState
	// rejected are the findings verification dropped, shared with the
	// units' copies of the session.
	rejected *rejections
	// result is the result the run's outputs showed, as recorded.
	result json.RawMessage
	// symbols is the head's symbol index the plan read, for the tools.
	symbols *symbols.Index
}

// open readies a session over d for its turns: the tools, built here
// alone (unless the agent brings its own), redact what they return and
// store, and every message that joins the history passes the redactor.
func (s *Session) open(d *diffctx.Diff, findCopies, noNavigation bool) {
	if red := s.redact(); red != nil {
		s.History.SetFilter(func(t string) string {
			out, _ := red.RedactJSON(t)
			return out
		})
	}
	if s.Tools != nil {
		return
	}
	s.Tools = tools.New(tools.Env{Root: d.Root, Head: d.HeadSHA, Base: d.MergeBase, Resolved: true, Checkout: d.Checkout,
		Store: s.Store, Ignore: s.Ignore, FindCopies: findCopies, Redact: s.redact(), PageChars: s.Budget.PageChars(), NoNavigation: noNavigation, Symbols: s.symbols,
		Patches: patches(d)})
	// The first search or listing then finds the tree read while the
	// first request is out.
	s.Tools.Warm()
}

// patches are the diff's own patches of its files by path, which the
// tools' file diff answers from rather than running git again: a unit's
// first read is often the file it reviews.
func patches(d *diffctx.Diff) map[string][]byte {
	m := make(map[string][]byte, len(d.Files)+len(d.Earlier))
	for _, fs := range [][]*diffctx.File{d.Files, d.Earlier} {
		for _, f := range fs {
			if p := f.Patch(); p != nil {
				m[f.Path] = p
			}
		}
	}
	return m
}

// loop is the control state of one tool loop; the messages it sends and
// their count are the history's (conversation.History.BeginLoop).
type loop struct {
	a    *Session
	h    *conversation.History
	turn int
	// set is the tools offered in every request of the loop, defs their
	// definitions.
	set   *tools.Set
	defs  []tools.Definition
	step  int // requests made by this loop
	calls int

	submitted *submission
	lastText  string
	// ask is set for follow-up questions: a prose answer ends the loop,
	// with no nudge towards submit_review.
	ask bool
}

// nudge asks a model that answered in prose for the structured review.
const nudge = "Please finish now: call " + toolname.SubmitReview + " with your summary and findings (an empty list if there are none)."

// final asks for the review when the loop's budget is spent.
const final = "The exploration budget for this review is spent. Do not call any other tool: call " + toolname.SubmitReview + " now with your summary and findings based on what you have seen."

// finalAnswer asks for the answer to a question when the loop's budget is
// spent.
const finalAnswer = "The exploration budget for this question is spent. Do not call any tool: answer the question now, in plain text, with what you have seen."

// loop runs one tool loop for the history's latest user turn: each request
// is what precedes the turn (the static layer, the summary and the window,
// already pruned) and the turn's messages, appended only. It returns the
// submission (nil if the model never made one) and the model's last text.
func (s *Session) loop(ctx context.Context, ask bool) (*submission, string, error) {
	l := &loop{a: s, h: s.History, turn: s.History.Turns(), ask: ask}
	l.set = offered(s.Tools, s.learnings, func(sub submission) { l.submitted = &sub })
	l.defs = l.set.Definitions()
	// Under hard caps the count is exact from the start; else an upper
	// bound until it comes near the window.
	s.History.BeginLoop(s.Counter, s.guard.enforced(), func(c *conversation.Counter) int { return record.ToolTokens(c, l.defs) })
	defer s.History.EndLoop()
	err := l.run(ctx)
	if l.submitted != nil {
		// Accepted: each finding learns what the model was shown of
		// the lines it cites, while the loop's messages are at hand.
		s.ground(l.submitted.Findings)
		if err == nil && !ask && s.Verify {
			s.History.EndLoop()
			err = s.verify(ctx, l.submitted)
		}
	}
	return l.submitted, l.lastText, err
}

// toolCount is a session's exact count of its tool definitions.
type toolCount struct {
	once sync.Once
	n    int
}

// toolTokens counts, with c, the tool definitions every request of the
// session's loops carries: exactly once, when a check near a limit first
// needs it, and as c's bound or estimate otherwise, so that a review far
// from every limit reads no tokenizer table.
func (s *Session) toolTokens(c *conversation.Counter) int {
	defs := func() []tools.Definition { return offered(s.Tools, s.learnings, nil).Definitions() }
	if c.Kind() != conversation.ExactCount {
		return record.ToolTokens(c, defs())
	}
	s.tools.once.Do(func() { s.tools.n = record.ToolTokens(c, defs()) })
	return s.tools.n
}

// tokens is the running count of the next request.
func (l *loop) tokens() int {
	n, _ := l.h.Tokens()
	return n
}

// loopState is where a loop stands on its way to its final answer.
type loopState struct {
	nudged  bool // the model was asked once for submit_review after prose
	forced  bool // the final answer was asked for
	shrunk  bool // a context-length refusal was answered already
	pressed bool // the model was nudged again after ignoring the forced choice
}

func (l *loop) run(ctx context.Context) error {
	var ls loopState
	for {
		l.step++
		if err := l.maybeForce(&ls); err != nil {
			return err
		}
		choice := l.choice(ls.forced)
		reply, st, err := l.send(ctx, choice)
		if errors.Is(err, llm.ErrContextLength) && !ls.shrunk && l.h.DropLastStep() {
			// The provider's window is smaller than the one planned
			// for: the calls that overflowed it go unanswered, and the
			// final answer is asked for with what was seen before
			// them, once.
			ls.shrunk, ls.forced = true, true
			if err := l.finish("context_length"); err != nil {
				return err
			}
			choice = l.choice(true)
			reply, st, err = l.send(ctx, choice)
		}
		if err != nil {
			return err
		}
		msg := l.take(reply)
		ignored, err := l.ignoredChoice(&ls, msg, reply, choice, st)
		if err != nil {
			return err
		}
		if len(msg.ToolCalls) == 0 {
			if done := l.prose(&ls, ignored); done {
				return nil
			}
			continue
		}
		if err := l.answer(ctx, msg.ToolCalls, st); err != nil {
			return err
		}
		// Saved as it grows, so a follow-up turn after a crash continues
		// from the last answered step, not from the start.
		if err := l.a.save(); err != nil {
			return err
		}
		if l.submitted != nil || (ls.forced && !ignored) {
			// The model ignored the forced choice and a nudge; asking
			// again would loop.
			return nil
		}
		if ls.forced {
			ls.pressed = true
			l.appendMsg(conversation.Message{Role: conversation.User, Content: nudge})
		}
	}
}

// maybeForce asks for the final answer when the next request would pass
// the stop line, the loop's steps are spent, or the caps are near.
func (l *loop) maybeForce(ls *loopState) error {
	if ls.forced {
		return nil
	}
	switch {
	case l.nearWindow():
		ls.forced = true
		return l.finish("input_budget")
	case l.step > l.a.Budget.MaxSteps || l.a.guard.tight(l.tokens()):
		ls.forced = true
		l.appendMsg(conversation.Message{Role: conversation.User, Content: l.finalText()})
	}
	return nil
}

// choice is the tool choice of the next request: submit_review once a
// review's final answer is asked for (unless the server ignores forced
// choices), no tool once a question's is, else the model's own.
func (l *loop) choice(forced bool) string {
	switch {
	case !forced:
		return "auto"
	case l.ask:
		return "none"
	case l.a.isUnforced():
		return "auto"
	}
	return toolname.SubmitReview
}

// finalText asks for the final answer when the loop's budget is spent:
// a review's as submit_review, a question's as plain text, so a follow-up
// answers the question rather than submitting the review again.
func (l *loop) finalText() string {
	if l.ask {
		return finalAnswer
	}
	return final
}

// take appends the model's reply to the loop and returns it as added.
func (l *loop) take(reply *llm.Reply) conversation.Message {
	msg := reply.Message
	msg.Role = conversation.Assistant
	uniqueCallIDs(msg.ToolCalls)
	nameCalls(msg.ToolCalls)
	msg = l.appendMsg(msg)
	// Sent back within this loop only, as reasoning models require; the
	// next turn's history goes without it.
	l.h.SetReasoning(msg.ID, reply.Reasoning)
	if strings.TrimSpace(msg.Content) != "" {
		l.lastText = msg.Content
	}
	return msg
}

// ignoredChoice reports whether a forced review answered without
// submit_review. A server that ignores the forced choice (llama.cpp reads
// it as auto, Ollama drops it) answers text or another tool: the findings
// must not be lost, so the run falls back to a nudge, once. Under hard
// caps the extra request is not planned for, so there the loop ends.
func (l *loop) ignoredChoice(ls *loopState, msg conversation.Message, reply *llm.Reply, choice string, st *toolmem.Step) (bool, error) {
	if l.ask {
		return false, nil
	}
	ignored := ls.forced && !ls.pressed && !callsTool(msg.ToolCalls, toolname.SubmitReview) && !l.a.guard.enforced()
	// The choice sent may be the client's fallback for it: "required"
	// for a server that refused the named function. Ignored either way,
	// the chain ends at auto with a nudge.
	sent := reply.ToolChoice
	if ignored && choice == toolname.SubmitReview && (sent == "" || sent == choice || sent == "required") {
		l.a.setUnforced()
		from := "function"
		if sent == "required" {
			from = sent
		}
		err := l.a.fallbackEvent(st.N, llm.Fallback{Feature: "tool_choice", From: from, To: "auto",
			Reason: "the server ignored the forced " + toolname.SubmitReview + " call"})
		return true, err
	}
	return ignored, nil
}

// prose decides what follows an answer without tool calls: the end of a
// question's loop or of a forced review, else a nudge towards
// submit_review (once, or once more after an ignored forced choice).
func (l *loop) prose(ls *loopState, ignored bool) (done bool) {
	switch {
	case ignored:
		ls.pressed = true
	case ls.nudged || ls.forced || l.ask:
		return true
	default:
		ls.nudged = true
	}
	l.appendMsg(conversation.Message{Role: conversation.User, Content: nudge})
	return false
}

// nearWindow reports whether the next request, tool definitions included,
// passes the stop line, the one every decision of the run counts against.
func (l *loop) nearWindow() bool {
	limit := l.a.Budget.StopLine()
	if n, exact := l.h.Tokens(); n > limit && !exact {
		// The bound passed the limit: the exact count decides.
		l.h.CountExactly()
	}
	return l.tokens() > limit
}

// finish asks for the review now, with what the model has seen: it stops
// offering any tool but submit_review, appends the final request, and
// records why as a "final" event before the step it precedes.
func (l *loop) finish(reason string) error {
	var keep []tools.Definition
	for _, d := range l.defs {
		if d.Name == toolname.SubmitReview {
			keep = append(keep, d)
		}
	}
	before, exact := l.h.Tokens()
	if !exact {
		// The event records our count: this is a rare path.
		sent, err := l.h.Request()
		if err != nil {
			return err
		}
		before = l.a.Counter.CountMessages(sent) + record.ToolTokens(l.a.Counter, l.defs)
	}
	l.defs = keep
	l.appendMsg(conversation.Message{Role: conversation.User, Content: l.finalText()})
	l.h.Recount()
	return l.a.eventNext(record.Final{Reason: reason, Turn: l.turn,
		Tokens: before, Limit: l.a.Budget.StopLine()})
}

// fit keeps the loop's final request within the window: a result that
// would carry the next request, with the message asking for the final
// answer, past the input budget is replaced by a line that keeps its ref.
// The loop then asks for its final answer (nearWindow), and that request
// fits.
func (l *loop) fit(m conversation.Message) conversation.Message {
	final := conversation.Message{Role: conversation.User, Content: l.finalText()}
	limit := l.a.Budget.Input()
	over := func(c *conversation.Counter) bool {
		n, _ := l.h.Tokens()
		return n+c.CountMessage(m)+c.CountMessage(final) > limit
	}
	if !over(l.a.Counter.Bounds()) {
		return m
	}
	l.h.CountExactly()
	if !over(l.a.Counter) {
		return m
	}
	if m.Ref != "" {
		m.Content = fmt.Sprintf("[output stored as ref %s, not shown: it would pass the context window. The exploration budget is spent.]", m.Ref)
	} else {
		m.Content = "[output not shown: it would pass the context window. The exploration budget is spent.]"
	}
	return m
}

// callsTool reports whether calls include one of the named tool.
func callsTool(calls []conversation.ToolCall, name string) bool {
	for _, c := range calls {
		if c.Name == name {
			return true
		}
	}
	return false
}

// fallbackEvent records a feature the server refused or ignored with the
// step that learned it.
func (s *Session) fallbackEvent(step int, fb llm.Fallback) error {
	return s.records().Event(step, record.Fallback{Feature: fb.Feature, From: fb.From, To: fb.To, Reason: text.OneLine(fb.Reason, 200)})
}

// appendMsg adds m to the loop's turn: to the history and so to the
// requests to come.
func (l *loop) appendMsg(m conversation.Message) conversation.Message {
	m.Layer = conversation.Loop
	m.Turn = l.turn
	return l.h.Append(m)
}

// send makes one model request from the messages sent so far and returns
// the reply with the step that records it.
func (l *loop) send(ctx context.Context, choice string) (*llm.Reply, *toolmem.Step, error) {
	sent, err := l.h.Request()
	if err != nil {
		return nil, nil, fmt.Errorf("internal error: refusing to send a malformed conversation: %w", err)
	}
	req := llm.Request{Model: l.a.Model, Messages: sent, Tools: l.defs, ToolChoice: choice, Temperature: l.a.Temperature, Reasoning: l.h.Reasoning(),
		// The answer may take what the budget reserves for it, no more.
		MaxTokens: l.a.Budget.AnswerReserve}
	if l.a.Progress != nil {
		ctx = llm.WithReceiveHook(ctx, func(r llm.Received) { l.progress(Progress{Receiving: true, Received: r.Tokens}) })
	}
	reply, st, err := l.a.exchange(ctx, req, l.turn, l.tokens())
	if err != nil {
		return nil, nil, err
	}
	l.progress(Progress{})
	return reply, st, nil
}

// progress reports p, with where the run is, to the agent's Progress:
// the step is the loop's own, counted from 1 in each unit and turn.
func (l *loop) progress(p Progress) {
	p.Step, p.ToolCalls, p.Unit, p.Units = l.step, l.calls, l.a.unitNow, l.a.unitsAll
	l.a.progress(p)
}

// record makes one model request as a new step of the run, counting its
// prompt itself.
func (s *Session) record(ctx context.Context, req llm.Request, turn int, msgs []conversation.Message) (*llm.Reply, error) {
	req.Messages = msgs
	c := s.Counter.Bounds()
	if s.guard.enforced() {
		c = s.Counter
	}
	reply, _, err := s.exchange(ctx, req, turn, c.CountMessages(msgs)+record.ToolTokens(c, req.Tools))
	return reply, err
}

// exchange makes one model request as a new step of the run: the layers of
// its messages first, the request bytes as they go out (so a crash loses
// nothing already sent), then the response. bound is our count of the
// request's prompt tokens, exact under hard caps (which it is checked
// against) and else at least the exact count; the count recorded is the
// step's figures'.
func (s *Session) exchange(ctx context.Context, req llm.Request, turn, bound int) (*llm.Reply, *toolmem.Step, error) {
	msgs := req.Messages
	if err := s.guard.take(bound); err != nil {
		return nil, nil, err
	}
	n := s.nextStep()
	st := toolmem.Step{Run: s.Run.ID, N: n, Turn: turn, Started: s.now()}
	fc := s.figureCounter()
	toolTok := record.ToolTokens(fc, req.Tools)
	fig, figJSON := s.stepLayers(fc, msgs, toolTok)
	st.Figures = figJSON
	if err := s.stepEvents(st.N, s.requestEvent(st.N, msgs)); err != nil {
		s.guard.release(bound)
		return nil, nil, err
	}
	var putErr error
	sendCtx := llm.WithSendHook(ctx, func(body []byte) {
		st.Request = append(json.RawMessage(nil), body...)
		putErr = s.putStep(st)
	})
	reply, err := s.Client.Complete(sendCtx, req)
	own := fig.Tokens
	if reply != nil {
		s.guard.settle(bound, own, reply.Usage)
	} else {
		s.guard.settle(bound, own, llm.Usage{})
	}
	st.Figures = s.stepNaive(st.N, fc, fig, msgs, toolTok)
	if putErr != nil {
		return nil, nil, fmt.Errorf("recording step %d: %w", st.N, putErr)
	}
	st.Ended = s.now()
	if reply != nil {
		st.Request = reply.Request
		// The response is kept as the server sent it but for secrets:
		// the model may quote one it read or was asked about, in text
		// or in a call's arguments, and the record is on disk.
		st.Response = s.redactResponse(reply.Response)
	}
	if err != nil {
		st.Error = err.Error()
	}
	if reply != nil {
		for _, fb := range reply.Fallbacks {
			if ferr := s.fallbackEvent(st.N, fb); ferr != nil && err == nil {
				err = ferr
			}
		}
		if reply.Stream != nil {
			// How the answer arrived: the response is its reassembly.
			merr := s.records().Event(st.N, record.Stream{Events: reply.Stream.Events, Bytes: reply.Stream.Bytes, FirstByteMS: reply.Stream.FirstByteMS})
			if merr != nil && err == nil {
				err = merr
			}
		}
	}
	if perr := s.putStep(st); perr != nil && err == nil {
		err = fmt.Errorf("recording step %d: %w", st.N, perr)
	}
	if err != nil {
		return nil, nil, err
	}
	s.addUsage(reply.Usage, own)
	return reply, &st, nil
}

// redactResponse returns a recorded response with its secrets replaced.
func (s *Session) redactResponse(b json.RawMessage) json.RawMessage {
	red := s.redact()
	if red == nil || len(b) == 0 {
		return b
	}
	out, ms := red.RedactJSON(string(b))
	if len(ms) == 0 {
		return b
	}
	return json.RawMessage(out)
}

// answer runs every tool call of one reply, in order, and appends a result
// for each: a call is never left unanswered, not even when the review
// stops halfway through a reply, so the conversation stays valid for a
// follow-up turn. The refs of stored outputs are added to st, the step of
// the reply.
func (l *loop) answer(ctx context.Context, calls []conversation.ToolCall, st *toolmem.Step) error {
	var refs []string
	for i, tc := range calls {
		l.calls++
		res, err := l.call(ctx, st.N, tc)
		if err != nil {
			for _, rest := range calls[i:] {
				l.appendMsg(conversation.Message{Role: conversation.Tool, ToolCallID: rest.ID, Name: rest.Name,
					Content: "Not run: the review stopped before this call finished."})
			}
			return err
		}
		if res.Ref != "" {
			refs = append(refs, res.Ref)
		}
		l.appendMsg(l.fit(res))
	}
	if len(refs) == 0 {
		return nil
	}
	st.Refs = refs
	if err := l.a.putStep(*st); err != nil {
		return fmt.Errorf("recording step %d: %w", st.N, err)
	}
	return nil
}

// call runs one tool call of the reply recorded as step and returns its
// result message. Whatever the model got wrong (an unknown tool, arguments
// that are not JSON, a ref that does not exist) is a result it can act on;
// the error is for the review itself stopping.
func (l *loop) call(ctx context.Context, step int, tc conversation.ToolCall) (conversation.Message, error) {
	res := conversation.Message{Role: conversation.Tool, ToolCallID: tc.ID, Name: tc.Name}
	l.progress(Progress{Tool: tc.Name})
	ans, err := l.set.Answer(ctx, tools.Call{Run: l.a.Run.ID, Step: step, ID: tc.ID, Name: tc.Name, Args: tc.Arguments},
		previews(l.a.Budget))
	if err != nil {
		return res, err
	}
	res.Ref, res.Content = ans.Ref, ans.Content
	if ans.Ref != "" {
		l.a.stored(ans.Ref, ans.Output)
		if where := l.a.shownWhole(tc, ans.Result); where != "" {
			// The request shows this diff already: it carries no
			// second copy of it, only the ref to page it by.
			res.Content = toolmem.Withheld(ans.Ref, []byte(ans.Output), "Not repeated: "+where)
		}
	}
	return res, nil
}

// shownWhole says where the request shows the diff of call tc's result
// already, whole, when tc is a get_file_diff of a file that the unit under
// way shows every hunk of, or that the diff context shows whole; else "".
func (s *Session) shownWhole(tc conversation.ToolCall, res tools.Result) string {
	if tc.Name != toolname.GetFileDiff || res.IsError || !strings.HasPrefix(res.Output, "diff --git ") {
		return ""
	}
	if len(s.unitParts) == 0 && len(s.contextWhole) == 0 {
		return ""
	}
	var a struct {
		Path string `json:"path"`
	}
	if json.Unmarshal([]byte(tc.Arguments), &a) != nil {
		return ""
	}
	if s.contextWhole[a.Path] {
		return fmt.Sprintf("%q is in the diff context above, whole.", a.Path)
	}
	// Not Diff.File, which indexes on first use: units side by side
	// share the diff.
	i := slices.IndexFunc(s.Diff.Files, func(f *diffctx.File) bool { return f.Path == a.Path })
	if i < 0 || s.Diff.Files[i].TooLarge || len(s.Diff.Files[i].Hunks) == 0 {
		return ""
	}
	f := s.Diff.Files[i]
	shown := 0
	for _, p := range s.unitParts {
		if p.Path == f.Path && p.FromLine == 0 {
			shown += p.Last - p.First + 1
		}
	}
	if shown != len(f.Hunks) {
		return ""
	}
	return fmt.Sprintf("%q is in this unit above, whole.", f.Path)
}

// uniqueCallIDs renames repeated tool call IDs within one reply, as some
// local servers send them (one ID for every call, or each call numbered
// from zero): a result must answer exactly one call, and a request with two
// calls of one ID is refused by providers and by conversation.Validate. The
// first call keeps its ID.
func uniqueCallIDs(calls []conversation.ToolCall) {
	if len(calls) < 2 {
		return
	}
	seen := make(map[string]bool, len(calls))
	for i := range calls {
		id := calls[i].ID
		for n := 2; seen[id]; n++ {
			id = fmt.Sprintf("%s_%d", calls[i].ID, n)
		}
		seen[id] = true
		calls[i].ID = id
	}
}

// nameCalls names the tool calls of a reply that came without a name, as
// some servers send them. The call goes back to the provider in the next
// request, which refuses a call without a function name (OpenAI answers
// 400), and would again on every later turn.
func nameCalls(calls []conversation.ToolCall) {
	for i := range calls {
		if strings.TrimSpace(calls[i].Name) == "" {
			calls[i].Name = toolname.Unnamed
		}
	}
}

// requestEvent names the messages of a request for its request event:
// only what they add to the request recorded before, as the history
// tells (History.Sent).
func (s *Session) requestEvent(n int, msgs []conversation.Message) record.Request {
	same, added := s.History.Sent(msgs)
	ev := record.Request{Same: same, Messages: added}
	if s.lane != nil {
		// The request before it in the run may be another unit's: the
		// event names its unit and the step it extends.
		ev.Unit = s.lane.unit
		if same > 0 {
			ev.Of = s.lane.last
		}
		s.lane.last = n
	}
	return ev
}

// records is the writer of the run's records.
func (s *Session) records() *record.Writer {
	if !s.rec.For(s.Store, s.Run.ID) {
		s.rec = record.NewWriter(s.Store, s.Run.ID)
	}
	return s.rec
}

func (a *Agent) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}
