package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/review/llm/wire"
	"github.com/reviewdev/review/review/record"
	"github.com/reviewdev/review/review/result"
)

// WriteReplayJSON writes a recorded run as one line of JSON, compact and
// unescaped, so each request appears byte for byte as the endpoint
// received it, but for what safeJSON escapes. e, if known, is written as
// "efficiency".
func WriteReplayJSON(w io.Writer, r *record.Replay, e *record.Efficiency) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		*record.Replay
		Efficiency *record.Efficiency `json:"efficiency,omitempty"`
	}{r, e}); err != nil {
		return err
	}
	_, err := w.Write(safeJSON(b.Bytes()))
	return err
}

// size is what a message carries to the model, in characters and tokens:
// its text, and the name and arguments of each tool call it makes (an
// assistant message that only calls tools has no text at all). Tokens are
// counted as conversation.Counter.CountMessage counts them for the dry run
// and the loop, per-message overhead included.
func size(c *conversation.Counter, m conversation.Message) (chars, tokens int) {
	// Characters, as pruning and the history limits count them, not bytes.
	chars = utf8.RuneCountInString(m.Content)
	for _, tc := range m.ToolCalls {
		chars += utf8.RuneCountInString(tc.Name) + utf8.RuneCountInString(tc.Arguments)
	}
	return chars, c.CountMessage(m)
}

// WriteReplay renders a recorded run for a person: per step, each
// message's role, layer, size, tokens (counted with c) and first line, with
// events in place. step > 0 shows that step only, with every message whole
// and the response. What the model and the repository wrote is passed
// through text.Safe.
//
// Each step's total is its figure in figs (as the JSON and the page show
// it), marked ~ only when it is an estimate.
func WriteReplay(w io.Writer, r *record.Replay, c *conversation.Counter, figs *record.RunFigures, step int) error {
	var b strings.Builder
	run := r.Run
	fmt.Fprintf(&b, "Run %s · %s · model %s\n", run.ID, run.Status, run.Model)
	fmt.Fprintf(&b, "%s (%s) → %s (%s) in %s\n", run.Base, text.ShortSHA(run.BaseSHA), run.Head, text.ShortSHA(run.HeadSHA), run.Repo)
	if run.Error != "" {
		fmt.Fprintf(&b, "Error: %s\n", run.Error)
	}
	b.WriteString(text.Plural(len(r.Steps), "step") + "\n")
	if e := r.Egress; e != nil && step == 0 {
		requests := 0
		for _, d := range e.Destinations {
			requests += d.Requests
		}
		fmt.Fprintf(&b, "Egress: %s to %s (review replay %s --egress lists them)\n", text.Plural(requests, "request"), strings.Join(e.Hosts(), ", "), run.ID)
	}
	steps := r.Steps
	if lanes := record.Lanes(r); len(lanes) > 0 && step == 0 {
		// Units side by side: each unit's steps in its lane, in order.
		writeLanes(&b, r, lanes)
		steps = nil
		for _, l := range lanes {
			steps = append(steps, l.Steps...)
		}
	}
	fig := map[int]record.StepFigures{}
	if figs != nil {
		for i, s := range r.Steps {
			if i < len(figs.Steps) && figs.Steps[i].Tokens > 0 {
				fig[s.N] = figs.Steps[i]
			}
		}
	}
	// A unit's steps are numbered in the run and, within the unit, from 1.
	ofUnit, counted := map[int]int{}, map[int]int{}
	for _, s := range r.Steps {
		if s.Unit > 0 {
			counted[s.Unit]++
			ofUnit[s.N] = counted[s.Unit]
		}
	}
	found := false
	for _, s := range steps {
		if step > 0 && s.N != step {
			continue
		}
		found = true
		b.WriteString("\n")
		f, ok := fig[s.N]
		writeStep(&b, c, s, ofUnit[s.N], f, ok, step > 0)
	}
	if step == 0 {
		writeResult(&b, r)
	}
	if step > 0 && !found {
		if len(r.Steps) == 0 {
			return fmt.Errorf("run %s has no step %d: it recorded no steps", run.ID, step)
		}
		return fmt.Errorf("run %s has no step %d: its steps are %d to %d", run.ID, step, r.Steps[0].N, r.Steps[len(r.Steps)-1].N)
	}
	_, err := io.WriteString(w, text.Safe(b.String()))
	return err
}

// writeResult renders the result the run recorded, if it did: the
// findings as reported, each with where the model was shown its lines,
// then those held back or left out with the reason.
func writeResult(b *strings.Builder, r *record.Replay) {
	res := recordedResult(r)
	if res == nil {
		return
	}
	fmt.Fprintf(b, "\n━━ result · %s reported", text.Plural(len(res.Findings), "finding"))
	if res.Held != "" {
		fmt.Fprintf(b, "; %s", res.Held)
	}
	b.WriteString(" ━━\n")
	each := func(f result.Finding, reason string) {
		grounded := "grounded"
		if !f.Grounded {
			grounded = "not grounded"
		}
		fmt.Fprintf(b, "  [%s] %s %s · %s\n", f.Severity, f.Location(), text.OneLine(f.Title, 200), grounded)
		if reason != "" {
			fmt.Fprintf(b, "     %s\n", text.OneLine(reason, 300))
		}
		for _, e := range f.Evidence {
			fmt.Fprintf(b, "     %s shown in %s\n", e.Lines(), evidenceWhere(e, res))
		}
	}
	for _, f := range res.Findings {
		each(f, "")
	}
	for _, f := range res.Ungrounded {
		each(f, "not checked against the code it names: "+f.Unshown())
	}
	for _, d := range res.Withheld {
		each(d.Finding, "withheld: "+d.Reason)
	}
	for _, d := range res.Dropped {
		each(d.Finding, "left out: "+d.Reason)
	}
}

