package report

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/internal/egress"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/llm/wire"
	"github.com/reviewdev/review/review/record"
	"github.com/reviewdev/review/review/result"
)

// The page, its script and its style. The script builds every element
// that shows recorded text with textContent, never innerHTML: what the
// model, the diff and the tools wrote is data, not markup.
var (
	//go:embed html/replay.html
	pageText string
	//go:embed html/replay.js
	pageScript string
	//go:embed html/replay.css
	pageStyle string
)

// The page is filled in by hand rather than with html/template: its five
// slots are two escaped strings, the project's own style and script, and
// a JSON document; and text/template's reflection makes the linker keep
// every exported method of every type in the binary (4.7 MB of it;
// TestLinkerKeepsDeadMethodsOut). It is cut at its first use.
var pageParts = sync.OnceValue(func() []pagePart { return cutPage(pageText) })

// pagePart is the page's text up to a slot, and the slot's name.
type pagePart struct{ text, slot string }

// cutPage cuts the page at its {{slot}}s.
func cutPage(t string) []pagePart {
	var parts []pagePart
	for {
		i := strings.Index(t, "{{")
		j := strings.Index(t, "}}")
		if i < 0 || j < i {
			return append(parts, pagePart{text: t})
		}
		parts = append(parts, pagePart{text: t[:i], slot: t[i+2 : j]})
		t = t[j+2:]
	}
}

// scriptHash is the Content-Security-Policy source of the page's one
// script: no other script, inline handler or network request can run,
// whatever the recorded text holds. It is hashed at its first use.
var scriptHash = sync.OnceValue(func() string {
	h := sha256.Sum256([]byte(pageScript))
	return "'sha256-" + base64.StdEncoding.EncodeToString(h[:]) + "'"
})

// HTML bounds what a page carries of each stored output.
const (
	// HTMLInline is how much of an output is shown at once.
	HTMLInline = 4 << 10
	// HTMLWhole is the largest output a page carries whole (behind a
	// click); HTMLWholeTotal bounds all of them together.
	HTMLWhole      = 256 << 10
	HTMLWholeTotal = 16 << 20
)

// HTMLReplay is what a replay page shows: the run's records, their
// figures and the stored outputs (record.Outputs).
type HTMLReplay struct {
	Replay  *record.Replay
	Figures *record.RunFigures
	Outputs []record.StoredOutput
	// Counter counts each message's tokens as the run counted them.
	Counter *conversation.Counter
}

// The page's data, embedded as JSON. Texts holds each distinct message
// text once: a tool loop's requests repeat the messages before them, and
// a page that repeated them would grow with the square of its steps.
type (
	pageData struct {
		Run        pageRun            `json:"run"`
		Settings   json.RawMessage    `json:"settings"`
		Usage      json.RawMessage    `json:"usage"`
		Cost       string             `json:"cost,omitempty"`
		Efficiency *record.Efficiency `json:"efficiency"`
		Findings   []pageFinding      `json:"findings"`
		Result     *pageResult        `json:"result"`
		Texts      []string           `json:"texts"`
		Steps      []pageStep         `json:"steps"`
		Outputs    []pageOutput       `json:"outputs"`
		Inline     int                `json:"inline"`
		// Egress is where the run sent what (record.Replay.Egress);
		// null for a run recorded before egress records.
		Egress *egress.Record `json:"egress"`
	}
	pageRun struct {
		ID, Repo, Base, Head, BaseSHA, HeadSHA, Model, Status, Error, Started, Ended string
	}
	pageFinding struct {
		Step     int    `json:"step"`
		Path     string `json:"path"`
		Line     int    `json:"line"`
		Severity string `json:"severity"`
		Title    string `json:"title"`
		Body     string `json:"body"`
	}
	// pageResult is the result the run's outputs showed, when the run
	// recorded it: what the page explains.
	pageResult struct {
		Summary     string               `json:"summary"`
		Submitted   bool                 `json:"submitted"`
		Held        string               `json:"held"`
		Findings    []result.Finding     `json:"findings"`
		Ungrounded  []result.Finding     `json:"ungrounded"`
		Withheld    []result.Dropped     `json:"withheld"`
		Dropped     []result.Dropped     `json:"dropped"`
		NotReviewed []result.NotReviewed `json:"not_reviewed"`
		// Stored names the step whose tool calls stored each ref: the
		// request after it showed the output. Units names each unit's
		// first step, whose request carried its hunks.
		Stored map[string]int `json:"stored"`
		Units  map[int]int    `json:"units"`
	}
	pageStep struct {
		N       int    `json:"n"`
		Turn    int    `json:"turn"`
		Started string `json:"started"`
		Ended   string `json:"ended"`
		// Unit is the step's unit when units ran side by side (its lane
		// on the timeline); At and Took are when the request started,
		// in milliseconds from the run's start, and how long it took
		// (-1: it never ended).
		Unit     int           `json:"unit"`
		At       int64         `json:"at"`
		Took     int64         `json:"took"`
		Error    string        `json:"error,omitempty"`
		Layers   record.Layers `json:"layers"`
		Tokens   int           `json:"tokens"`
		Naive    int           `json:"naive"`
		Recorded bool          `json:"recorded"`
		Choice   string        `json:"choice"`
		Bytes    int           `json:"bytes"`
		Prunes   []string      `json:"prunes"`
		Events   []string      `json:"events"`
		// Said is each of Prunes, then each of Events, in a sentence.
		Said []string  `json:"said"`
		Msgs []pageMsg `json:"msgs"`
		Resp pageResp  `json:"resp"`
		Refs []string  `json:"refs"`
	}
	pageMsg struct {
		Role   string     `json:"role"`
		Layer  string     `json:"layer"`
		Ref    string     `json:"ref,omitempty"`
		Kind   string     `json:"kind,omitempty"`
		Tokens int        `json:"tokens"`
		Text   int        `json:"text"`
		Calls  []pageCall `json:"calls,omitempty"`
	}
	pageCall struct {
		ID   string `json:"id"`
		Name string `json:"name"`
		Args string `json:"args"`
		// Preview is the text of the result the next request carried
		// (an index into Texts, -1 if none); Ref its stored output.
		Preview int    `json:"preview"`
		Ref     string `json:"ref,omitempty"`
	}
	pageResp struct {
		Text       string     `json:"text"`
		Calls      []pageCall `json:"calls"`
		Finish     string     `json:"finish"`
		Prompt     int        `json:"prompt"`
		Completion int        `json:"completion"`
		// Raw is a response that is not a chat completion, as received.
		Raw string `json:"raw,omitempty"`
	}
	pageOutput struct {
		Ref   string `json:"ref"`
		Step  int    `json:"step"`
		Tool  string `json:"tool"`
		Args  string `json:"args"`
		Bytes int    `json:"bytes"`
		Lines int    `json:"lines"`
		Text  string `json:"text"`
		Whole bool   `json:"whole"`
	}
)

