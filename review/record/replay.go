package record

import (
	"bytes"
	"encoding/json"
	"slices"
	"time"

	"github.com/reviewdev/review/internal/egress"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/toolmem"
)

// Replay is a recorded run: the run record and each step with the request
// exactly as sent, the response, and the events recorded before it.
type Replay struct {
	Run   toolmem.Run `json:"run"`
	Steps []Step      `json:"steps"`
	// Lanes are the units of a review run side by side, each with its
	// steps' numbers, when it started and ended and how long it took;
	// none for a run made in sequence.
	Lanes []LaneTimes `json:"lanes,omitempty"`
	// Egress is everything the run sent out, summed from its egress
	// events; nil for a run recorded before them.
	Egress *egress.Record `json:"egress,omitempty"`
}

// LaneTimes is a lane as --json writes it.
type LaneTimes struct {
	Unit       int       `json:"unit"`
	Steps      []int     `json:"steps"`
	Started    time.Time `json:"started"`
	Ended      time.Time `json:"ended"`
	DurationMS int64     `json:"duration_ms"`
}

// Step is one model request of a run. Events are as recorded (Decode
// reads them), but for request events, which name all the messages of
// their request.
type Step struct {
	N    int `json:"n"`
	Turn int `json:"turn"`
	// Unit is the unit of a review in units side by side the step
	// belongs to (from 1), its lane; 0 for steps made in sequence.
	Unit     int               `json:"unit,omitempty"`
	Request  json.RawMessage   `json:"request"`
	Response json.RawMessage   `json:"response"`
	Error    string            `json:"error,omitempty"`
	Events   []json.RawMessage `json:"events"`
	Started  time.Time         `json:"started"`
	Ended    time.Time         `json:"ended,omitzero"`
	// DurationMS is how long the request took, from its start to its
	// answer; 0 when it did not end.
	DurationMS int64 `json:"duration_ms,omitempty"`
	// Refs are the tool outputs stored while handling the response.
	Refs []string `json:"refs,omitempty"`
	// Figures are the request's tokens by layer as recorded (StepFigures);
	// runs recorded before them have none.
	Figures json.RawMessage `json:"figures,omitempty"`
}

// MarshalJSON writes the request and response bodies as they were sent and
// received when they are JSON, and as JSON strings when they are not (a
// proxy's HTML error page, a body cut short, an event stream): a
// json.RawMessage that is not JSON cannot be written at all.
func (s Step) MarshalJSON() ([]byte, error) {
	type plain Step // without this method
	p := plain(s)
	p.Request, p.Response = jsonOrString(s.Request), jsonOrString(s.Response)
	if !json.Valid(p.Figures) {
		p.Figures = nil
	}
	p.Events = make([]json.RawMessage, len(s.Events))
	for i, e := range s.Events {
		p.Events[i] = jsonOrString(e)
	}
	return marshal(p)
}

// jsonOrString returns b if it is JSON, else b as a JSON string.
func jsonOrString(b json.RawMessage) json.RawMessage {
	if json.Valid(b) {
		return b
	}
	s, err := marshal(string(b))
	if err != nil {
		return json.RawMessage("null")
	}
	return s
}

// marshal is json.Marshal without escaping <, > and &, as the replay
// JSON is written (WriteReplayJSON): bodies stay as they were sent.
func marshal(v any) ([]byte, error) { return text.JSON(v) }

