package toolmem

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// TestKillLeftovers adds to a sound store the files a process killed while
// it created them leaves (a write-ahead log or value log with no bytes, or
// sized but never written): every open, read-only or not, removes them and
// reads every record. Badger refuses them, and the store used to be
// reported as damaged.
func TestKillLeftovers(t *testing.T) {
	empty := func(size int64) func(t *testing.T, path string) {
		return func(t *testing.T, path string) {
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.Truncate(size); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range []struct {
		name  string
		files map[string]func(t *testing.T, path string)
	}{
		{"empty write-ahead log", map[string]func(*testing.T, string){"00009.mem": empty(0)}},
		{"unwritten write-ahead log", map[string]func(*testing.T, string){"00009.mem": empty(8 << 20)}},
		{"empty value log", map[string]func(*testing.T, string){"00009.mem": empty(0), "000009.vlog": empty(0)}},
		{"unwritten value log", map[string]func(*testing.T, string){"00009.mem": empty(8 << 20), "000009.vlog": empty(32 << 20)}},
		// gc deletes a value log it rewrote by cutting it to nothing
		// first: one older than the newest.
		{"value log being deleted", map[string]func(*testing.T, string){"00009.mem": empty(0), "000000.vlog": empty(0)}},
	} {
		for _, ro := range []bool{true, false} {
			t.Run(tc.name+map[bool]string{true: ", read-only"}[ro], func(t *testing.T) {
				dir := sampleStore(t)
				for name, make := range tc.files {
					make(t, filepath.Join(dir, name))
				}
				s, err := Open(dir, Options{ReadOnly: ro, LockWait: -1})
				if err != nil {
					t.Fatalf("Open(ReadOnly: %v): %v", ro, err)
				}
				defer s.Close()
				rep, err := s.Verify()
				if err != nil || rep.Runs != 4 || rep.Outputs != 4 || rep.Steps != 4 || len(rep.Problems) > 0 {
					t.Fatalf("Verify = %+v, %v", rep, err)
				}
				for name := range tc.files {
					if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
						t.Errorf("%s is still there: %v", name, err)
					}
				}
			})
		}
	}
}

// TestReadOnlyRecoveryWritesNothing kills a writer and opens its store
// read-only: the recovery trims the write-ahead log and removes what holds
// nothing, and creates no file (a writable Badger open would create a
// write-ahead log and a value log, which needs room on the disk, and a
// process killed then leaves them empty).
func TestReadOnlyRecoveryWritesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	cmd, _, out := child(t, "write", dir)
	for n := 0; out.Scan() && n < 20; n++ {
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	names := func() []string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}
	before := names()
	s, err := Open(dir, Options{ReadOnly: true, LockWait: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.recovered {
		t.Fatal("recovered = false")
	}
	for _, name := range names() {
		if !slices.Contains(before, name) {
			t.Errorf("the read-only recovery created %s", name)
		}
	}
	// The child wrote an output, an output and a step, in turn.
	if outs, err := s.List(""); err != nil || len(outs) < 13 {
		t.Fatalf("List after recovery = %d, %v", len(outs), err)
	}
	s.Close()
	// The recovered store opens read-only at once, and for writing.
	for _, ro := range []bool{true, false} {
		s, err := Open(dir, Options{ReadOnly: ro, LockWait: -1})
		if err != nil || s.recovered {
			t.Fatalf("Open(ReadOnly: %v) after recovery: %v", ro, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
