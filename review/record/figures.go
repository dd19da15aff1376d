package record

import (
	"encoding/json"
	"fmt"

	"github.com/dustin/go-humanize"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/llm/wire"
	"github.com/reviewdev/review/toolmem"
)

// Layers are a request's prompt tokens by the part of the context they
// come from, counted as the loop counts a request (Counter.CountMessage
// per message, the tool definitions' JSON once): they add up to the
// loop's own count of the request.
type Layers struct {
	System int `json:"system"`
	// Learnings are the team's learnings, a part of the static layer of
	// their own (conversation.Message.Learnings).
	Learnings int `json:"learnings,omitempty"`
	Tools     int `json:"tools"`
	Diff      int `json:"diff"`
	Summary   int `json:"summary"`
	Window    int `json:"window"`
	Loop      int `json:"loop"`
	// Previews are the tool results of the current loop, a part of Loop:
	// what the tools' outputs cost once previews stand in for them.
	Previews int `json:"previews"`
	// Other are messages whose layer the run did not record.
	Other int `json:"other,omitempty"`
}

// Total is the request's tokens: every layer once (Previews are in Loop).
func (l Layers) Total() int {
	return l.System + l.Learnings + l.Tools + l.Diff + l.Summary + l.Window + l.Loop + l.Other
}

// CountLayers sorts the tokens of a request's messages into layers: the
// static layer's system messages are the system prompt, its others the
// diff context; so is the message of the current loop that carries its
// unit's hunks (Message.Hunks).
func CountLayers(c *conversation.Counter, msgs []conversation.Message, toolTokens int) Layers {
	l := Layers{Tools: toolTokens}
	for _, m := range msgs {
		n := c.CountMessage(m)
		switch m.Layer {
		case conversation.Static:
			if m.Learnings {
				l.Learnings += n
			} else if m.Role == conversation.System {
				l.System += n
			} else {
				l.Diff += n
			}
		case conversation.Summary:
			l.Summary += n
		case conversation.Window:
			l.Window += n
		case conversation.Loop:
			if m.Hunks {
				l.Diff += n
				continue
			}
			l.Loop += n
			if m.Role == conversation.Tool {
				l.Previews += n
			}
		default:
			l.Other += n
		}
	}
	return l
}

// StepFigures are one request's token figures, recorded with its step
// (toolmem.Step.Figures).
type StepFigures struct {
	// Layers are what the request sent, by layer; Tokens their total.
	Layers Layers `json:"layers"`
	Tokens int    `json:"tokens"`
	// Estimated says the figures are estimates: the server reported its
	// count of the request, and nothing needed ours exactly.
	Estimated bool `json:"estimated,omitempty"`
	// Naive is what the same request would have sent in a naive
	// transcript of the run: every tool output inline and whole, nothing
	// pruned, stubbed or summarized. 0 when not known yet.
	Naive int `json:"naive_tokens,omitempty"`
}

// Efficiency is what a run's context cost against a naive transcript of
// the same run (every tool output inline whole, nothing pruned).
type Efficiency struct {
	Requests int `json:"requests"`
	// Sent are the prompt tokens of every request as sent (our count),
	// Naive those of the naive transcript; Ratio is Sent / Naive.
	Sent  int     `json:"sent_tokens"`
	Naive int     `json:"naive_tokens"`
	Ratio float64 `json:"ratio"`
	// Largest is the largest request, LargestStep its step, and
	// WindowShare its share of the context window. NaiveLargest is the
	// naive transcript's largest request, which may not fit the window.
	Largest      int     `json:"largest_request_tokens"`
	LargestStep  int     `json:"largest_step"`
	NaiveLargest int     `json:"naive_largest_request_tokens"`
	Window       int     `json:"context_window"`
	WindowShare  float64 `json:"largest_window_share"`
	// Estimated says some of the figures are estimates (StepFigures).
	Estimated bool `json:"estimated,omitempty"`
}

