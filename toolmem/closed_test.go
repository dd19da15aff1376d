package toolmem

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestProbeSkippedAfterCleanClose holds the record of a clean close
// (closedLine): a writable open of the store as that close left it makes no
// probe, and reads it whole; any change since (a file written, added or
// removed, a writer killed) brings the probe back; a reader leaves the
// record as it is, and a writer removes it while it has the store open.
func TestProbeSkippedAfterCleanClose(t *testing.T) {
	openClose := func(t *testing.T, dir string, opts Options) (probed int64) {
		t.Helper()
		before := probes.Load()
		s, err := Open(dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		probed = probes.Load() - before
		if !opts.ReadOnly && readRecord(dir).closed != nil {
			t.Error("the record of a clean close is there while a writer has the store open")
		}
		if runs, err := s.Runs(); err != nil || len(runs) < 4 {
			t.Errorf("the store lists %d runs (%v), want 4 or more", len(runs), err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		return probed
	}
	t.Run("unchanged", func(t *testing.T) {
		dir := sampleStore(t)
		if !closedCleanly(dir, readRecord(dir).closed) {
			t.Fatal("a clean close left no record that matches the store")
		}
		for i := range 3 {
			if n := openClose(t, dir, Options{LockWait: -1}); n != 0 {
				t.Errorf("open %d after a clean close probed %d times, want none", i+1, n)
			}
		}
		// A reader changes nothing, the record included.
		openClose(t, dir, Options{ReadOnly: true, LockWait: -1})
		if n := openClose(t, dir, Options{LockWait: -1}); n != 0 {
			t.Errorf("a writer after a reader probed %d times, want none", n)
		}
	})
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, dir string)
	}{
		{"a table's times changed", func(t *testing.T, dir string) {
			if err := os.Chtimes(file(t, dir, ".sst"), time.Now(), time.Now()); err != nil {
				t.Fatal(err)
			}
		}},
		// An empty write-ahead log, as a writer killed as it opened
		// leaves.
		{"a file added", func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "00099.mem"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"a file removed", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "DISCARD")); err != nil {
				t.Fatal(err)
			}
		}},
		{"the record damaged", func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, verifiedFile), []byte(verifiedHeader+"\nclosed MANIFEST x 1 2 3\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"a writer killed", killed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := sampleStore(t)
			tc.change(t, dir)
			if closedCleanly(dir, readRecord(dir).closed) {
				t.Fatal("the record still matches the changed store")
			}
			if n := openClose(t, dir, Options{LockWait: -1}); n == 0 {
				t.Error("the open after the change made no probe")
			}
			if n := openClose(t, dir, Options{LockWait: -1}); n != 0 {
				t.Errorf("the open after that one's clean close probed %d times, want none", n)
			}
		})
	}
}

// TestClosedLinesUnknownToOlderBuilds holds the record of a clean close to
// a form a build from before it reads as no record (it takes only lines of
// five numbers, a table's), so that such a build still opens the store and
// checks its tables once, rather than refusing a file it does not know.
func TestClosedLinesUnknownToOlderBuilds(t *testing.T) {
	dir := sampleStore(t)
	data, err := os.ReadFile(filepath.Join(dir, verifiedFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if lines[0] != verifiedHeader {
		t.Fatalf("the record starts %q", lines[0])
	}
	closed := 0
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if f[0] == closedLine {
			closed++
			if len(f) == 5 {
				t.Errorf("line %q has five fields, as a table's line", l)
			}
		} else if len(f) != 5 {
			t.Errorf("table line %q does not have five fields", l)
		}
	}
	if closed == 0 {
		t.Error("the record holds no line of the clean close")
	}
	if entries, _ := os.ReadDir(dir); slices.ContainsFunc(entries, func(e os.DirEntry) bool { return !isBadgerFile(e.Name()) }) {
		t.Errorf("the store holds a file a build that knows only Badger's files and %s would refuse", verifiedFile)
	}
}

// TestMergeOnCloseMarked holds the merging mark (mergingLine): an open
// that finds l0Tables-1 tables at level 0 marks the store before it
// opens, its close merges level 0 and removes the mark; and a store as a
// writer killed during that merge leaves it (a table the MANIFEST does not
// list, no write-ahead log, the mark) opens, read-only and for writing,
// with every run in it, where without the mark it is refused as damaged.
func TestMergeOnCloseMarked(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	shortOpens(t, dir, l0Tables-1, nil)
	s, err := Open(dir, Options{LockWait: -1})
	if err != nil {
		t.Fatal(err)
	}
	if n := s.db.Levels()[0].NumTables; n != l0Tables-1 {
		t.Fatalf("level 0 holds %d tables at the open, want %d", n, l0Tables-1)
	}
	if !readRecord(dir).merging {
		t.Error("an open that finds level 0 to merge did not mark the store")
	}
	if err := s.PutRun(Run{ID: "last", Status: StatusComplete, Started: time.Unix(100, 0)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if readRecord(dir).merging {
		t.Error("a clean close left the merging mark")
	}
	s, err = Open(dir, Options{ReadOnly: true, LockWait: -1})
	if err != nil {
		t.Fatal(err)
	}
	if n := s.db.Levels()[0].NumTables; n != 0 {
		t.Errorf("level 0 holds %d tables after the merging close, want none", n)
	}
	s.Close()

	// The store as a writer killed during its close's merge leaves it:
	// the merge's first table written, not yet listed.
	killedInMerge := func(t *testing.T, mark bool) string {
		t.Helper()
		d := filepath.Join(t.TempDir(), "store")
		copyDir(t, dir, d)
		data, err := os.ReadFile(file(t, d, ".sst"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "000999.sst"), data, 0o600); err != nil {
			t.Fatal(err)
		}
		r := readRecord(d)
		r.closed, r.merging = nil, mark
		if err := r.write(d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, ro := range []bool{true, false} {
		d := killedInMerge(t, true)
		s, err := Open(d, Options{ReadOnly: ro, LockWait: -1})
		if err != nil {
			t.Fatalf("Open(ReadOnly: %v) of a store killed in its close's merge: %v", ro, err)
		}
		if runs, err := s.Runs(); err != nil || len(runs) != l0Tables {
			t.Errorf("Open(ReadOnly: %v): %d runs (%v), want %d", ro, len(runs), err, l0Tables)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(d, "000999.sst")); !os.IsNotExist(err) {
			t.Errorf("Open(ReadOnly: %v) left the merge's unfinished table (%v)", ro, err)
		}
		// A reader changes the record no more than it must: the next
		// writer drops the mark.
		if ro {
			reopen(t, d, 1)
		}
		if readRecord(d).merging {
			t.Errorf("the merging mark outlived a writer's open and close (first open read-only: %v)", ro)
		}
	}
	d := killedInMerge(t, false)
	if _, err := Open(d, Options{LockWait: -1}); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "does not list table 000999.sst") {
		t.Errorf("Open of a store with a table its MANIFEST does not list and no mark = %v, want ErrDamaged", err)
	}
}
