package toolmem

import (
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
		if _, closed := readRecord(dir); !opts.ReadOnly && closed != nil {
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
		if !closedCleanly(dir) {
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
			if closedCleanly(dir) {
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
