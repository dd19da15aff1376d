package toolmem

import (
	"bytes"
	"encoding/json"
	"fmt"
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