// Load reads a run's records. id may be an unambiguous prefix.
func Load(st *toolmem.Store, id string) (*Replay, error) {
	run, err := st.Run(id)
	if err != nil {
		return nil, err
	}
	if st.ReadOnly() && !st.Snapshot() && run.Status == toolmem.StatusRunning {
		// As Runs shows it: see there.
		run = abandoned(st, run, time.Now())
	}
	steps, err := Steps(st, run.ID)
	if err != nil {
		return nil, err
	}
	events, err := st.Events(run.ID)
	if err != nil {
		return nil, err
	}
	r := &Replay{Run: run, Steps: []Step{}}
	events = r.takeEgress(events)
	var prev []json.RawMessage          // the messages of the last request event
	sent := map[int][]json.RawMessage{} // of each step's request event
	units := map[int]int{}              // each step's unit, side by side
	for i, e := range events {
		data, msgs, unit, ok := expandRequest(e.Data, prev, sent)
		events[i].Data = data
		if !ok {
			continue
		}
		prev, sent[e.Step] = msgs, msgs
		if unit > 0 {
			units[e.Step] = unit
		}
	}
	for _, s := range steps {
		rs := Step{N: s.N, Turn: s.Turn, Unit: units[s.N], Request: s.Request, Response: s.Response, Error: s.Error,
			Started: s.Started, Ended: s.Ended, Events: []json.RawMessage{}, Refs: s.Refs, Figures: s.Figures}
		for _, e := range events {
			if e.Step == s.N {
				rs.Events = append(rs.Events, e.Data)
			}
		}
		if !s.Ended.IsZero() {
			rs.DurationMS = s.Ended.Sub(s.Started).Milliseconds()
		}
		if len(rs.Request) == 0 {
			rs.Request = json.RawMessage("null")
		}
		if len(rs.Response) == 0 {
			rs.Response = json.RawMessage("null")
		}
		r.Steps = append(r.Steps, rs)
	}
	for _, l := range Lanes(r) {
		lt := LaneTimes{Unit: l.Unit, Started: l.Start, Ended: l.End, DurationMS: l.End.Sub(l.Start).Milliseconds()}
		for _, s := range l.Steps {
			lt.Steps = append(lt.Steps, s.N)
		}
		r.Lanes = append(r.Lanes, lt)
	}
	return r, nil
}

// takeEgress sums the egress events into r.Egress and returns the other
// events: egress is the run's, not a step's.
func (r *Replay) takeEgress(events []toolmem.Event) []toolmem.Event {
	prefix := []byte(`{"kind":"` + KindEgress + `"`)
	defer func() {
		if r.Egress != nil {
			for i := range r.Egress.Redactions {
				r.Egress.Redactions[i].IDs = nil // counted; never shown
			}
		}
	}()
	return slices.DeleteFunc(events, func(e toolmem.Event) bool {
		if !bytes.HasPrefix(e.Data, prefix) {
			return false
		}
		ev, err := Decode(e.Data)
		eg, ok := ev.(Egress)
		if err != nil || !ok {
			return false
		}
		if r.Egress == nil {
			r.Egress = &egress.Record{Destinations: []egress.Destination{}}
		}
		r.Egress.Add(eg.Record)
		return true
	})
}

// expandRequest puts back the messages a request event shares with the
// request before it (prev), which it counts in "same" rather than naming
// them again (see conversation.History.Sent). The messages are kept as recorded. Other events are returned as they
// are; prev becomes the messages of data if it is a request event.
//
// A request of units side by side names the step it extends (Of), whose
// messages sent holds; unit is its unit, 0 when it names none. ok is
// false for an event that is not a request's.
func expandRequest(data json.RawMessage, prev []json.RawMessage, sent map[int][]json.RawMessage) (json.RawMessage, []json.RawMessage, int, bool) {
	var ev struct {
		Kind     string            `json:"kind"`
		Same     int               `json:"same"`
		Messages []json.RawMessage `json:"messages"`
		Unit     int               `json:"unit"`
		Of       int               `json:"of"`
	}
	if json.Unmarshal(data, &ev) != nil || ev.Kind != "request" {
		return data, prev, 0, false
	}
	if ev.Of > 0 {
		prev = sent[ev.Of]
	}
	if ev.Same <= 0 || ev.Same > len(prev) {
		return data, ev.Messages, ev.Unit, true
	}
	msgs := append(slices.Clip(prev[:ev.Same]), ev.Messages...)
	out, err := json.Marshal(struct {
		Kind     string            `json:"kind"`
		Messages []json.RawMessage `json:"messages"`
		Unit     int               `json:"unit,omitempty"`
	}{ev.Kind, msgs, ev.Unit})
	if err != nil {
		return data, msgs, ev.Unit, true
	}
	return out, msgs, ev.Unit, true
}

// Names are the names the step's request event gives the messages of its
// request; nil if it has none.
func (s Step) Names() []Name {
	var names []Name
	for _, raw := range s.Events {
		if ev, err := Decode(raw); err == nil {
			if r, ok := ev.(Request); ok {
				names = r.Messages
			}
		}
	}
	return names
}

