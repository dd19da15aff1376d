package toolmem

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// noSettle records every table an open checks, however recent, for the
// length of a test.
func noSettle(t *testing.T) {
	t.Helper()
	was := settle
	settle = 0
	t.Cleanup(func() { settle = was })
}

// TestTablesCheckedOnce holds that an open checks whole only the tables no
// earlier open checked, and checks again a table whose file changed.
func TestTablesCheckedOnce(t *testing.T) {
	noSettle(t)
	dir := sampleStore(t)
	opts := badgerOptions(dir, nil)
	rec, err := checkFiles(dir, opts, true)
	if err != nil {
		t.Fatal(err)
	}
	if rec.checked != 1 {
		t.Fatalf("a store never opened since it was written: %d tables checked whole, want 1", rec.checked)
	}
	reopen(t, dir, 1) // checks the table and records it
	rec, err = checkFiles(dir, opts, true)
	if err != nil {
		t.Fatal(err)
	}
	if rec.checked != 0 {
		t.Fatalf("after an open that checked it: %d tables checked whole, want 0", rec.checked)
	}
	// A read-only open records nothing.
	if err := os.Remove(filepath.Join(dir, verifiedFile)); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(filepath.Join(dir, verifiedFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a read-only open wrote %s: %v", verifiedFile, err)
	}
	// A record that does not parse is ignored.
	if err := os.WriteFile(filepath.Join(dir, verifiedFile), []byte(verifiedHeader+"\n1 2 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if rec, err := checkFiles(dir, opts, true); err != nil || rec.checked != 1 {
		t.Fatalf("with a damaged record: %d tables checked whole (%v), want 1", rec.checked, err)
	}
}

// TestRecordedTableDamaged damages a table an earlier open checked and
// recorded, in place (its size kept, its modification time set back):
// both opens still refuse the store, and change nothing.
func TestRecordedTableDamaged(t *testing.T) {
	noSettle(t)
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, path string)
	}{
		{"block scribbled", func(t *testing.T, path string) { scribble(t, path, 100, 64) }},
		{"index scribbled", func(t *testing.T, path string) { scribble(t, path, -300, 64) }},
		{"replaced by another table", func(t *testing.T, path string) {
			other := sampleStore(t)
			data, err := os.ReadFile(file(t, other, ".sst"))
			if err != nil {
				t.Fatal(err)
			}
			data[100] ^= 1
			if err := os.WriteFile(path+".new", data, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(path+".new", path); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := sampleStore(t)
			reopen(t, dir, 1)
			if _, err := os.Stat(filepath.Join(dir, verifiedFile)); err != nil {
				t.Fatalf("the open recorded no table: %v", err)
			}
			path := file(t, dir, ".sst")
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			tc.damage(t, path)
			if err := os.Chtimes(path, time.Time{}, info.ModTime()); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, dir)
			for _, ro := range []bool{true, false} {
				_, err := Open(dir, Options{ReadOnly: ro, LockWait: -1})
				if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "is unreadable") {
					t.Fatalf("read-only %v: %v, want a damaged table", ro, err)
				}
			}
			if after := snapshot(t, dir); after != before {
				t.Fatalf("the failed opens changed the store:\n%s\nwas\n%s", after, before)
			}
		})
	}
}

// TestVerifyReadsRecordedTables holds that Verify (review doctor) reads
// every table whole, those an open did not read because they were
// recorded as checked included.
func TestVerifyReadsRecordedTables(t *testing.T) {
	noSettle(t)
	dir := sampleStore(t)
	reopen(t, dir, 1)
	s, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rep, err := s.Verify()
	if err != nil || len(rep.Problems) != 0 {
		t.Fatalf("a sound store: %+v, %v", rep.Problems, err)
	}
	// Damaged in place once the open has passed it by.
	path := file(t, dir, ".sst")
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(randomBytes(7, 64), 100); err != nil {
		t.Fatal(err)
	}
	f.Close()
	rep, err = s.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) == 0 || rep.Problems[0].Record != "table "+filepath.Base(path) || !strings.Contains(rep.Problems[0].Problem, "checksum") {
		t.Fatalf("problems %+v, want the damaged table's", rep.Problems)
	}
}

