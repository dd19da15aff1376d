package toolmem

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

func TestNewRunID(t *testing.T) {
	now := time.Date(2026, 11, 22, 15, 30, 12, 0, time.FixedZone("CET", 3600))
	id := NewRunID(now)
	if !regexp.MustCompile(`^20261122-143012-[a-z2-7]{6}$`).MatchString(id) {
		t.Fatalf("NewRunID = %q, want UTC time and six base32 characters", id)
	}
	if err := checkRunID(id); err != nil {
		t.Fatal(err)
	}
	later := NewRunID(now.Add(time.Second))
	if later <= id {
		t.Fatalf("%q does not sort after %q", later, id)
	}
	if a, b := NewRunID(now), NewRunID(now); a == b {
		t.Fatal("two IDs in the same second are equal")
	}
}

func TestRuns(t *testing.T) {
	s := openTest(t)
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	settings := json.RawMessage("{\n  \"model\": \"x\",  \"html\": \"<a&b>\"\n}")
	runs := []Run{
		{ID: "run-c", Status: StatusRunning, Started: base.Add(2 * time.Hour), Settings: settings},
		{ID: "run-a", Status: StatusComplete, Started: base.Add(1 * time.Hour), Repo: "/r", Base: "main", Head: "HEAD",
			BaseSHA: "abc", HeadSHA: "def", Model: "gpt", Usage: json.RawMessage(`{"tokens":1}`), Ended: base.Add(3 * time.Hour)},
		{ID: "run-b", Status: StatusFailed, Started: base, Error: "model said no"},
	}
	for _, r := range runs {
		if err := s.PutRun(r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Runs()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range got {
		ids = append(ids, r.ID)
	}
	if fmt.Sprint(ids) != "[run-b run-a run-c]" {
		t.Fatalf("Runs = %v, want oldest first", ids)
	}
	for _, want := range runs {
		r, err := s.Run(want.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !equalRuns(r, want) {
			t.Fatalf("Run(%s) = %+v, want %+v", want.ID, r, want)
		}
	}
	c, _ := s.Run("run-c")
	if !bytes.Equal(c.Settings, settings) || c.Usage != nil {
		t.Fatalf("settings not verbatim: %q, usage %q", c.Settings, c.Usage)
	}

	// A run record is rewritten as the run ends.
	c.Status, c.Ended = StatusInterrupted, base.Add(4*time.Hour)
	if err := s.PutRun(c); err != nil {
		t.Fatal(err)
	}
	if r, _ := s.Run("run-c"); r.Status != StatusInterrupted || !r.Ended.Equal(c.Ended) {
		t.Fatalf("after update: %+v", r)
	}

	for _, bad := range []Run{{ID: "", Status: StatusRunning}, {ID: "a/b", Status: StatusRunning},
		{ID: strings.Repeat("x", 65), Status: StatusRunning}, {ID: "ok", Status: "done"}} {
		if err := s.PutRun(bad); err == nil {
			t.Errorf("PutRun(%q, %q) accepted", bad.ID, bad.Status)
		}
	}
}

func equalRuns(a, b Run) bool {
	return a.ID == b.ID && a.Repo == b.Repo && a.Base == b.Base && a.Head == b.Head && a.BaseSHA == b.BaseSHA &&
		a.HeadSHA == b.HeadSHA && a.Model == b.Model && a.Status == b.Status && bytes.Equal(a.Settings, b.Settings) &&
		bytes.Equal(a.Usage, b.Usage) && a.Error == b.Error && a.Started.Equal(b.Started) && a.Ended.Equal(b.Ended)
}

func TestRunPrefix(t *testing.T) {
	s := openTest(t)
	for _, id := range []string{"20261122-153012-aaaaaa", "20261122-153012-bbbbbb", "20261123-090000-cccccc", "20261124", "20261124-1"} {
		if err := s.PutRun(Run{ID: id, Status: StatusComplete}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		prefix, want, err string
		notFound          bool
	}{
		{prefix: "20261122-153012-aaaaaa", want: "20261122-153012-aaaaaa"},
		{prefix: "20261123", want: "20261123-090000-cccccc"},
		{prefix: "20261122-153012-b", want: "20261122-153012-bbbbbb"},
		{prefix: " 20261123 ", want: "20261123-090000-cccccc"},
		{prefix: "20261124", want: "20261124"}, // an exact ID wins over longer ones
		{prefix: "20261122", err: `run ID prefix "20261122" is ambiguous: it matches 20261122-153012-aaaaaa, 20261122-153012-bbbbbb; give more of the ID`},
		{prefix: "2026", err: "and 2 more"},
		{prefix: "2027", notFound: true},
		{prefix: "", notFound: true},
		{prefix: "r/x", notFound: true},
	}
	for _, tt := range tests {
		r, err := s.Run(tt.prefix)
		switch {
		case tt.notFound:
			if !errors.Is(err, ErrNotFound) {
				t.Errorf("Run(%q) = %v, want ErrNotFound", tt.prefix, err)
			}
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) || errors.Is(err, ErrNotFound) {
				t.Errorf("Run(%q) = %v, want an error containing %q", tt.prefix, err, tt.err)
			}
		case err != nil || r.ID != tt.want:
			t.Errorf("Run(%q) = %q, %v; want %q", tt.prefix, r.ID, err, tt.want)
		}
	}
}

func TestSteps(t *testing.T) {
	s := openTest(t)
	// Request bodies are stored exactly as sent: whitespace, HTML
	// characters, invalid JSON, several chunks.
	big := json.RawMessage(`{"messages": [` + strings.Repeat(`{"role": "user", "content": "<a&b>  "}, `, 60000) + `{}]}`)
	odd := json.RawMessage("{ \"x\" :\n 1 }\n")
	// Written out of order, with numbers whose bytes sort differently
	// as text ("10" < "2").
	for _, n := range []int{10, 2, 1, 300, 0} {
		req := odd
		if n == 2 {
			req = big
		}
		if err := s.PutStep(Step{Run: "run", N: n, Turn: 1, Request: req, Started: time.Unix(int64(n), 0).UTC()}); err != nil {
			t.Fatal(err)
		}
	}
	// The response arrives later: the step is written again, whole.
	if err := s.PutStep(Step{Run: "run", N: 2, Turn: 1, Request: big, Response: json.RawMessage(`{"ok":true}`),
		Refs: []string{"aaaaaaaaaa"}, Started: time.Unix(2, 0).UTC(), Ended: time.Unix(3, 0).UTC(), Error: "e"}); err != nil {
		t.Fatal(err)
	}
	// A step rewritten with a smaller request loses the old chunks.
	if err := s.PutStep(Step{Run: "run", N: 300, Request: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutStep(Step{Run: "other", N: 5, Request: odd}); err != nil {
		t.Fatal(err)
	}

	steps, err := s.Steps("run")
	if err != nil {
		t.Fatal(err)
	}
	var ns []int
	for _, st := range steps {
		ns = append(ns, st.N)
		if st.Run != "run" {
			t.Errorf("step %d has run %q", st.N, st.Run)
		}
	}
	if !slices.Equal(ns, []int{0, 1, 2, 10, 300}) {
		t.Fatalf("steps %v, want in numeric order", ns)
	}
	two := steps[2]
	if !bytes.Equal(two.Request, big) || string(two.Response) != `{"ok":true}` || two.Error != "e" ||
		!slices.Equal(two.Refs, []string{"aaaaaaaaaa"}) || two.Turn != 1 || !two.Ended.Equal(time.Unix(3, 0)) {
		t.Fatalf("step 2 = %+v", two)
	}
	if !bytes.Equal(steps[0].Request, odd) || steps[0].Response != nil {
		t.Fatalf("step 0: request %q, response %q", steps[0].Request, steps[0].Response)
	}
	if string(steps[4].Request) != `{}` {
		t.Fatalf("step 300 request %q", steps[4].Request)
	}
	if other, _ := s.Steps("other"); len(other) != 1 || other[0].N != 5 {
		t.Fatalf("Steps(other) = %+v", other)
	}
	if none, err := s.Steps("none"); err != nil || len(none) != 0 {
		t.Fatalf("Steps(none) = %v, %v", none, err)
	}
	if err := s.PutStep(Step{Run: "run", N: -1}); err == nil {
		t.Fatal("PutStep accepted a negative step")
	}
}

func TestEvents(t *testing.T) {
	s := openTest(t)
	var want []string
	for i := range 300 { // past 255, where a 1-byte order would wrap
		ev := fmt.Sprintf(`{"kind": "prune",  "i": %d}`, i)
		want = append(want, ev)
		if err := s.AddEvent("run", i/10, json.RawMessage(ev)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddEvent("run2", 0, json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	evs, err := s.Events("run")
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != len(want) {
		t.Fatalf("%d events, want %d", len(evs), len(want))
	}
	for i, ev := range evs {
		if ev.Run != "run" || ev.Seq != i+1 || ev.Step != i/10 || string(ev.Data) != want[i] {
			t.Fatalf("event %d = %+v", i, ev)
		}
	}

	// Concurrent events get distinct, gapless sequence numbers.
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.AddEvent("conc", 1, json.RawMessage(fmt.Sprint(i))); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	evs, err = s.Events("conc")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i, ev := range evs {
		if ev.Seq != i+1 {
			t.Fatalf("event %d has seq %d", i, ev.Seq)
		}
		seen[string(ev.Data)] = true
	}
	if len(seen) != 20 {
		t.Fatalf("%d distinct events, want 20", len(seen))
	}
}

func TestConversation(t *testing.T) {
	s := openTest(t)
	if _, err := s.Conversation("run"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Conversation of a new run: %v, want ErrNotFound", err)
	}
	long := json.RawMessage(`[` + strings.Repeat(`{"role":"tool","content":"x"},`, 100000) + `{}]`)
	short := json.RawMessage("[ ]\n")
	for _, conv := range []json.RawMessage{long, short} {
		if err := s.PutConversation("run", Conversation{Whole: conv}); err != nil {
			t.Fatal(err)
		}
		got, err := s.Conversation("run")
		if err != nil || !bytes.Equal(got.Whole, conv) || got.Parts != nil {
			t.Fatalf("Conversation = %.40q, %v; want %.40q", got.Whole, err, conv)
		}
	}
}

// TestRunning checks that the runs recorded as running are found from
// their marks, which follow each run's status; and that a store written
// before the marks is read whole once, then marked.
func TestRunning(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ids := func(runs []Run, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range runs {
			out = append(out, r.ID)
		}
		return strings.Join(out, " ")
	}
	put := func(id, status string, at int64) {
		t.Helper()
		if err := s.PutRun(Run{ID: id, Status: status, Started: time.Unix(at, 0), Settings: json.RawMessage(`{"x":1}`)}); err != nil {
			t.Fatal(err)
		}
	}
	put("b", StatusRunning, 2)
	put("a", StatusRunning, 1)
	put("c", StatusComplete, 3)
	if got := ids(s.Running()); got != "a b" {
		t.Errorf("running %q, want a b", got)
	}
	put("a", StatusInterrupted, 1)
	put("b", StatusRunning, 2) // written again after a step
	if got := ids(s.Running()); got != "b" {
		t.Errorf("running %q, want b", got)
	}

	// A store written before the marks: a running run without one.
	data, _ := json.Marshal(runRecord{ID: "old", Status: StatusRunning, Started: time.Unix(0, 0)})
	if err := s.update(func(txn *badger.Txn) error {
		if err := txn.Delete([]byte(nsRunning)); err != nil {
			return err
		}
		return txn.Set(runKey("old"), data)
	}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	ro, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // read whole each time: nothing is written
		if got := ids(ro.Running()); got != "old b" {
			t.Errorf("read-only: running %q, want old b", got)
		}
	}
	ro.Close()
	s, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := ids(s.Running()); got != "old b" {
		t.Errorf("first read: running %q, want old b", got)
	}
	marked := 0
	if err := s.view(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(nsRunning)})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			marked++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if marked != 3 { // u/, u/b/, u/old/
		t.Errorf("%d marks after the first read, want 3", marked)
	}
	if got := ids(s.Running()); got != "old b" {
		t.Errorf("from the marks: running %q, want old b", got)
	}
	if rep, err := s.Verify(); err != nil || len(rep.Problems) > 0 {
		t.Errorf("Verify: %+v, %v", rep, err)
	}
}

// TestConversationLargerThanATransaction stores a conversation whose
// parts take more than one Badger transaction holds, whole and then with
// every part changed, and reads it back byte for byte.
func TestConversationLargerThanATransaction(t *testing.T) {
	s := openTest(t)
	parts := make([][]byte, 300)
	for i := range parts {
		parts[i] = []byte(fmt.Sprintf(`{"id":"m%d","content":%q}`, i, strings.Repeat("x", 30000)))
	}
	check := func(c Conversation) {
		t.Helper()
		if err := s.PutConversation("run", c); err != nil {
			t.Fatal(err)
		}
		got, err := s.Conversation("run")
		if err != nil || len(got.Parts) != len(c.Parts) || got.Next != c.Next {
			t.Fatalf("read back %d parts, next %d, %v", len(got.Parts), got.Next, err)
		}
		for i := range got.Parts {
			if !bytes.Equal(got.Parts[i], c.Parts[i]) {
				t.Fatalf("part %d differs", i)
			}
		}
	}
	check(Conversation{Parts: parts, Next: 300})
	changed := make([]int, len(parts))
	for i := range parts {
		parts[i] = append(parts[i][:len(parts[i]):len(parts[i])], ' ')
		changed[i] = i
	}
	check(Conversation{Parts: parts, Next: 301, Changed: changed})
	check(Conversation{Parts: parts[:10], Next: 302})
}

// TestRunsReadSettingsInOnePass holds that Runs gives each run its own
// settings, read in one pass over them all, and leaves out, with a warning
// each, in order, a run whose settings are missing or damaged.
func TestRunsReadSettingsInOnePass(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	var warned []string
	s, err := Open(dir, Options{Warn: func(err error) { warned = append(warned, err.Error()) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	big := strings.Repeat("x", chunkSize+10) // two chunks
	for i, set := range []string{`{"a":1}`, "", `{"b":"` + big + `"}`, `{"c":3}`, `{"d":4}`} {
		r := Run{ID: fmt.Sprintf("run-%d", i), Status: StatusComplete, Started: time.Unix(int64(1000+i), 0)}
		if set != "" {
			r.Settings = json.RawMessage(set)
		}
		if err := s.PutRun(r); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := s.Runs()
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 5 || string(runs[0].Settings) != `{"a":1}` || runs[1].Settings != nil || len(runs[2].Settings) != len(big)+8 || string(runs[4].Settings) != `{"d":4}` {
		t.Fatalf("runs: %d, settings %.20q %.20q %d", len(runs), runs[0].Settings, runs[1].Settings, len(runs[2].Settings))
	}
	// Damage: run-3's settings lose their chunk, run-4's their header
	// and chunk.
	err = s.update(func(txn *badger.Txn) error {
		if err := txn.Delete(key(string(settingsPrefix("run-3")), be32(0))); err != nil {
			return err
		}
		return deletePrefix(txn, settingsPrefix("run-4"))
	})
	if err != nil {
		t.Fatal(err)
	}
	runs, err = s.Runs()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.ID)
	}
	if strings.Join(ids, " ") != "run-0 run-1 run-2" {
		t.Fatalf("runs %v, want run-0 to run-2", ids)
	}
	if len(warned) != 2 || !strings.Contains(warned[0], "run-3") || !strings.Contains(warned[0], "only 0 of its 7 bytes") ||
		!strings.Contains(warned[1], "run-4") || !strings.Contains(warned[1], "missing") {
		t.Fatalf("warnings: %q", warned)
	}
}

// TestRunHeadsNewest: the runs newest first, without their settings, as far
// as the reader goes; such a run cannot be written back.
func TestRunHeadsNewest(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "store"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 5 {
		start := time.Date(2026, 12, 4, 10, i, 0, 0, time.UTC)
		r := Run{ID: NewRunID(start), Status: StatusComplete, Started: start, Settings: json.RawMessage(`{"n":1}`), Costs: json.RawMessage(`{"c":1}`)}
		if err := s.PutRun(r); err != nil {
			t.Fatal(err)
		}
	}
	var seen []Run
	err = s.RunHeadsNewest(func(r Run) bool {
		seen = append(seen, r)
		return len(seen) < 3
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 3 {
		t.Fatalf("read %d runs, want the 3 the reader asked for", len(seen))
	}
	for i, r := range seen {
		if r.Started.Minute() != 4-i || r.Settings != nil || string(r.Costs) != `{"c":1}` {
			t.Errorf("run %d: started %v, settings %s, costs %s", i, r.Started, r.Settings, r.Costs)
		}
	}
	if err := s.PutRun(seen[0]); err == nil || !strings.Contains(err.Error(), "read without its settings") {
		t.Fatalf("writing back a run read without its settings: %v", err)
	}
}