// efficiencyOf sums the figures of a run's steps.
func efficiencyOf(steps []StepFigures, nums []int, window int) *Efficiency {
	e := &Efficiency{Window: window}
	for i, f := range steps {
		if f.Tokens == 0 && f.Naive == 0 {
			continue // a request never made
		}
		e.Requests++
		e.Estimated = e.Estimated || f.Estimated
		e.Sent += f.Tokens
		e.Naive += max(f.Naive, f.Tokens)
		if f.Tokens > e.Largest {
			e.Largest, e.LargestStep = f.Tokens, nums[i]
		}
		e.NaiveLargest = max(e.NaiveLargest, f.Naive, f.Tokens)
	}
	if e.Requests == 0 {
		return nil
	}
	if e.Naive > 0 {
		e.Ratio = round3(float64(e.Sent) / float64(e.Naive))
	}
	if window > 0 {
		e.WindowShare = round3(float64(e.Largest) / float64(window))
	}
	return e
}

func round3(f float64) float64 {
	return float64(int64(f*1000+0.5)) / 1000
}

// Line is the efficiency in one line for people: "Context: 12,400 tokens
// sent in 6 requests against 51,800 for a naive transcript (0.24) ·
// largest request 3,100 tokens, 2.4% of the 128,000-token window (naive
// 14,200)".
func (e *Efficiency) Line() string {
	if e == nil || e.Requests == 0 {
		return ""
	}
	head := "Context"
	if e.Estimated {
		head = "Context (estimated)"
	}
	s := fmt.Sprintf("%s: %s tokens sent in %s against %s for a naive transcript (ratio %.2f)",
		head, comma(e.Sent), text.Plural(e.Requests, "request"), comma(e.Naive), e.Ratio)
	s += fmt.Sprintf(" · largest request %s tokens (step %d)", comma(e.Largest), e.LargestStep)
	if e.Window > 0 {
		s += fmt.Sprintf(", %.1f%% of the %s-token window", 100*e.WindowShare, comma(e.Window))
		if e.NaiveLargest > e.Window {
			s += fmt.Sprintf("; the naive transcript's largest, %s, would not fit", comma(e.NaiveLargest))
		} else {
			s += fmt.Sprintf(" (naive: %s)", comma(e.NaiveLargest))
		}
	}
	return s
}

// naive follows a run's requests as a naive transcript would have sent
// them: every message of the conversation once sent stays, at its largest
// (a tool result as its whole output, a message before it was stubbed or
// capped); summaries, which stand in for dropped turns, are left out.
type naive struct {
	tok map[string]int // by message ID
	sum int            // of tok
}

// lanes are the naive transcripts of a run's units side by side, by unit
// (0 for a run in sequence): each unit's loop is a conversation of its
// own, so a naive transcript of the run is one of each, never their sum.
type lanes map[int]*naive

// of is unit's naive transcript.
func (l lanes) of(unit int) *naive {
	n := l[unit]
	if n == nil {
		n = &naive{}
		l[unit] = n
	}
	return n
}

// request returns the naive size of a request of msgs with tool
// definitions of toolTokens. whole gives the tokens of a stored output as
// a whole message, when it is known.
func (n *naive) request(c *conversation.Counter, msgs []conversation.Message, toolTokens int, whole func(ref string) (int, bool)) int {
	if n.tok == nil {
		n.tok = map[string]int{}
	}
	anon := 0
	for _, m := range msgs {
		if m.Layer == conversation.Summary {
			continue
		}
		t := c.CountMessage(m)
		if m.Ref != "" {
			if w, ok := whole(m.Ref); ok {
				t = max(t, w)
			}
		}
		if m.ID == "" {
			anon += t // not followed from request to request
			continue
		}
		if old, ok := n.tok[m.ID]; !ok || t > old {
			n.sum += t - old
			n.tok[m.ID] = t
		}
	}
	return n.sum + anon + toolTokens
}

// Tally follows a run's requests step by step: the figures of each, and
// the naive transcript they would have been.
type Tally struct {
	naive lanes
	// Steps are the figures of the steps tallied, Nums their numbers.
	Steps []StepFigures
	Nums  []int
}

