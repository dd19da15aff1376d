package record

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reviewdev/review/tools/toolstest"

	"github.com/reviewdev/review/toolmem"
)

func openTest(t testing.TB) *toolmem.Store { return toolstest.Store(t) }

// randomBytes returns n bytes that are the same for the same seed.
func randomBytes(seed uint64, n int) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8)})
	_, _ = r.Read(b)
	return b
}

// storedRequests sums the requests of run as the store holds them.
func storedRequests(t *testing.T, s *toolmem.Store, run string) int {
	t.Helper()
	steps, err := s.Steps(run)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, st := range steps {
		n += len(st.Request)
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
	w := NewWriter(s, "run")
	const steps = 40
	whole := 0
	for n := 1; n <= steps; n++ {
		st := toolmem.Step{Run: "run", N: n, Turn: 1, Request: loopRequest(n), Started: time.Unix(int64(n), 0).UTC()}
		if err := w.Step(st); err != nil {
			t.Fatal(err)
		}
		st.Response = []byte(fmt.Sprintf(`{"id":"r%d"}`, n))
		st.Refs = []string{fmt.Sprintf("ref%d", n)}
		for range 2 {
			if err := w.Step(st); err != nil {
				t.Fatal(err)
			}
		}
		whole += len(st.Request)
	}
	stored := storedRequests(t, s, "run")
	t.Logf("%d requests of %d bytes in all take %d bytes stored", steps, whole, stored)
	// The first request whole, then about 530 bytes a step (the other
	// bodies, a few bytes each, are not counted).
	if limit := len(loopRequest(1)) + steps*800; stored > limit {
		t.Errorf("requests of %d bytes take %d stored, over %d", whole, stored, limit)
	}
	changed := append(loopRequest(steps), ' ')
	if err := w.Step(toolmem.Step{Run: "run", N: steps, Request: changed}); err != nil {
		t.Fatal(err)
	}
	if err := w.Step(toolmem.Step{Run: "run", N: steps + 1}); err != nil {
		t.Fatal(err)
	}
	got, err := Steps(s, "run")
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
	w := NewWriter(s, "fuzz")
	r := rand.New(rand.NewPCG(1, 2))
	var want [][]byte
	prev := []byte{}
	for n := 1; n <= 80; n++ {
		pre := r.IntN(len(prev) + 1)
		suf := r.IntN(len(prev) - pre + 1)
		body := append(append(append([]byte{}, prev[:pre]...), randomBytes(uint64(n), r.IntN(3000))...), prev[len(prev)-suf:]...)
		if err := w.Step(toolmem.Step{Run: "fuzz", N: n, Request: body}); err != nil {
			t.Fatal(err)
		}
		want = append(want, body)
		prev = body
	}
	got, err := Steps(s, "fuzz")
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if !bytes.Equal(got[i].Request, want[i]) {
			t.Fatalf("request %d read back otherwise than written", i+1)
		}
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

// TestStepRequestsAsDeltas stores a loop's growing requests, each against
// the one before, and reads every one back byte for byte, also after the
// store is reopened and a step is added by another process.
func TestStepRequestsAsDeltas(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s, err := toolmem.Open(dir, toolmem.Options{})
	if err != nil {
		t.Fatal(err)
	}
	run := "20260101-000000-abcdef"
	body := `{"model":"m","messages":[` + strings.Repeat(`{"role":"user","content":"some earlier message"},`, 40)
	var want [][]byte
	w := NewWriter(s, run)
	put := func(w *Writer, n int) {
		body += fmt.Sprintf(`{"role":"tool","content":"output %d"},`, n)
		req := []byte(body + `{"role":"user","content":"go on"}],"tools":[{"type":"function"}]}`)
		want = append(want, req)
		// Twice, as a review records a step: as sent, then with its answer.
		for range 2 {
			if err := w.Step(toolmem.Step{Run: run, N: n, Request: req, Response: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for n := 1; n <= 10; n++ {
		put(w, n)
	}
	// Each step was written twice, as a review writes it: the second write
	// must not store its request whole again.
	whole := 0
	for _, w := range want {
		whole += len(w)
	}
	if stored := storedRequests(t, s, run); stored > whole/3 {
		t.Errorf("requests of %d bytes take %d stored: not stored as their changes", whole, stored)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = toolmem.Open(dir, toolmem.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	put(NewWriter(s, run), 11)
	steps, err := Steps(s, run)
	if err != nil || len(steps) != 11 {
		t.Fatalf("%d steps, %v", len(steps), err)
	}
	for i, st := range steps {
		if !bytes.Equal(st.Request, want[i]) {
			t.Errorf("step %d: request read back differs (%d bytes, want %d)", i+1, len(st.Request), len(want[i]))
		}
	}
	if _, err := undelta([]byte(deltaMagic+"\x05\x10rest"), map[int][]byte{}); err == nil {
		t.Error("a delta against a missing step was accepted")
	}
}
