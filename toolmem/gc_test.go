package toolmem

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

func TestGC(t *testing.T) {
	s := openTest(t)
	now := time.Now()
	old := Run{ID: "old", Status: StatusComplete, Started: now.Add(-48 * time.Hour)}
	recent := Run{ID: "recent", Status: StatusRunning, Started: now.Add(-time.Hour)}
	for _, r := range []Run{old, recent} {
		if err := s.PutRun(r); err != nil {
			t.Fatal(err)
		}
	}
	big := randomBytes(7, 20<<20)
	oldBig, err := s.Put("old", 1, "c1", "t", "", big)
	if err != nil {
		t.Fatal(err)
	}
	oldSmall, err := s.Put("old", 1, "c2", "t", "", []byte("small\n"))
	if err != nil {
		t.Fatal(err)
	}
	keep := randomBytes(8, 2<<20)
	kept, err := s.Put("recent", 1, "c1", "t", "", keep)
	if err != nil {
		t.Fatal(err)
	}
	orphan, err := s.Put("unrecorded", 1, "c1", "t", "", []byte("orphan\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []string{"old", "recent"} {
		if err := s.PutStep(Step{Run: run, N: 1, Request: json.RawMessage(`{}`)}); err != nil {
			t.Fatal(err)
		}
		if err := s.AddEvent(run, 1, json.RawMessage(`{}`)); err != nil {
			t.Fatal(err)
		}
		if err := s.PutConversation(run, Conversation{Whole: []byte(`[]`)}); err != nil {
			t.Fatal(err)
		}
	}

	st, err := s.GC(now.Add(-24 * time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if st.Runs != 1 || st.Outputs != 2 {
		t.Errorf("GC dropped %d runs and %d outputs, want 1 and 2", st.Runs, st.Outputs)
	}
	if st.BytesBefore-st.BytesAfter < int64(len(big))*9/10 {
		t.Errorf("GC took the store from %d to %d bytes on disk, want at least %d less", st.BytesBefore, st.BytesAfter, len(big)*9/10)
	}
	if now, _ := diskUsage(s.Dir()); now != st.BytesAfter {
		t.Errorf("BytesAfter %d, but the store takes %d", st.BytesAfter, now)
	}

	// The old run is gone, whole.
	for _, ref := range []string{oldBig, oldSmall} {
		if _, err := s.Get(ref); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(%s) after GC: %v, want ErrNotFound", ref, err)
		}
	}
	if _, err := s.Run("old"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Run(old) after GC: %v", err)
	}
	if steps, _ := s.Steps("old"); len(steps) != 0 {
		t.Errorf("old steps survived GC: %v", steps)
	}
	if evs, _ := s.Events("old"); len(evs) != 0 {
		t.Errorf("old events survived GC: %v", evs)
	}
	if _, err := s.Conversation("old"); !errors.Is(err, ErrNotFound) {
		t.Errorf("old conversation survived GC: %v", err)
	}
	if outs, _ := s.List("old"); len(outs) != 0 {
		t.Errorf("old outputs still listed: %v", outs)
	}

	// The recent run and the young orphan are intact.
	if got, err := s.Get(kept); err != nil || !bytes.Equal(got, keep) {
		t.Errorf("kept output: %d bytes, %v", len(got), err)
	}
	if _, err := s.Get(orphan); err != nil {
		t.Errorf("young output of an unrecorded run: %v", err)
	}
	if steps, _ := s.Steps("recent"); len(steps) != 1 {
		t.Errorf("recent steps: %v", steps)
	}
	if evs, _ := s.Events("recent"); len(evs) != 1 {
		t.Errorf("recent events: %v", evs)
	}
	if _, err := s.Conversation("recent"); err != nil {
		t.Errorf("recent conversation: %v", err)
	}

	// Later, everything goes, the orphan too.
	st, err = s.GC(now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if st.Runs != 1 || st.Outputs != 2 {
		t.Errorf("second GC dropped %d runs and %d outputs, want 1 and 2", st.Runs, st.Outputs)
	}
	if outs, _ := s.List(""); len(outs) != 0 {
		t.Errorf("outputs left: %v", outs)
	}
	if runs, _ := s.Runs(); len(runs) != 0 {
		t.Errorf("runs left: %v", runs)
	}
}

// TestGCAfterReopen is GC as a command runs it: in a process of its own,
// on a store written by earlier ones.
func TestGCAfterReopen(t *testing.T) {
	dir := t.TempDir() + "/store"
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutRun(Run{ID: "old", Status: StatusComplete, Started: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		if _, err := s.Put("old", i, "c", "t", "", randomBytes(uint64(i), 3<<20)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.GC(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if st.Runs != 1 || st.Outputs != 8 || st.BytesAfter > st.BytesBefore-20<<20 {
		t.Fatalf("GC after reopening: %+v, want 1 run, 8 outputs and 20 MiB less", st)
	}
}