// WriteHTML writes a run as one self-contained HTML page: inline style
// and script, no request to anything, the data as JSON that the script
// renders with textContent.
func WriteHTML(w io.Writer, h HTMLReplay) error {
	data := buildPage(h)
	csp := "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src " + scriptHash()
	title := "review replay " + data.Run.ID
	for _, p := range pageParts() {
		if _, err := io.WriteString(w, p.text); err != nil {
			return err
		}
		var err error
		switch p.slot {
		case "":
		case "title":
			_, err = io.WriteString(w, html.EscapeString(title))
		case "csp":
			_, err = io.WriteString(w, html.EscapeString(csp))
		case "style":
			_, err = io.WriteString(w, pageStyle)
		case "script":
			_, err = io.WriteString(w, pageScript)
		case "data":
			// The encoder writes <, > and & as \u escapes (and U+2028,
			// U+2029 too), so no recorded text can end the script
			// element or open a comment in it.
			enc := json.NewEncoder(w)
			enc.SetEscapeHTML(true)
			err = enc.Encode(data)
		default:
			err = fmt.Errorf("replay page: unknown slot %q", p.slot)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// buildPage gathers the data of a run's page: the run, then each step's
// request, events and response, then the stored outputs.
func buildPage(h HTMLReplay) *pageData {
	b := &pageBuilder{d: newPage(h), c: h.Counter, texts: map[string]int{}, results: map[string]callResult{}}
	for i, s := range h.Replay.Steps {
		b.addStep(h, i, s)
	}
	b.linkResults()
	for _, o := range h.Outputs {
		b.d.Outputs = append(b.d.Outputs, pageOutput{Ref: o.Ref, Step: o.Step, Tool: o.Tool, Args: o.Args,
			Bytes: o.Bytes, Lines: o.Lines, Text: validUTF8(o.Data), Whole: o.Whole})
	}
	return b.d
}

// newPage is a page's data about the run as a whole, with no step yet.
func newPage(h HTMLReplay) *pageData {
	run := h.Replay.Run
	d := &pageData{
		Run: pageRun{ID: run.ID, Repo: run.Repo, Base: run.Base, Head: run.Head, BaseSHA: run.BaseSHA, HeadSHA: run.HeadSHA,
			Model: run.Model, Status: run.Status, Error: run.Error},
		Settings: rawOrNull(run.Settings), Usage: rawOrNull(run.Usage),
		Findings: []pageFinding{}, Texts: []string{}, Steps: []pageStep{}, Outputs: []pageOutput{},
		Inline: HTMLInline, Egress: h.Replay.Egress,
	}
	if !run.Started.IsZero() {
		d.Run.Started = run.Started.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	if !run.Ended.IsZero() {
		d.Run.Ended = run.Ended.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	var u result.RunUsage
	if json.Unmarshal(run.Usage, &u) == nil {
		if p, ok := llm.PriceFor(run.Model); ok {
			d.Cost = llm.FormatUSD(u.Cost(p))
		}
	}
	if h.Figures != nil {
		d.Efficiency = h.Figures.Efficiency
	}
	d.Result = recordedResult(h.Replay)
	return d
}

// callResult is the result a tool call got, as the request that carried
// it showed it: its text (an index into the page's texts) and its stored
// output's ref.
type callResult struct {
	text int
	ref  string
}

// pageBuilder adds a run's steps to a page's data, keeping each distinct
// message text once and the result each tool call got.
type pageBuilder struct {
	d       *pageData
	c       *conversation.Counter
	texts   map[string]int
	results map[string]callResult
}

// text is the index of s in the page's texts, added if it is new.
func (b *pageBuilder) text(s string) int {
	if i, ok := b.texts[s]; ok {
		return i
	}
	b.texts[s] = len(b.d.Texts)
	b.d.Texts = append(b.d.Texts, s)
	return b.texts[s]
}

// addStep adds the i-th step of the run, and the findings its response
// submitted.
func (b *pageBuilder) addStep(h HTMLReplay, i int, s record.Step) {
	ps := pageStep{N: s.N, Turn: s.Turn, Started: s.Started.UTC().Format("15:04:05.000"), Error: s.Error,
		Bytes: len(s.Request), Prunes: []string{}, Events: []string{}, Said: []string{}, Msgs: []pageMsg{}, Refs: s.Refs}
	ps.Unit, ps.At, ps.Took = s.Unit, s.Started.Sub(h.Replay.Run.Started).Milliseconds(), -1
	if !s.Ended.IsZero() {
		ps.Ended = s.Ended.UTC().Format("15:04:05.000")
		ps.Took = s.Ended.Sub(s.Started).Milliseconds()
	}
	if ps.Refs == nil {
		ps.Refs = []string{}
	}
	if h.Figures != nil && i < len(h.Figures.Steps) {
		f := h.Figures.Steps[i]
		ps.Layers, ps.Tokens, ps.Naive, ps.Recorded = f.Layers, f.Tokens, f.Naive, h.Figures.Recorded[i]
	}
	ps.Prunes, ps.Events, ps.Said = stepEvents(s.Events)
	if req, err := wire.DecodeRequest(s.Request); err == nil {
		ps.Choice = strings.Trim(string(req.ToolChoice), `"`)
		ps.Msgs = b.messages(req.Conversation(), s.Names())
	}
	ps.Resp = pageResponse(s.Response)
	b.d.Steps = append(b.d.Steps, ps)
	for _, call := range ps.Resp.Calls {
		if call.Name == toolname.SubmitReview {
			b.d.Findings = append(b.d.Findings, submitted(s.N, call.Args)...)
		}
	}
}

// stepEvents sorts a step's events for the page, the request event
// aside (its messages are the step's): the prunes, the others (with any
// that cannot be read), and each of them in a sentence, prunes first.
func stepEvents(events []json.RawMessage) (prunes, others, said []string) {
	prunes, others, said = []string{}, []string{}, []string{}
	for _, raw := range events {
		e, err := record.Decode(raw)
		switch {
		case err != nil:
			others = append(others, string(raw))
		case e.Kind() == record.KindRequest:
		case e.Kind() == record.KindPrune:
			prunes = append(prunes, string(raw))
		default:
			others = append(others, string(raw))
		}
	}
	for _, raw := range append(append([]string(nil), prunes...), others...) {
		said = append(said, eventSentence(json.RawMessage(raw)))
	}
	return prunes, others, said
}

// messages are the messages of a step's request as the page shows them,
// each named as its request event names it. The result each tool message
// carries is noted for the call that asked for it.
func (b *pageBuilder) messages(msgs []conversation.Message, names []record.Name) []pageMsg {
	out := []pageMsg{}
	for j, m := range msgs {
		name := nameOf(names, j)
		pm := pageMsg{Role: string(m.Role), Layer: string(name.Layer), Ref: name.Ref, Text: b.text(m.Content)}
		pm.Kind = msgKind(m.Content, pm.Ref, name.Hunks)
		if name.Learnings {
			pm.Kind = "team learnings"
		}
		_, pm.Tokens = size(b.c, m)
		for _, tc := range m.ToolCalls {
			pm.Calls = append(pm.Calls, pageCall{ID: tc.ID, Name: tc.Name, Args: tc.Arguments, Preview: -1})
		}
		if m.Role == conversation.Tool && m.ToolCallID != "" {
			b.results[m.ToolCallID] = callResult{pm.Text, pm.Ref}
		}
		out = append(out, pm)
	}
	return out
}

// linkResults gives each tool call of a response the result a later
// request carried for it, matched by the call's ID.
func (b *pageBuilder) linkResults() {
	for i := range b.d.Steps {
		calls := b.d.Steps[i].Resp.Calls
		for j, call := range calls {
			if res, ok := b.results[call.ID]; ok && call.ID != "" {
				calls[j].Preview, calls[j].Ref = res.text, res.ref
			}
		}
	}
}

// recordedResult reads the result a run recorded with its usage; nil for
// a run that recorded none (still running, failed, or made before).
func recordedResult(r *record.Replay) *pageResult {
	var u struct {
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(r.Run.Usage, &u) != nil || len(u.Result) == 0 {
		return nil
	}
	var res result.Result
	if json.Unmarshal(u.Result, &res) != nil {
		return nil
	}
	p := &pageResult{Summary: res.Summary, Submitted: res.Submitted, Held: res.HeldLine(),
		Findings: res.Findings, Ungrounded: res.Ungrounded, Withheld: res.Withheld, Dropped: res.Dropped,
		NotReviewed: res.NotReviewed, Stored: map[string]int{}, Units: unitSteps(r)}
	for _, s := range r.Steps {
		for _, ref := range s.Refs {
			p.Stored[ref] = s.N
		}
	}
	nonNil := func(fs []result.Finding) []result.Finding {
		if fs == nil {
			return []result.Finding{}
		}
		return fs
	}
	p.Findings, p.Ungrounded = nonNil(p.Findings), nonNil(p.Ungrounded)
	if p.Withheld == nil {
		p.Withheld = []result.Dropped{}
	}
	if p.Dropped == nil {
		p.Dropped = []result.Dropped{}
	}
	if p.NotReviewed == nil {
		p.NotReviewed = []result.NotReviewed{}
	}
	return p
}

// unitSteps names the first step of each unit of a review in units: the
// request that carried the unit's hunks. Units side by side have a lane
// each; units in sequence a turn each.
func unitSteps(r *record.Replay) map[int]int {
	out := map[int]int{}
	side := false
	for _, s := range r.Steps {
		side = side || s.Unit > 0
	}
	for _, s := range r.Steps {
		k := s.Turn
		if side {
			k = s.Unit
		}
		if _, ok := out[k]; !ok && k > 0 {
			out[k] = s.N
		}
	}
	return out
}

// pageResponse reads a chat-completion response for the page.
func pageResponse(raw json.RawMessage) pageResp {
	out := pageResp{Calls: []pageCall{}}
	if len(raw) == 0 || string(raw) == "null" {
		return out
	}
	resp, err := wire.DecodeCompletion(raw)
	var u wire.Usage
	if err == nil {
		u, err = resp.Tokens()
	}
	if err != nil || len(resp.Choices) == 0 {
		out.Raw = validUTF8(raw)
		return out
	}
	ch := resp.Choices[0]
	out.Text, out.Finish = ch.Message.Text(), ch.FinishReason
	out.Prompt, out.Completion = u.PromptTokens, u.CompletionTokens
	for _, tc := range ch.Message.ToolCalls {
		out.Calls = append(out.Calls, pageCall{ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments, Preview: -1})
	}
	return out
}

// submitted reads the findings of a submit_review call's arguments as the
// model wrote them (the review then checks them against the diff).
func submitted(step int, args string) []pageFinding {
	var sub struct {
		Findings []struct {
			Path     string `json:"path"`
			Line     int    `json:"line"`
			Severity string `json:"severity"`
			Title    string `json:"title"`
			Body     string `json:"body"`
		} `json:"findings"`
	}
	if json.Unmarshal([]byte(args), &sub) != nil {
		return nil
	}
	var out []pageFinding
	for _, f := range sub.Findings {
		out = append(out, pageFinding{Step: step, Path: f.Path, Line: f.Line, Severity: f.Severity, Title: f.Title, Body: f.Body})
	}
	return out
}

func rawOrNull(b json.RawMessage) json.RawMessage {
	if len(b) == 0 || !json.Valid(b) {
		return json.RawMessage("null")
	}
	return b
}

// validUTF8 is b as text: a rune cut short at its end (a head cut from
// an output) dropped, other invalid bytes shown as U+FFFD.
func validUTF8(b []byte) string {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				b = b[:i]
			}
			break
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// msgKind says what a message of a request is beyond its layer: a unit's
// hunks, a stub, a preview of a stored output or a whole one.
func msgKind(content, ref string, hunks bool) string {
	switch {
	case hunks:
		return "the unit's hunks, charted as diff context"
	case strings.HasPrefix(content, conversation.StubPrefix):
		return "stub"
	case ref != "" && isPreview(content):
		return "preview"
	case ref != "":
		return "whole"
	}
	return ""
}