// evidenceWhere names where evidence was shown: the diff context, or a
// tool output and the step whose call stored it.
func evidenceWhere(e result.Evidence, res *pageResult) string {
	switch {
	case e.Source == result.SourceDiff && e.Unit > 0:
		if n, ok := res.Units[e.Unit]; ok {
			return fmt.Sprintf("the diff context of unit %d, from step %d", e.Unit, n)
		}
		return fmt.Sprintf("the diff context of unit %d", e.Unit)
	case e.Source == result.SourceDiff:
		return "the diff context"
	}
	where := fmt.Sprintf("the output of %s %s", e.Tool, e.Source)
	if n, ok := res.Stored[e.Source]; ok {
		where += fmt.Sprintf(", called at step %d", n)
	}
	return where
}

// writeStep renders one step: its events, then each message of the request
// as sent, then the response. A unit's step is named by its unit and its
// number within the unit (nth), a run's other steps by their turn.
func writeStep(b *strings.Builder, c *conversation.Counter, s record.Step, nth int, fig record.StepFigures, hasFig, full bool) {
	writeEvents(b, s.Events)
	req, err := wire.DecodeRequest(s.Request)
	if err != nil || len(s.Request) == 0 || string(s.Request) == "null" {
		fmt.Fprintf(b, "━━ step %d · %s · request not recorded%s ━━\n", s.N, stepOf(s, nth), took(s))
		if s.Error != "" {
			fmt.Fprintf(b, "  error: %s\n", s.Error)
		}
		return
	}
	msgs := req.Conversation()
	toolTok := record.ToolTokens(c, req.Definitions())
	about, total := stepTotal(c, toolTok+c.CountMessages(msgs), fig, hasFig)
	choice := strings.Trim(string(req.ToolChoice), `"`)
	if choice == "" {
		choice = "auto"
	}
	fmt.Fprintf(b, "━━ step %d · %s · %d messages · %d bytes · %s%d tokens · tool_choice %s%s ━━\n",
		s.N, stepOf(s, nth), len(req.Messages), len(s.Request), about, total, text.OneLine(choice, 80), took(s))
	if len(req.Tools) > 0 {
		fmt.Fprintf(b, "     %-9s %-7s %6s       %5d tok · %s\n", "tools", conversation.Static, "", toolTok, text.Plural(len(req.Tools), "definition"))
	}
	names := s.Names()
	for i, m := range msgs {
		writeMessage(b, c, i, m, nameOf(names, i), full)
	}
	if s.Error != "" {
		fmt.Fprintf(b, "  ✗ error: %s\n", s.Error)
	}
	if full {
		fmt.Fprintf(b, "  response:\n%s\n", indent(string(s.Response)))
	} else {
		fmt.Fprintf(b, "  ← %s\n", summarizeResponse(s.Response))
	}
}

// writeEvents renders a step's events but its request (whose messages
// the step shows), each as recorded and in a sentence, a prune with how
// it scored each earlier turn.
func writeEvents(b *strings.Builder, events []json.RawMessage) {
	for _, raw := range events {
		e, err := record.Decode(raw)
		if err != nil || e.Kind() == record.KindRequest {
			continue
		}
		fmt.Fprintf(b, "  ⟡ event %s: %s\n", e.Kind(), text.OneLine(string(raw), 300))
		fmt.Fprintf(b, "     that is, %s\n", eventSentence(raw))
		if p, ok := e.(record.Prune); ok {
			for _, sc := range p.Scores {
				fmt.Fprintf(b, "     %s\n", scoreLine(sc))
			}
		}
	}
}

// stepTotal is a step's tokens for its header, and "~" when the figure is
// an estimate: the run's recorded figure when there is one (as the JSON
// and the page show it), else counted, which is an estimate unless c
// counts exactly.
func stepTotal(c *conversation.Counter, counted int, fig record.StepFigures, hasFig bool) (about string, total int) {
	if hasFig {
		if fig.Estimated {
			return "~", fig.Tokens
		}
		return "", fig.Tokens
	}
	if c.Kind() != conversation.ExactCount {
		return "~", counted
	}
	return "", counted
}

// nameOf is the name the request event gives the i-th message of a
// request; a message it does not name is of layer "?".
func nameOf(names []record.Name, i int) record.Name {
	if i < len(names) {
		return names[i]
	}
	return record.Name{Layer: "?"}
}

