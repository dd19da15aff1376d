package review

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/reviewdev/review/review/reviewtest"
)

// TestRequestEventsNameWhatIsAdded checks that a loop's request events
// name only the messages they add to the request before, and replay puts
// the shared ones back, so each step's event names every message of its
// request, in order.
func TestRequestEventsNameWhatIsAdded(t *testing.T) {
	srv := reviewtest.Serve(t, `[
	  {"tool_calls": [{"name": "list_project_files", "arguments": {}}]},
	  {"tool_calls": [{"name": "read_file_hunk", "arguments": {"path": "a.go", "start_line": 1, "end_line": 5}}]},
	  {"tool_calls": [{"name": "submit_review", "arguments": {"summary": "Fine.", "findings": []}}]}]`)
	s := newSession(t, smallRepo(t), newTestClient(srv.URL), nil)
	if _, err := s.Review(context.Background()); err != nil {
		t.Fatal(err)
	}
	type event struct {
		Kind     string            `json:"kind"`
		Same     int               `json:"same"`
		Messages []json.RawMessage `json:"messages"`
	}
	evs, err := s.Store.Events(s.Run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var stored []event
	for _, e := range evs {
		var ev event
		if json.Unmarshal(e.Data, &ev) == nil && ev.Kind == "request" {
			stored = append(stored, ev)
		}
	}
	if len(stored) != 3 || stored[0].Same != 0 || stored[1].Same != len(stored[0].Messages) || len(stored[2].Messages) != 2 {
		t.Fatalf("request events %+v; want the later ones to name only the two messages each step adds", stored)
	}
	r, err := LoadReplay(s.Store, s.Run.ID)
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	for i, st := range r.Steps {
		var req struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(reqs[i].Body, &req); err != nil {
			t.Fatal(err)
		}
		var ev event
		for _, raw := range st.Events {
			if json.Unmarshal(raw, &ev) == nil && ev.Kind == "request" {
				break
			}
		}
		if ev.Same != 0 || len(ev.Messages) != len(req.Messages) {
			t.Errorf("step %d: replay's request event names %d messages (same %d); the request has %d", st.N, len(ev.Messages), ev.Same, len(req.Messages))
		}
	}
}