// Naive returns the naive transcript's size of a request of msgs with
// tool definitions of toolTokens, the next request of unit (0 in
// sequence) it follows. whole gives the tokens of a stored output as a
// whole message, when known.
func (t *Tally) Naive(unit int, c *conversation.Counter, msgs []conversation.Message, toolTokens int, whole func(ref string) (int, bool)) int {
	if t.naive == nil {
		t.naive = lanes{}
	}
	return t.naive.of(unit).request(c, msgs, toolTokens, whole)
}

// Set keeps sf as the figures of step n, replacing any kept for it before.
func (t *Tally) Set(n int, sf StepFigures) {
	if len(t.Nums) > 0 && t.Nums[len(t.Nums)-1] == n {
		t.Steps[len(t.Steps)-1] = sf
		return
	}
	t.Steps, t.Nums = append(t.Steps, sf), append(t.Nums, n)
}

// Efficiency is the efficiency of the steps tallied, against a context
// window of window tokens.
func (t *Tally) Efficiency(window int) *Efficiency {
	return efficiencyOf(t.Steps, t.Nums, window)
}

// WholeTokens counts a stored output as the message that would carry it.
func WholeTokens(c *conversation.Counter, output string) int {
	return c.CountMessage(conversation.Message{Role: conversation.Tool, Content: output})
}

// RunFigures are a recorded run's token figures: each step's and the
// efficiency of the whole run.
type RunFigures struct {
	// Steps are parallel to Replay.Steps. Recorded says which were read
	// from the run's records rather than counted again, as they are for
	// runs recorded before figures were.
	Steps      []StepFigures `json:"steps"`
	Recorded   []bool        `json:"recorded"`
	Efficiency *Efficiency   `json:"efficiency"`

	naive lanes
	nums  []int
}

// Resume is the tally of a run recorded so far, for a session that adds
// steps to it: the naive transcript is followed through every step.
func Resume(st *toolmem.Store, r *Replay, c *conversation.Counter) *Tally {
	f := computeFigures(st, r, c, true)
	return &Tally{naive: f.naive, Steps: f.Steps, Nums: f.nums}
}

// Figures returns the token figures of a recorded run: those recorded
// with its steps, and for steps recorded without them (older runs) the
// same figures counted from the requests as sent, the request events'
// layers and the stored outputs. c must count as the run counted.
func Figures(st *toolmem.Store, r *Replay, c *conversation.Counter) *RunFigures {
	return computeFigures(st, r, c, false)
}

// computeFigures is Figures; follow has it follow the naive transcript
// through steps whose figures are recorded too, for a session resumed
// after them. Without it, the stored outputs are read only when a step
// has no figures.
//
// Figures a run recorded as estimates (runs made before figures were
// counted exactly) are counted again with c, unless c itself estimates: an
// estimate may be below the count it stands for, and every output shows
// the same figure.
func computeFigures(st *toolmem.Store, r *Replay, c *conversation.Counter, follow bool) *RunFigures {
	recount := c.Kind() == conversation.ExactCount && Estimated(r)
	if recount {
		follow = true
	}
	f := &RunFigures{Steps: make([]StepFigures, len(r.Steps)), Recorded: make([]bool, len(r.Steps)), nums: make([]int, len(r.Steps)), naive: lanes{}}
	whole := map[string]int{}
	wholeOf := func(ref string) (int, bool) {
		if w, ok := whole[ref]; ok {
			return w, true
		}
		out, err := st.Get(ref)
		if err != nil {
			return 0, false
		}
		whole[ref] = WholeTokens(c, string(out))
		return whole[ref], true
	}
	if !follow {
		for _, s := range r.Steps {
			var rec StepFigures
			if json.Unmarshal(s.Figures, &rec) != nil || rec.Naive == 0 {
				follow = true // older, or cut short before its response
			}
		}
	}
	for i, s := range r.Steps {
		f.nums[i] = s.N
		var rec StepFigures
		recorded := len(s.Figures) > 0 && json.Unmarshal(s.Figures, &rec) == nil && rec.Tokens > 0 && !(recount && rec.Estimated)
		var (
			msgs    []conversation.Message
			toolTok int
			ok      bool
		)
		if !recorded || follow {
			msgs, toolTok, ok = requestMessages(c, s)
		}
		switch {
		case recorded:
			f.Steps[i], f.Recorded[i] = rec, true
			// Followed still, for the steps after it that have no
			// figures, and for a session resumed from here.
			if ok && follow {
				n := f.naive.of(s.Unit).request(c, msgs, toolTok, wholeOf)
				if rec.Naive == 0 {
					f.Steps[i].Naive = n
				}
			}
		case ok:
			sf := StepFigures{Layers: CountLayers(c, msgs, toolTok), Estimated: c.Kind() != conversation.ExactCount}
			sf.Tokens = sf.Layers.Total()
			sf.Naive = f.naive.of(s.Unit).request(c, msgs, toolTok, wholeOf)
			f.Steps[i] = sf
		}
	}
	f.Efficiency = efficiencyOf(f.Steps, f.nums, runWindow(r.Run))
	return f
}