// writeMessage renders the i-th message of a step's request: its role,
// layer, size and what it is, its tool calls, then its text, whole when
// full, else its first line.
func writeMessage(b *strings.Builder, c *conversation.Counter, i int, m conversation.Message, name record.Name, full bool) {
	chars, tokens := size(c, m)
	fmt.Fprintf(b, "  %2d %-9s %-7s %6d chars %5d tok%s", i+1, m.Role, name.Layer, chars, tokens, messageNote(m.Content, name.Ref, name.Hunks, name.Learnings))
	for _, tc := range m.ToolCalls {
		fmt.Fprintf(b, "\n     → %s %s", tc.Name, text.OneLine(tc.Arguments, 100))
	}
	if full {
		b.WriteString("\n" + indent(m.Content) + "\n")
		return
	}
	if m.Content != "" {
		fmt.Fprintf(b, "  │ %s", text.OneLine(m.Content, 80))
	}
	b.WriteString("\n")
}

// messageNote says, after a message's size, what it is beyond its layer,
// as msgKind does for the page, with the ref of the output behind it.
func messageNote(content, ref string, hunks, learnings bool) string {
	switch {
	case learnings:
		return " the team's learnings"
	case hunks:
		return " the unit's hunks (diff context)"
	case strings.HasPrefix(content, conversation.StubPrefix) && ref != "":
		return " stub of " + ref
	case strings.HasPrefix(content, conversation.StubPrefix):
		return " stub"
	case ref != "" && isPreview(content):
		return " preview of " + ref
	case ref != "":
		return " whole, ref " + ref
	}
	return ""
}

// summarizeResponse is one line about a chat-completion response.
func summarizeResponse(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return "no response recorded"
	}
	resp, err := wire.DecodeCompletion(raw)
	var u wire.Usage
	if err == nil {
		u, err = resp.Tokens()
	}
	if err != nil || len(resp.Choices) == 0 {
		return "response: " + text.OneLine(string(raw), 120)
	}
	m := resp.Choices[0].Message
	var parts []string
	for _, tc := range m.ToolCalls {
		parts = append(parts, tc.Function.Name+" "+text.OneLine(tc.Function.Arguments, 80))
	}
	if m.Text() != "" {
		parts = append(parts, "“"+text.OneLine(m.Text(), 80)+"”")
	}
	return fmt.Sprintf("assistant (%s, %d+%d tokens): %s", resp.Choices[0].FinishReason, u.PromptTokens, u.CompletionTokens, strings.Join(parts, "; "))
}

func indent(s string) string {
	return "     " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n     ")
}

// isPreview reports whether a tool message carries a preview rather than the
// whole output: previews open with tool memory's header line.
func isPreview(content string) bool {
	first, _, _ := strings.Cut(content, "\n")
	return strings.HasPrefix(first, "[output ") && strings.Contains(first, toolname.ReadToolOutput)
}

// scoreLine says how relevance selection judged one earlier turn: "turn 3
// kept: relevance 0.62 (cache.go, get), recency 0.21".
func scoreLine(s conversation.TurnScore) string {
	verdict := "dropped"
	if s.Kept {
		verdict = "kept"
	}
	terms := ""
	if len(s.Terms) > 0 {
		terms = " (" + text.OneLine(strings.Join(s.Terms, ", "), 80) + ")"
	}
	if s.Named {
		terms += " named by the question"
	}
	return fmt.Sprintf("turn %d %s: relevance %.2f%s, recency %.2f", s.Turn, verdict, s.Relevance, terms, s.Recency)
}

// took is how long a step's request took, for its header: "" when it
// did not end.
func took(s record.Step) string {
	if s.Started.IsZero() || s.Ended.IsZero() {
		return ""
	}
	return " · " + seconds(s.Ended.Sub(s.Started))
}

// seconds writes d as seconds with two decimals.
func seconds(d time.Duration) string {
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// writeLanes writes the lanes of units run side by side: each unit's
// steps, when it started and ended, relative to the run's start, and how
// long it took.
func writeLanes(b *strings.Builder, r *record.Replay, lanes []record.Lane) {
	t0 := r.Run.Started
	fmt.Fprintf(b, "Units side by side, each in its lane (times from the run's start):\n")
	for _, l := range lanes {
		ns := make([]string, len(l.Steps))
		for i, s := range l.Steps {
			ns[i] = fmt.Sprint(s.N)
			if !s.Started.IsZero() && !s.Ended.IsZero() {
				ns[i] += fmt.Sprintf(" (%s → %s)", seconds(s.Started.Sub(t0)), seconds(s.Ended.Sub(t0)))
			}
		}
		fmt.Fprintf(b, "  unit %d: %s → %s, %s: steps %s\n", l.Unit, seconds(l.Start.Sub(t0)), seconds(l.End.Sub(t0)), seconds(l.End.Sub(l.Start)), strings.Join(ns, ", "))
	}
}

// stepOf names where a step stands: its unit and its step within the
// unit, or, outside units, its turn.
func stepOf(s record.Step, nth int) string {
	if s.Unit > 0 && nth > 0 {
		return fmt.Sprintf("unit %d · step %d", s.Unit, nth)
	}
	return fmt.Sprintf("turn %d", s.Turn)
}