// StoredOutput is a stored tool output as a replay page shows it: its
// record, and its first bytes or, when it is small enough, all of them.
type StoredOutput struct {
	toolmem.Output
	Data  []byte
	Whole bool
}

// Outputs reads the outputs stored in run, oldest first: whole when
// they are at most whole bytes, else their first head bytes; while the
// outputs read whole add up to at most total bytes. A damaged output is
// left out: the page shows its record only where a step names it.
func Outputs(st *toolmem.Store, run string, head, whole, total int) ([]StoredOutput, error) {
	metas, err := st.List(run)
	if err != nil {
		return nil, err
	}
	outs := make([]StoredOutput, 0, len(metas))
	for _, m := range metas {
		data, err := st.Get(m.Ref)
		if err != nil {
			continue
		}
		o := StoredOutput{Output: m, Data: data, Whole: true}
		if len(data) > whole || len(data) > total {
			o.Data, o.Whole = data[:min(head, len(data))], false
		} else {
			total -= len(data)
		}
		outs = append(outs, o)
	}
	return outs, nil
}

// abandonedError is recorded on a run whose process ended mid-run.
const abandonedError = "the review process ended before the run finished (killed or crashed); its recorded steps are intact"

// CloseAbandoned marks as interrupted every run still recorded as running.
// Only one process uses a store at a time, so when a store has just been
// opened, a running run belongs to a process that was killed or crashed.
// It returns how many runs it closed.
func CloseAbandoned(st *toolmem.Store, now time.Time) (int, error) {
	runs, err := st.Running()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range runs {
		if r.Status != toolmem.StatusRunning {
			continue
		}
		if err := st.PutRun(abandoned(st, r, now)); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// abandoned returns a running run as CloseAbandoned records it:
// interrupted, ended when its last step did.
func abandoned(st *toolmem.Store, r toolmem.Run, now time.Time) toolmem.Run {
	r.Status, r.Error, r.Ended = toolmem.StatusInterrupted, abandonedError, now
	if steps, err := st.Steps(r.ID); err == nil && len(steps) > 0 {
		last := steps[len(steps)-1]
		r.Ended = last.Started
		if !last.Ended.IsZero() {
			r.Ended = last.Ended
		}
	}
	return r
}

// Runs returns the runs of st, oldest first. A store opened read-only is
// not written to, so CloseAbandoned has not run on it; but no review is
// writing to it either (a reader shares the store only with readers), so
// a run still recorded as running is shown as CloseAbandoned will record it.
// A snapshot of a store a review holds (toolmem.Store.Snapshot) is the
// exception: the review that holds it closed the abandoned runs as it
// opened it, and its own run is running.
func Runs(st *toolmem.Store, now time.Time) ([]toolmem.Run, error) {
	runs, err := st.Runs()
	if err != nil {
		return nil, err
	}
	if st.ReadOnly() && !st.Snapshot() {
		for i, r := range runs {
			if r.Status == toolmem.StatusRunning {
				runs[i] = abandoned(st, r, now)
			}
		}
	}
	return runs, nil
}

// Lane is the steps of one unit of a review in units run side by side,
// in order, and when the first started and the last ended.
type Lane struct {
	Unit       int
	Steps      []Step
	Start, End time.Time
}

// Lanes are the lanes of a run whose units ran side by side, by unit;
// none for a run made in sequence.
func Lanes(r *Replay) []Lane {
	var lanes []Lane
	index := map[int]int{}
	for _, s := range r.Steps {
		if s.Unit == 0 {
			continue
		}
		i, ok := index[s.Unit]
		if !ok {
			i = len(lanes)
			index[s.Unit] = i
			lanes = append(lanes, Lane{Unit: s.Unit, Start: s.Started})
		}
		l := &lanes[i]
		l.Steps = append(l.Steps, s)
		if !s.Started.IsZero() && (l.Start.IsZero() || s.Started.Before(l.Start)) {
			l.Start = s.Started
		}
		end := s.Ended
		if end.IsZero() {
			end = s.Started
		}
		if end.After(l.End) {
			l.End = end
		}
	}
	slices.SortFunc(lanes, func(a, b Lane) int { return a.Unit - b.Unit })
	return lanes
}