// runWindow is the context window a run was made with.
func runWindow(run toolmem.Run) int {
	var set struct {
		Budget conversation.Budget `json:"budget"`
	}
	if json.Unmarshal(run.Settings, &set) == nil && set.Budget.ContextWindow > 0 {
		return set.Budget.ContextWindow
	}
	return 0
}

// requestMessages reads a recorded request back as the messages it was
// made of, with the layers, IDs and refs its request event names, and
// counts its tool definitions as the loop does (ToolTokens).
func requestMessages(c *conversation.Counter, s Step) ([]conversation.Message, int, bool) {
	if len(s.Request) == 0 {
		return nil, 0, false
	}
	req, err := wire.DecodeRequest(s.Request)
	if err != nil || req.Messages == nil {
		return nil, 0, false
	}
	names := s.Names()
	msgs := req.Conversation()
	if len(names) == len(msgs) {
		for i := range msgs {
			msgs[i].ID, msgs[i].Layer, msgs[i].Ref, msgs[i].Hunks, msgs[i].Learnings = names[i].ID, names[i].Layer, names[i].Ref, names[i].Hunks, names[i].Learnings
		}
	}
	return msgs, ToolTokens(c, req.Definitions()), true
}

func comma(n int) string { return humanize.Comma(int64(n)) }

// Estimated reports whether a run recorded estimated figures.
func Estimated(r *Replay) bool {
	for _, s := range r.Steps {
		var rec StepFigures
		if json.Unmarshal(s.Figures, &rec) == nil && rec.Estimated {
			return true
		}
	}
	return false
}

// RunCounter counts tokens as run counted them: with the tokenizer its
// settings name, in its model's encoding. A run its server counted
// (conversation.Server) is counted with tiktoken: the server may be gone,
// and its counts are in the figures recorded with each step.
func RunCounter(run toolmem.Run) (*conversation.Counter, error) {
	var set struct {
		Tokenizer string `json:"tokenizer"`
	}
	mode := conversation.Tiktoken
	if json.Unmarshal(run.Settings, &set) == nil && set.Tokenizer == conversation.Estimate {
		mode = conversation.Estimate
	}
	return conversation.NewCounter(llm.Lookup(run.Model).Encoding, mode)
}

// RunEfficiency is the efficiency run recorded when it ended; for a run
// that recorded none (it is under way, was killed, or is older than the
// figure) it is counted from its records. nil: no request was recorded.
func RunEfficiency(st *toolmem.Store, run toolmem.Run) *Efficiency {
	var u struct {
		Efficiency *Efficiency `json:"efficiency"`
	}
	if json.Unmarshal(run.Usage, &u) == nil && u.Efficiency != nil && !u.Efficiency.Estimated {
		return u.Efficiency
	}
	r, err := Load(st, run.ID)
	if err != nil || len(r.Steps) == 0 {
		return nil
	}
	c, err := RunCounter(run)
	if err != nil {
		return nil
	}
	return Figures(st, r, c).Efficiency
}
