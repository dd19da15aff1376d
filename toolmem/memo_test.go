package toolmem

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// storedBytes sums the values the store holds under prefix.
func storedBytes(t *testing.T, s *Store, prefix []byte) int {
	t.Helper()
	n := 0
	if err := s.view(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		defer it.Close()
		for it.Seek(prefix); it.Valid(); it.Next() {
			n += int(it.Item().ValueSize())
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

// loopRequest is the body of request n of a tool loop: the messages of
// request n-1 and one more, then the tool definitions, as a body has them.
func loopRequest(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"model":"m","messages":[{"role":"system","content":"` + strings.Repeat("static ", 2000) + `"}`)
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, `,{"role":"tool","content":"result %d %s"}`, i, strings.Repeat("x", 500))
	}
	b.WriteString(`],"tools":[` + strings.Repeat(`{"type":"function","function":{"name":"t"}},`, 100) + `{}],"tool_choice":"auto"}`)
	return []byte(b.String())
}

// TestRequestsStoredAsChanges checks that a loop's requests, each step
// written when sent and again when answered, are stored as what each adds
// (the end they share, the tool definitions, included), that a step written
// again with another request or none reads back as last written, and that
// every request reads back byte for byte.
func TestRequestsStoredAsChanges(t *testing.T) {
	s := openTest(t)
	const steps = 40
	whole := 0
	for n := 1; n <= steps; n++ {
		st := Step{Run: "run", N: n, Turn: 1, Request: loopRequest(n), Started: time.Unix(int64(n), 0).UTC()}
		if err := s.PutStep(st); err != nil {
			t.Fatal(err)
		}
		st.Response = []byte(fmt.Sprintf(`{"id":"r%d"}`, n))
		st.Refs = []string{fmt.Sprintf("ref%d", n)}
		for range 2 {
			if err := s.PutStep(st); err != nil {
				t.Fatal(err)
			}
		}
		whole += len(st.Request)
	}
	stored := storedBytes(t, s, stepsPrefix("run"))
	t.Logf("%d requests of %d bytes in all take %d bytes stored", steps, whole, stored)
	// The first request whole, then about 530 bytes a step.
	if limit := len(loopRequest(1)) + steps*800; stored > limit {
		t.Errorf("requests of %d bytes take %d stored, over %d", whole, stored, limit)
	}
	changed := append(loopRequest(steps), ' ')
	if err := s.PutStep(Step{Run: "run", N: steps, Request: changed}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutStep(Step{Run: "run", N: steps + 1}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Steps("run")
	if err != nil || len(got) != steps+1 {
		t.Fatalf("%d steps, %v", len(got), err)
	}
	for i, st := range got[:steps-1] {
		if !bytes.Equal(st.Request, loopRequest(i+1)) || string(st.Response) != fmt.Sprintf(`{"id":"r%d"}`, i+1) || st.Refs[0] != fmt.Sprintf("ref%d", i+1) {
			t.Fatalf("step %d read back otherwise than written", i+1)
		}
	}
	if !bytes.Equal(got[steps-1].Request, changed) || got[steps-1].Response != nil || got[steps].Request != nil {
		t.Errorf("steps written again do not read back as last written")
	}
	if rep, err := s.Verify(); err != nil || len(rep.Problems) > 0 {
		t.Errorf("Verify: %v, %+v", err, rep.Problems)
	}
}

// TestRequestDeltaFuzz writes random requests that share random starts
// and ends with the one before, and reads them back.
func TestRequestDeltaFuzz(t *testing.T) {
	s := openTest(t)
	r := rand.New(rand.NewPCG(1, 2))
	var want [][]byte
	prev := []byte{}
	for n := 1; n <= 80; n++ {
		pre := r.IntN(len(prev) + 1)
		suf := r.IntN(len(prev) - pre + 1)
		body := append(append(append([]byte{}, prev[:pre]...), randomBytes(uint64(n), r.IntN(3000))...), prev[len(prev)-suf:]...)
		if err := s.PutStep(Step{Run: "fuzz", N: n, Request: body}); err != nil {
			t.Fatal(err)
		}
		want = append(want, body)
		prev = body
	}
	got, err := s.Steps("fuzz")
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if !bytes.Equal(got[i].Request, want[i]) {
			t.Fatalf("request %d read back otherwise than written", i+1)
		}
	}
}

// TestSettingsApart checks that a run's settings are written when they
// change, not with every run record, and that GC drops them with the run.
func TestSettingsApart(t *testing.T) {
	s := openTest(t)
	settings := json.RawMessage(`{"units": "` + strings.Repeat("u", 100000) + `"}`)
	r := Run{ID: "run-s", Status: StatusRunning, Started: time.Unix(1, 0).UTC(), Settings: settings}
	for i := range 30 {
		r.Usage = json.RawMessage(fmt.Sprintf(`{"requests":%d}`, i))
		if err := s.PutRun(r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Run("run-s")
	if err != nil || !bytes.Equal(got.Settings, settings) || string(got.Usage) != `{"requests":29}` {
		t.Fatalf("Run = %+v, %v", got, err)
	}
	if runs, err := s.Runs(); err != nil || len(runs) != 1 || !bytes.Equal(runs[0].Settings, settings) {
		t.Fatalf("Runs = %v, %v", runs, err)
	}
	if n := storedBytes(t, s, runKey("run-s")); n > 1000 {
		t.Errorf("the run record holds %d bytes: the settings are in it", n)
	}
	r.Settings = nil
	if err := s.PutRun(r); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Run("run-s"); err != nil || got.Settings != nil {
		t.Fatalf("Run without settings = %+v, %v", got, err)
	}
	r.Settings = settings
	if err := s.PutRun(r); err != nil {
		t.Fatal(err)
	}
	if rep, err := s.Verify(); err != nil || len(rep.Problems) > 0 {
		t.Errorf("Verify: %v, %+v", err, rep.Problems)
	}
	if _, err := s.GC(time.Now()); err != nil {
		t.Fatal(err)
	}
	if n := storedBytes(t, s, settingsPrefix("run-s")); n != 0 {
		t.Errorf("GC left %d bytes of settings", n)
	}
}

// TestUndeltaForms reads both delta forms: the shared start alone, as
// earlier versions stored it, and the shared start and end.
func TestUndeltaForms(t *testing.T) {
	earlier := map[int][]byte{1: []byte("abcdefgh")}
	for _, c := range []struct{ data, want string }{
		{deltaMagic1 + "\x01\x03XY", "abcXY"},
		{deltaMagic + "\x01\x03\x02XY", "abcXYgh"},
		{`{"plain":1}`, `{"plain":1}`},
	} {
		got, err := undelta([]byte(c.data), earlier)
		if err != nil || string(got) != c.want {
			t.Errorf("undelta(%q) = %q, %v; want %q", c.data, got, err, c.want)
		}
	}
	for _, bad := range []string{deltaMagic + "\x01\x07\x05", deltaMagic + "\x02\x01\x01", deltaMagic + "\x01"} {
		if _, err := undelta([]byte(bad), earlier); err == nil {
			t.Errorf("undelta(%q) accepted", bad)
		}
	}
}