// TestEveryRecordedTableChecked writes a store in 14 short opens, whose
// closes merge level 0 (mergeOnClose) and so replace tables the opens before
// recorded, then damages each table in turn, in a copy, its size and
// modification time kept: whatever the store's history, every open of a
// damaged copy refuses it, and the record never names a table the store
// no longer has.
func TestEveryRecordedTableChecked(t *testing.T) {
	noSettle(t)
	dir := filepath.Join(t.TempDir(), "store")
	shortOpens(t, dir, 14, nil)
	reopen(t, dir, 1) // records the tables the last close wrote
	rec := readRecord(dir).tables
	tables, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	if len(rec) != len(tables) {
		t.Fatalf("the record names %d tables, the store holds %d", len(rec), len(tables))
	}
	for _, tab := range tables {
		t.Run(filepath.Base(tab), func(t *testing.T) {
			cp := filepath.Join(t.TempDir(), "store")
			copyDir(t, dir, cp)
			path := filepath.Join(cp, filepath.Base(tab))
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			// The copy's record is the store's: its stamps name the
			// store's files, so the copy's are checked whole; make
			// the copy's own record, then damage it.
			reopen(t, cp, 1)
			if n := len(readRecord(cp).tables); n == 0 {
				t.Fatal("the copy's open recorded nothing")
			}
			scribble(t, path, 100, 64)
			if err := os.Chtimes(path, time.Time{}, info.ModTime()); err != nil {
				t.Fatal(err)
			}
			for _, ro := range []bool{true, false} {
				if _, err := Open(cp, Options{ReadOnly: ro, LockWait: -1}); !errors.Is(err, ErrDamaged) {
					t.Fatalf("read-only %v: %v, want ErrDamaged", ro, err)
				}
			}
		})
	}
}

// TestSettled: a stamp is recorded once its change time is settle old, or
// settleFine when the file system keeps fractions of a second.
func TestSettled(t *testing.T) {
	now := time.Unix(1000, 0)
	for _, tc := range []struct {
		ctime time.Time
		want  bool
	}{
		{now.Add(-time.Second), false},                           // whole seconds: a coarse clock
		{now.Add(-2 * time.Second), true},                        //
		{now.Add(-time.Second - 40*time.Millisecond), true},      // a fraction: a fine clock
		{now.Add(-49*time.Millisecond - time.Nanosecond), false}, //
		{now.Add(-50*time.Millisecond - time.Nanosecond), true},  //
		{time.Unix(0, 0), false},                                 // no change time
	} {
		if got := (stamp{ctime: tc.ctime.UnixNano()}).settled(now); got != tc.want {
			t.Errorf("change time %v before: settled %v, want %v", now.Sub(tc.ctime), got, tc.want)
		}
	}
}

// FuzzReadRecord holds that any VERIFIED a damaged disk or another program
// may leave reads without a panic, and that what it reads as a record is
// what writing that record and reading it again gives: a record read is
// one this build could have written.
func FuzzReadRecord(f *testing.F) {
	f.Add([]byte(verifiedHeader + "\n7 1024 12 1700000000000000000 1700000000000000000\n"))
	f.Add([]byte(verifiedHeader + "\n" + closedLine + " 000001.sst 10 2 3 4\n" + closedLine + " MANIFEST 5 6 7 8\n" + mergingLine + "\n"))
	f.Add([]byte(verifiedHeader + "\n" + mergingLine + "\n" + strings.Repeat("9", 70000) + "\n"))
	f.Add([]byte(verifiedHeader + "\n" + closedLine + " VERIFIED 1 2 3 4\n"))
	f.Add([]byte("review tables checked whole v0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, verifiedFile), data, 0o600); err != nil {
			t.Fatal(err)
		}
		r := readRecord(dir)
		if r.tables == nil {
			if r.closed != nil || r.merging {
				t.Fatalf("no record, yet %d closed files and merging %v", len(r.closed), r.merging)
			}
			return
		}
		again := t.TempDir()
		if err := r.write(again); err != nil {
			t.Fatal(err)
		}
		back := readRecord(again)
		if back.tables == nil || back.merging != r.merging || !maps.Equal(back.tables, r.tables) || !maps.Equal(back.closed, r.closed) {
			t.Fatalf("read %+v, written and read again %+v", r, back)
		}
	})
}

// TestRecordOverlongLine holds that a record with a line longer than the
// scanner takes is no record, rather than the part before that line: the
// merging mark after it would otherwise go unread.
func TestRecordOverlongLine(t *testing.T) {
	dir := t.TempDir()
	data := verifiedHeader + "\n1 2 3 4 5\n" + strings.Repeat("x", 1<<17) + "\n" + mergingLine + "\n"
	if err := os.WriteFile(filepath.Join(dir, verifiedFile), []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := readRecord(dir); r.tables != nil || r.merging {
		t.Fatalf("read %d tables, merging %v, from a record with an overlong line; want no record", len(r.tables), r.merging)
	}
}
