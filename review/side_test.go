package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/review/llm/wire"
	"github.com/reviewdev/review/review/record"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/review/reviewtest"
	"github.com/reviewdev/review/toolmem"
)

// sideSession prepares a review of dir in units side by side, jobs at
// once, talking to srv.
func sideSession(tb testing.TB, dir string, jobs int, srv *reviewtest.Server) *Session {
	tb.Helper()
	return sideSessionBudget(tb, dir, jobs, srv, unitsBudget())
}

// sideSessionBudget is sideSession with budget b.
func sideSessionBudget(tb testing.TB, dir string, jobs int, srv *reviewtest.Server, b conversation.Budget) *Session {
	tb.Helper()
	s, _ := configSession(tb, dir, result.Config{Model: "gpt-4o", Budget: b, Jobs: jobs}, srv)
	return s
}

// explore is a scripted call of get_file_diff for path.
func explore(path string) reviewtest.Step {
	return reviewtest.Step{ToolCalls: []reviewtest.ScriptCall{{Name: toolname.GetFileDiff, Arguments: json.RawMessage(fmt.Sprintf(`{"path": %q}`, path))}}}
}

// call is a scripted call of tool with args.
func call(tool, args string) reviewtest.Step {
	return reviewtest.Step{ToolCalls: []reviewtest.ScriptCall{{Name: tool, Arguments: json.RawMessage(args)}}}
}

func when(k int, st reviewtest.Step) reviewtest.Step {
	st.When = fmt.Sprintf("This is unit %d of 3;", k)
	st.Delay = "50ms"
	return st
}

