package review

import (
	"encoding/json"
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
}

// LoadReplay reads a run's records. id may be an unambiguous prefix.
func LoadReplay(st *toolmem.Store, id string) (*Replay, error) {
	run, err := st.Run(id)
	if err != nil {
		return nil, err
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
	for _, s := range steps {
		rs := ReplayStep{N: s.N, Turn: s.Turn, Request: s.Request, Response: s.Response, Error: s.Error,
			Started: s.Started, Ended: s.Ended, Events: []json.RawMessage{}}
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
