package review

import (
	"context"
	"testing"

	"github.com/reviewdev/review/review/llm/wire"
	"github.com/reviewdev/review/review/record"
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
	evs, err := s.Store.Events(s.Run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var stored []record.Request
	for _, e := range evs {
		if ev, err := record.Decode(e.Data); err == nil && ev.Kind() == record.KindRequest {
			stored = append(stored, ev.(record.Request))
		}
	}
	if len(stored) != 3 || stored[0].Same != 0 || stored[1].Same != len(stored[0].Messages) || len(stored[2].Messages) != 2 {
		t.Fatalf("request events %+v; want the later ones to name only the two messages each step adds", stored)
	}
	r, err := record.Load(s.Store, s.Run.ID)
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	for i, st := range r.Steps {
		req, err := wire.DecodeRequest(reqs[i].Body)
		if err != nil {
			t.Fatal(err)
		}
		var ev record.Request
		for _, raw := range st.Events {
			if e, err := record.Decode(raw); err == nil && e.Kind() == record.KindRequest {
				ev = e.(record.Request)
				break
			}
		}
		if ev.Same != 0 || len(ev.Messages) != len(req.Messages) {
			t.Errorf("step %d: replay's request event names %d messages (same %d); the request has %d", st.N, len(ev.Messages), ev.Same, len(req.Messages))
		}
	}
}