// Three units side by side: each explores (storing an output in the
// shared tool memory) and submits; unit 3 finds again what unit 1 found.
// The findings merge, every unit's first request is the static layer and
// its own prompt, the records keep each unit's requests in its lane, and
// the conversation a follow-up continues holds the three turns in order.
func TestReviewSideBySide(t *testing.T) {
	dir := unitsRepo(t)
	script := &reviewtest.Script{Steps: []reviewtest.Step{
		when(1, explore("alpha.go")), when(1, submit("Unit one.", finding("alpha.go", 3, "Alpha overflows"))),
		when(2, call(toolname.SearchInProject, `{"pattern": "delta", "path_glob": null, "max_results": null, "context_lines": null}`)),
		when(2, submit("Unit two.", finding("delta.go", 2, "Delta is off by one"))),
		when(3, call(toolname.ListProjectFiles, `{"path_prefix": null, "glob": null, "limit": null, "offset": null}`)),
		when(3, call(toolname.ReadFileHunk, `{"path": "gamma.go", "start_line": 1, "end_line": 40, "revision": null}`)),
		when(3, submit("Unit three.", finding("gamma.go", 4, "Gamma shadows"), finding("alpha.go", 3, "Alpha overflows"))),
	}}
	srv := reviewtest.NewServer(script, "")
	defer srv.Close()
	s := sideSession(t, dir, 3, srv)
	res, err := s.Review(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, f := range res.Findings {
		titles = append(titles, f.Title)
	}
	if len(titles) != 3 || !res.Submitted || len(res.NotReviewed) != 0 || len(res.FailedUnits) != 0 {
		t.Errorf("findings %q, submitted %v, not reviewed %v, failed %v", titles, res.Submitted, res.NotReviewed, res.FailedUnits)
	}
	if !strings.Contains(res.Summary, "Unit 1 of 3: Unit one.") || !strings.Contains(res.Summary, "Unit 3 of 3: Unit three.") {
		t.Errorf("summary %q", res.Summary)
	}
	reqs := srv.Requests()
	if len(reqs) != 7 || res.Usage.Requests != 7 {
		t.Fatalf("%d requests, usage %d; want 7", len(reqs), res.Usage.Requests)
	}
	var static string
	for _, r := range reqs {
		req, err := wire.DecodeRequest(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		prefix, _ := json.Marshal(req.Messages[:2])
		if static == "" {
			static = string(prefix)
		} else if string(prefix) != static {
			t.Errorf("request %d: its static layer differs from the first request's", r.N)
		}
		units := strings.Count(string(r.Body), "This is unit ")
		if units != 1 {
			t.Errorf("request %d carries %d unit prompts, want its own only", r.N, units)
		}
	}
	rep, err := record.Load(s.Store, s.Run.ID)
	if err != nil {
		t.Fatal(err)
	}
	lanes := record.Lanes(rep)
	if len(lanes) != 3 {
		t.Fatalf("%d lanes, want 3", len(lanes))
	}
	for _, l := range lanes {
		if len(l.Steps) != 2+l.Unit/3 || l.Steps[0].Turn != l.Unit {
			t.Errorf("unit %d: %d steps, turn %d", l.Unit, len(l.Steps), l.Steps[0].Turn)
		}
		// The second request of a unit extends its first, byte for byte.
		r0, err0 := wire.DecodeRequest(l.Steps[0].Request)
		r1, err1 := wire.DecodeRequest(l.Steps[1].Request)
		if err0 != nil || err1 != nil {
			t.Fatal(err0, err1)
		}
		m0, _ := json.Marshal(r0.Messages)
		m1, _ := json.Marshal(r1.Messages[:len(r0.Messages)])
		if string(m0) != string(m1) || len(r1.Messages) <= len(r0.Messages) {
			t.Errorf("unit %d: its second request does not extend its first", l.Unit)
		}
		for _, st := range l.Steps {
			if i := reqIndex(reqs, st.Request); i < 0 {
				t.Errorf("unit %d step %d: the recorded request is not one the server received", l.Unit, st.N)
			}
			// Its request event names every message it sent, those it
			// shares with its unit's request before included.
			req, _ := wire.DecodeRequest(st.Request)
			names := st.Names()
			if len(names) != len(req.Messages) || names[len(names)-1].Layer != conversation.Loop || names[0].Layer != conversation.Static {
				t.Errorf("unit %d step %d: %d messages named for %d sent: %+v", l.Unit, st.N, len(names), len(req.Messages), names)
			}
			// The unit's own hunks are diff context: its prompt is named
			// so, and its figures count it in the diff layer, not the loop.
			var fig record.StepFigures
			if len(names) < 3 || !names[2].Hunks || json.Unmarshal(st.Figures, &fig) != nil {
				t.Fatalf("unit %d step %d: the unit's prompt is not named as its hunks: %+v", l.Unit, st.N, names)
			}
			c, _ := record.RunCounter(s.Run)
			msgs := req.Conversation()
			static := c.CountMessage(msgs[1]) + c.CountMessage(msgs[2])
			if fig.Layers.Diff != static || fig.Layers.Total() != fig.Tokens {
				t.Errorf("unit %d step %d: diff layer %d, want the overview and the unit's hunks, %d", l.Unit, st.N, fig.Layers.Diff, static)
			}
		}
	}
	data, err := record.LoadConversation(s.Store, s.Run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var h conversation.History
	if err := json.Unmarshal(data, &h); err != nil {
		t.Fatal(err)
	}
	if h.Turns() != 3 || len(h.Turn(1)) != 5 || len(h.Turn(2)) != 5 || len(h.Turn(3)) != 7 {
		t.Errorf("the recorded conversation has %d turns, of %d, %d and %d messages", h.Turns(), len(h.Turn(1)), len(h.Turn(2)), len(h.Turn(3)))
	}
	last := 0
	for _, m := range h.Messages() {
		if m.Turn < last {
			t.Fatalf("the recorded conversation interleaves turns: %s of turn %d after turn %d", m.ID, m.Turn, last)
		}
		last = m.Turn
	}
}

func reqIndex(reqs []reviewtest.Received, body []byte) int {
	for i, r := range reqs {
		if string(r.Body) == string(body) {
			return i
		}
	}
	return -1
}

// A unit the server refuses fails alone: the others' findings are kept,
// and its files are not reviewed.
func TestReviewSideBySideFailure(t *testing.T) {
	dir := unitsRepo(t)
	refused := reviewtest.Step{Status: 400, Error: &reviewtest.ErrorBody{Message: "unit two refused", Type: "invalid_request_error"}}
	srv := reviewtest.NewServer(&reviewtest.Script{Steps: []reviewtest.Step{
		when(1, submit("One.", finding("alpha.go", 3, "Alpha overflows"))),
		when(2, refused),
		when(3, submit("Three.", finding("gamma.go", 4, "Gamma shadows"))),
		// Asked for, one more request writes the run's summary.
		{When: "made in units", Content: "Overall: alpha overflows, gamma shadows; delta.go was not reviewed."},
	}}, "")
	defer srv.Close()
	s := sideSession(t, dir, 2, srv)
	s.SummarizeUnits = true
	res, err := s.Review(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 2 || len(res.FailedUnits) != 1 || res.FailedUnits[0].Unit != 2 || !strings.Contains(res.FailedUnits[0].Error, "unit two refused") {
		t.Fatalf("findings %d, failed %+v", len(res.Findings), res.FailedUnits)
	}
	if len(res.NotReviewed) != 1 || res.NotReviewed[0].Path != "delta.go" || res.NotReviewed[0].Reason != result.ReasonUnitFailed {
		t.Errorf("not reviewed %+v", res.NotReviewed)
	}
	if res.Summary != "Overall: alpha overflows, gamma shadows; delta.go was not reviewed." {
		t.Errorf("summary %q", res.Summary)
	}
	last := srv.Requests()[len(srv.Requests())-1].Body
	if !strings.Contains(string(last), "Unit 2 failed and was not reviewed: delta.go") || !strings.Contains(string(last), "medium gamma.go:4 Gamma shadows") {
		t.Errorf("the summary request does not hold the units' results:\n%s", last)
	}
	if s.Run.Status != toolmem.StatusComplete {
		t.Errorf("run %s", s.Run.Status)
	}
}

// Cancelled, every unit under way stops, and the run is recorded as
// interrupted, naming them.
func TestReviewSideBySideInterrupted(t *testing.T) {
	dir := unitsRepo(t)
	slow := func(k int) reviewtest.Step {
		st := when(k, submit("late"))
		st.Delay = "30s"
		return st
	}
	srv := reviewtest.NewServer(&reviewtest.Script{Steps: []reviewtest.Step{slow(1), slow(2), slow(3)}}, "")
	defer srv.Close()
	s := sideSession(t, dir, 3, srv)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for len(srv.Requests()) < 3 {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	_, err := s.Review(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if s.Run.Status != toolmem.StatusInterrupted || s.Run.Error != "interrupted: units 1, 2, 3 under way" {
		t.Errorf("run %s: %q", s.Run.Status, s.Run.Error)
	}
}

// A provider whose window is smaller than the one planned for refuses
// every unit's first request: the review starts again in sequence, its
// first turn planned again for half the room, and completes.
func TestReviewSideBySideRefusedWindow(t *testing.T) {
	dir := scratchRepo(t, map[string]string{"alpha.go": funcs("alpha", 160), "beta.go": funcs("beta", 160), "gamma.go": funcs("gamma", 160)})
	b := unitsBudget()
	b.ContextWindow = 16000
	b.AnswerReserve = conversation.DefaultReserve(b.ContextWindow)
	b.HistoryTurns, b.HistoryChars = 1, 2000 // in sequence, the units after the first carry little
	probe := reviewtest.NewServer(&reviewtest.Script{Fallback: &reviewtest.Step{Status: 500, Error: &reviewtest.ErrorBody{Message: "probe"}}}, "")
	s := sideSessionBudget(t, dir, 3, probe, b)
	_, _ = s.Review(context.Background())
	probe.Close()
	smallest := 1 << 30
	for _, r := range probe.Requests() {
		smallest = min(smallest, len(r.Body)/4)
	}
	fb := submit("Reviewed.")
	srv := reviewtest.NewServer(&reviewtest.Script{Window: smallest - 20, Fallback: &fb}, "")
	defer srv.Close()
	s = sideSessionBudget(t, dir, 3, srv, b)
	res, err := s.Review(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !res.Submitted || len(res.FailedUnits) != 0 || s.Jobs != 1 {
		t.Errorf("submitted %v, failed %+v, jobs %d", res.Submitted, res.FailedUnits, s.Jobs)
	}
	rep, err := record.Load(s.Store, s.Run.ID)
	if err != nil {
		t.Fatal(err)
	}
	replanned := false
	for _, st := range rep.Steps {
		for _, e := range st.Events {
			replanned = replanned || strings.Contains(string(e), `"kind":"replan"`)
		}
	}
	if !replanned {
		t.Error("no replan event: the first turn was not planned again")
	}
}
