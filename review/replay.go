package review

import (
	"bytes"
	"encoding/json"
	"slices"
	"time"

	"github.com/reviewdev/review/toolmem"
)

// Replay is a recorded run: the run record and each step with the request
// exactly as sent, the response, and the events recorded before it.
type Replay struct {
	Run   toolmem.Run  `json:"run"`
	Steps []ReplayStep `json:"steps"`
}

// ReplayStep is one model request of a run.
type ReplayStep struct {
	N        int               `json:"n"`
	Turn     int               `json:"turn"`
	Request  json.RawMessage   `json:"request"`
	Response json.RawMessage   `json:"response"`
	Error    string            `json:"error,omitempty"`
	Events   []json.RawMessage `json:"events"`
	Started  time.Time         `json:"started"`
	Ended    time.Time         `json:"ended,omitzero"`
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
func (s ReplayStep) MarshalJSON() ([]byte, error) {
	type plain ReplayStep // without this method
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
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// LoadReplay reads a run's records. id may be an unambiguous prefix.
func LoadReplay(st *toolmem.Store, id string) (*Replay, error) {
	run, err := st.Run(id)
	if err != nil {
		return nil, err
	}
	if st.ReadOnly() && run.Status == StatusRunning {
		// As Runs shows it: see there.
		run = abandoned(st, run, time.Now())
	}
	steps, err := st.Steps(run.ID)
	if err != nil {
		return nil, err
	}
	events, err := st.Events(run.ID)
	if err != nil {
		return nil, err
	}
	r := &Replay{Run: run, Steps: []ReplayStep{}}
	var prev []json.RawMessage // the messages of the last request event
	for i, e := range events {
		events[i].Data, prev = expandRequest(e.Data, prev)
	}
	for _, s := range steps {
		rs := ReplayStep{N: s.N, Turn: s.Turn, Request: s.Request, Response: s.Response, Error: s.Error,
			Started: s.Started, Ended: s.Ended, Events: []json.RawMessage{}, Refs: s.Refs, Figures: s.Figures}
		for _, e := range events {
			if e.Step == s.N {
				rs.Events = append(rs.Events, e.Data)
			}
		}
		if len(rs.Request) == 0 {
			rs.Request = json.RawMessage("null")
		}
		if len(rs.Response) == 0 {
			rs.Response = json.RawMessage("null")
		}
		r.Steps = append(r.Steps, rs)
	}
	return r, nil
}

// expandRequest puts back the messages a request event shares with the
// request before it (prev), which it counts in "same" rather than naming
// them again (see Session.requestEvent). Other events are returned as they
// are; prev becomes the messages of data if it is a request event.
func expandRequest(data json.RawMessage, prev []json.RawMessage) (json.RawMessage, []json.RawMessage) {
	var ev struct {
		Kind     string            `json:"kind"`
		Same     int               `json:"same"`
		Messages []json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(data, &ev) != nil || ev.Kind != "request" {
		return data, prev
	}
	if ev.Same <= 0 || ev.Same > len(prev) {
		return data, ev.Messages
	}
	msgs := append(slices.Clip(prev[:ev.Same]), ev.Messages...)
	out, err := json.Marshal(struct {
		Kind     string            `json:"kind"`
		Messages []json.RawMessage `json:"messages"`
	}{ev.Kind, msgs})
	if err != nil {
		return data, msgs
	}
	return out, msgs
}

// StoredOutput is a stored tool output as a replay page shows it: its
// record, and its first bytes or, when it is small enough, all of them.
type StoredOutput struct {
	toolmem.Output
	Data  []byte
	Whole bool
}

// ReplayOutputs reads the outputs stored in run, oldest first: whole when
// they are at most whole bytes, else their first head bytes; while the
// outputs read whole add up to at most total bytes. A damaged output is
// left out: the page shows its record only where a step names it.
func ReplayOutputs(st *toolmem.Store, run string, head, whole, total int) ([]StoredOutput, error) {
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
