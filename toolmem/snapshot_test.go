package toolmem

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSnapshotWhileWriting reads a store while another process writes to it
// (outputs up to half a megabyte, in the value log; most of them smaller,
// in memtables written as tables; tables merged), at most writerSlack
// writes ahead of what the test has read of its reports: each read sees
// every output and step the writer had committed before it, whole, and
// nothing damaged, and leaves no copy behind. The reads go on until the
// writer has merged tables that an earlier read copied, so that reads
// are known to have met both a memtable written as a table and a merge.
// Writers are still kept out.
func TestSnapshotWhileWriting(t *testing.T) {
	// The writer runs this far ahead, so that it writes during every
	// read; as far as the pipe held (some 800 writes), it wrote for
	// minutes under the race detector.
	const writerSlack = 40
	// A read every this many reports; the reads go on past six until
	// tables an earlier read copied are merged, and give up after
	// maxRounds (some 6,000 writes; the tables are merged within 500).
	const perRound, minRounds, maxRounds = 60, 6, 100
	dir := filepath.Join(t.TempDir(), "store")
	// The writer's Badger merges level 0 from two tables, so that the
	// merges the reads must live through come within a few rounds: from
	// the store's own five, the writes a merge waits for took the test
	// three times as long, and minutes under the race detector.
	_, credit, out := child(t, "write", dir, slackEnv+"="+strconv.Itoa(writerSlack), sizesEnv+"=tree", levelZeroEnv+"=2")
	reported := map[string]string{} // "output <ref>" or "step <n>" -> sha256
	next := func(n int) {
		for range n {
			if !out.Scan() {
				t.Fatalf("the writer stopped after %d writes: %v", len(reported), out.Err())
			}
			f := strings.Fields(out.Text())
			if len(f) != 3 {
				t.Fatalf("child said %q", out.Text())
			}
			reported[f[0]+" "+f[1]] = f[2]
			if _, err := credit.Write([]byte{1}); err != nil {
				t.Fatalf("the writer is gone: %v", err)
			}
		}
	}
	copies := 0
	copied = func() { copies++ }
	defer func() { copied = func() {} }()
	seen := map[string]bool{} // the tables earlier reads copied
	merged := ""              // one of them, gone from a later read's copy
	round := 0
	for ; round < minRounds || merged == ""; round++ {
		if round == maxRounds {
			t.Fatalf("after %d reads (%d writes, %d tables copied) no table was merged", round, len(reported), len(seen))
		}
		next(perRound)
		s, err := Open(dir, Options{ReadOnly: true, Snapshot: true, Warn: func(err error) { t.Errorf("warning: %v", err) }})
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if !s.Snapshot() || !s.ReadOnly() || s.Dir() != dir {
			t.Fatalf("Snapshot = %v, ReadOnly = %v, Dir = %s", s.Snapshot(), s.ReadOnly(), s.Dir())
		}
		copied := s.copy
		tables, err := filepath.Glob(filepath.Join(copied, "*.sst"))
		if err != nil {
			t.Fatal(err)
		}
		now := map[string]bool{}
		for _, path := range tables {
			now[filepath.Base(path)] = true
		}
		for name := range seen {
			if !now[name] && merged == "" {
				merged = name
			}
		}
		maps.Copy(seen, now)
		// The steps once a read, not once a step.
		steps, err := s.Steps("run")
		if err != nil {
			t.Fatalf("round %d: steps: %v", round, err)
		}
		requests := map[string][]byte{}
		for _, st := range steps {
			requests[strconv.Itoa(st.N)] = st.Request
		}
		for what, sum := range reported {
			kind, id, _ := strings.Cut(what, " ")
			data := requests[id]
			if kind == "output" {
				if data, err = s.Get(id); err != nil {
					t.Fatalf("round %d: %s: %v", round, what, err)
				}
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
	t.Logf("%d reads of %d writes took %d copies; %d tables copied, %s merged", round, len(reported), copies, len(seen), merged)
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
