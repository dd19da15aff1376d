package record

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reviewdev/review/internal/egress"
	"github.com/reviewdev/review/toolmem"
)

// TestEgressLoads holds the egress event's form and that Load sums a
// run's egress events (those of the run and the command's after posting)
// into Replay.Egress, a secret counted once and its placeholder's digits
// never shown, and keeps them out of the steps' events. A run without
// egress events has none.
func TestEgressLoads(t *testing.T) {
	ev := Egress{egress.Record{Destinations: []egress.Destination{{Host: "api.openai.com", Path: "/v1/chat/completions", Requests: 1, Sent: 10, Received: 5}},
		Redactions: []egress.Redaction{{Rule: "github-pat", Secrets: 1, Requests: 1, IDs: []string{"1a2b"}}}}}
	form := `{"kind":"egress","destinations":[{"host":"api.openai.com","path":"/v1/chat/completions","requests":1,"bytes_sent":10,"bytes_received":5}],"redactions":[{"rule":"github-pat","secrets":1,"requests":1,"ids":["1a2b"]}]}`
	if got, err := Encode(ev); err != nil || string(got) != form {
		t.Fatalf("recorded as %s (%v), want %s", got, err, form)
	}
	if back, err := Decode([]byte(form)); err != nil || back.Kind() != KindEgress || back.(Egress).Destinations[0].Sent != 10 {
		t.Fatalf("decoded %#v, %v", back, err)
	}

	s, err := toolmem.Open(filepath.Join(t.TempDir(), "store"), toolmem.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run := "20260101-000000-abcdef"
	w := NewWriter(s, run)
	if err := w.Run(toolmem.Run{ID: run, Status: "complete", Started: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := w.Step(toolmem.Step{Run: run, N: 1, Request: []byte(`{}`), Response: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	r, err := Load(s, run)
	if err != nil || r.Egress != nil {
		t.Fatalf("a run without egress events: %+v, %v", r.Egress, err)
	}
	second := Egress{egress.Record{Destinations: []egress.Destination{
		{Host: "api.openai.com", Path: "/v1/chat/completions", Requests: 2, Sent: 20, Received: 7},
		{Host: "api.github.com", Path: "/repos/o/r/pulls/7/reviews", Requests: 1, Sent: 3},
	}, Redactions: []egress.Redaction{{Rule: "github-pat", Requests: 2}}}}
	for i, e := range []Event{ev, Stream{Events: 1}, second} {
		if err := w.Event(1+i/2, e); err != nil {
			t.Fatal(err)
		}
	}
	r, err = Load(s, run)
	if err != nil {
		t.Fatal(err)
	}
	want := egress.Record{Destinations: []egress.Destination{
		{Host: "api.openai.com", Path: "/v1/chat/completions", Requests: 3, Sent: 30, Received: 12},
		{Host: "api.github.com", Path: "/repos/o/r/pulls/7/reviews", Requests: 1, Sent: 3},
	}, Redactions: []egress.Redaction{{Rule: "github-pat", Secrets: 1, Requests: 3}}}
	got, _ := json.Marshal(r.Egress)
	if w, _ := json.Marshal(want); string(got) != string(w) {
		t.Errorf("egress = %s\nwant %s", got, w)
	}
	for _, e := range r.Steps[0].Events {
		if strings.Contains(string(e), `"egress"`) {
			t.Errorf("a step's events hold %s", e)
		}
	}
	if len(r.Steps[0].Events) != 1 {
		t.Errorf("step 1 events = %d, want the stream event", len(r.Steps[0].Events))
	}
}
