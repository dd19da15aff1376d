package toolmem

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSnapshotWhileWriting reads a store while another process writes to it
// as fast as it can (outputs up to half a megabyte, in the value log;
// memtables written as tables; tables merged): each read sees every output
// and step the writer had committed before it, whole, and nothing
// damaged, and leaves no copy behind. Writers are still kept out.
func TestSnapshotWhileWriting(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	_, _, out := child(t, "write", dir)
	reported := map[string]string{} // "output <ref>" or "step <n>" -> sha256
	next := func(n int) {
		for i := 0; i < n && out.Scan(); i++ {
			f := strings.Fields(out.Text())
			if len(f) != 3 {
				t.Fatalf("child said %q", out.Text())
			}
			reported[f[0]+" "+f[1]] = f[2]
		}
	}
	copies := 0
	copied = func() { copies++ }
	defer func() { copied = func() {} }()
	for round := range 6 {
		next(15)
		s, err := Open(dir, Options{ReadOnly: true, Snapshot: true, Warn: func(err error) { t.Errorf("warning: %v", err) }})
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if !s.Snapshot() || !s.ReadOnly() || s.Dir() != dir {
			t.Fatalf("Snapshot = %v, ReadOnly = %v, Dir = %s", s.Snapshot(), s.ReadOnly(), s.Dir())
		}
		copied := s.copy
		for what, sum := range reported {
			kind, id, _ := strings.Cut(what, " ")
			var data []byte
			if kind == "output" {
				data, err = s.Get(id)
			} else {
				var steps []Step
				steps, err = s.Steps("run")
				for _, st := range steps {
					if fmt.Sprint(st.N) == id {
						data = st.Request
					}
				}
			}
			if err != nil {
				t.Fatalf("round %d: %s: %v", round, what, err)
			}
			if got := fmt.Sprintf("%x", sha256.Sum256(data)); got != sum {
				t.Fatalf("round %d: %s reads back %d bytes that differ", round, what, len(data))
			}
		}
		rep, err := s.Verify()
		if err != nil || len(rep.Problems) > 0 {
			t.Fatalf("round %d: Verify = %+v, %v", round, rep.Problems, err)
		}
		if _, err := s.Put("run", 1, "c", "t", "", nil); err == nil {
			t.Fatal("Put on a snapshot succeeded")
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(copied); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the copy %s is left after Close: %v", copied, err)
		}
	}
	t.Logf("6 reads took %d copies", copies)
	if _, err := Open(dir, Options{LockWait: -1}); !errors.Is(err, ErrLocked) {
		t.Fatalf("a writer while another writes: %v, want ErrLocked", err)
	}
	if _, err := Open(dir, Options{ReadOnly: true, LockWait: -1}); !errors.Is(err, ErrLocked) {
		t.Fatalf("a reader without Snapshot: %v, want ErrLocked", err)
	}
}

// TestSnapshotChangesNothing reads a held store through a snapshot: its
// running run is there, running, and not a byte of the store changes.
func TestSnapshotChangesNothing(t *testing.T) {
	dir := sampleStore(t)
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.PutRun(Run{ID: "now", Status: StatusRunning, Started: time.Unix(5000, 0)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put("now", 1, "call", "t", "{}", randomBytes(7, sampleOutput)); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	r, err := Open(dir, Options{ReadOnly: true, Snapshot: true})
	if err != nil {
		t.Fatal(err)
	}
	runs, err := r.Runs()
	if err != nil || len(runs) != 5 {
		t.Fatalf("Runs = %d, %v", len(runs), err)
	}
	if running, err := r.Running(); err != nil || len(running) != 1 || running[0].ID != "now" {
		t.Fatalf("Running = %+v, %v", running, err)
	}
	if outs, err := r.List("now"); err != nil || len(outs) != 1 {
		t.Fatalf("List(now) = %d, %v", len(outs), err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if after := snapshot(t, dir); after != before {
		t.Fatalf("reading a snapshot changed the store:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestSnapshotStoreChanged changes a held store while it is copied, as a
// writer would: a change appended to its MANIFEST (a memtable written as a
// table, tables merged), a value log cut (gc deletes one by cutting it to
// nothing first).
// The copy is taken again, and a writer that changes the store during
// every copy is reported as holding it.
func TestSnapshotStoreChanged(t *testing.T) {
	dir := sampleStore(t)
	reopen(t, dir, 1) // 000001.vlog holds values, 000002 is the newest
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	manifest, vlog := filepath.Join(dir, "MANIFEST"), filepath.Join(dir, "000001.vlog")
	saved := map[string][]byte{}
	for _, path := range []string{manifest, vlog} {
		if saved[path], err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	}
	restore := func() {
		for path, data := range saved {
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range []struct {
		name string
		// change makes the store differ from what was just copied.
		change func(t *testing.T)
	}{
		{"MANIFEST appended to", func(t *testing.T) {
			f, err := os.OpenFile(manifest, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.Write([]byte{0}); err != nil {
				t.Fatal(err)
			}
		}},
		{"value log cut", func(t *testing.T) {
			info, err := os.Stat(vlog)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(vlog, info.Size()/2); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer restore()
			defer func() { copied = func() {} }()

			// Once: the second copy is read.
			n := 0
			copied = func() {
				if n++; n == 1 {
					tc.change(t)
				}
			}
			r, err := Open(dir, Options{ReadOnly: true, Snapshot: true})
			if err != nil {
				t.Fatal(err)
			}
			if runs, err := r.Runs(); err != nil || len(runs) != 4 || n != 2 {
				t.Fatalf("Runs = %d, %v after %d copies", len(runs), err, n)
			}
			r.Close()
			restore()

			// Every time: the store is reported held.
			copied = func() { tc.change(t) }
			_, err = Open(dir, Options{ReadOnly: true, Snapshot: true})
			var le *LockedError
			if !errors.As(err, &le) || le.Dir != dir {
				t.Fatalf("Open while every copy changed: %v, want a *LockedError", err)
			}
		})
	}
}
