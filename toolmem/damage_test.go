package toolmem

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// The sample's outputs and responses are over valueThreshold, so that
// they go to the value log, one after the other per run: output 0,
// response 0, output 1, response 1... scribbleAt falls in the end of
// response 0 and cutAt in the end of response 1.
const (
	sampleOutput   = 100_000
	sampleResponse = 70_000
	scribbleAt     = sampleOutput + sampleResponse
	cutAt          = 2*(sampleOutput+sampleResponse) - 100
)

// sampleStore writes a closed store with runs, steps and outputs, some of
// them large enough for the value log, and returns its directory.
func sampleStore(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store")
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		id := fmt.Sprintf("run-%d", i)
		if err := s.PutRun(Run{ID: id, Status: StatusComplete, Started: time.Unix(int64(1000+i), 0)}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Put(id, 1, "call", "t", "{}", randomBytes(uint64(i), sampleOutput)); err != nil {
			t.Fatal(err)
		}
		if err := s.PutStep(Step{Run: id, N: 1, Request: []byte(`{"model":"m"}`), Response: randomBytes(9, sampleResponse)}); err != nil {
			t.Fatal(err)
		}
		if err := s.AddEvent(id, 1, []byte(`{"kind":"x"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// snapshot describes every file of dir: name, mode and content hash.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		sum := ""
		if info.Mode().IsRegular() {
			b, err := fileSum(path)
			if err != nil {
				return err
			}
			sum = fmt.Sprintf("%x", b)
		}
		lines = append(lines, fmt.Sprintf("%s %v %s", strings.TrimPrefix(path, dir), info.Mode(), sum))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// file returns the one file of dir whose name ends in ext.
func file(t *testing.T, dir, ext string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "*"+ext))
	if len(m) != 1 {
		t.Fatalf("%d %s files in %s", len(m), ext, dir)
	}
	return m[0]
}

// scribble overwrites n bytes of the file at path from off (from the end
// if negative).
func scribble(t *testing.T, path string, off, n int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if off < 0 {
		off += len(data)
	}
	copy(data[off:min(off+n, len(data))], randomBytes(uint64(off), n))
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestReadOnlyChangesNothing(t *testing.T) {
	dir := sampleStore(t)
	before := snapshot(t, dir)
	var warned []error
	s, err := Open(dir, Options{ReadOnly: true, Warn: func(err error) { warned = append(warned, err) }})
	if err != nil {
		t.Fatal(err)
	}
	// Another reader may open it meanwhile.
	s2, err := Open(dir, Options{ReadOnly: true, LockWait: -1})
	if err != nil {
		t.Fatalf("second reader: %v", err)
	}
	s2.Close()
	// A writer may not.
	if _, err := Open(dir, Options{LockWait: -1}); !errors.Is(err, ErrLocked) {
		t.Fatalf("writer while a reader holds the store: %v, want ErrLocked", err)
	}
	runs, err := s.Runs()
	if err != nil || len(runs) != 4 {
		t.Fatalf("Runs = %d runs, %v", len(runs), err)
	}
	outs, err := s.List("")
	if err != nil || len(outs) != 4 {
		t.Fatalf("List = %d outputs, %v", len(outs), err)
	}
	for _, o := range outs {
		if _, err := s.Get(o.Ref); err != nil {
			t.Fatal(err)
		}
	}
	if steps, err := s.Steps("run-0"); err != nil || len(steps) != 1 {
		t.Fatalf("Steps = %d, %v", len(steps), err)
	}
	rep, err := s.Verify()
	if err != nil || len(rep.Problems) != 0 || rep.Runs != 4 || rep.Outputs != 4 || rep.Steps != 4 {
		t.Fatalf("Verify = %+v, %v", rep, err)
	}
	if err := s.PutRun(Run{ID: "new", Status: StatusRunning}); err == nil {
		t.Fatal("PutRun on a read-only store succeeded")
	}
	if _, err := s.GC(time.Now()); err == nil {
		t.Fatal("GC on a read-only store succeeded")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if after := snapshot(t, dir); after != before {
		t.Fatalf("a read-only open changed the store:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if len(warned) > 0 {
		t.Fatalf("warnings on a sound store: %v", warned)
	}
}

func TestReadOnlyMissingStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "none")
	s, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs()
	if err != nil || len(runs) != 0 {
		t.Fatalf("Runs of no store = %v, %v", runs, err)
	}
	if _, err := s.Get("aaaaaaaaaa"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of no store: %v", err)
	}
	if _, err := s.Conversation("run"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Conversation of no store: %v", err)
	}
	s.Close()
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a read-only open created the store: %v", err)
	}
	// A directory of something else is refused as for writing.
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "notes.txt"), nil, 0o600)
	if _, err := Open(other, Options{ReadOnly: true}); err == nil || !strings.Contains(err.Error(), "is not a tool memory directory") {
		t.Fatalf("read-only open of another directory: %v", err)
	}
}

// TestDamagedStore damages a store in the ways the files can be damaged
// and checks that both opens refuse it with ErrDamaged, never panic, and
// change nothing.
func TestDamagedStore(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir string)
		want   string
	}{
		{"table scribbled", func(t *testing.T, dir string) { scribble(t, file(t, dir, ".sst"), 100, 64) }, "table 000001.sst is unreadable: checksum mismatch"},
		{"table index scribbled", func(t *testing.T, dir string) { scribble(t, file(t, dir, ".sst"), -300, 64) }, "table 000001.sst is unreadable"},
		{"table footer scribbled", func(t *testing.T, dir string) { scribble(t, file(t, dir, ".sst"), -4, 4) }, "table 000001.sst is unreadable"},
		{"table cut short", func(t *testing.T, dir string) { os.Truncate(file(t, dir, ".sst"), 1000) }, "table 000001.sst is unreadable"},
		{"table missing", func(t *testing.T, dir string) { os.Remove(file(t, dir, ".sst")) }, "table 000001.sst, listed in its MANIFEST, is missing"},
		{"MANIFEST missing", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "MANIFEST")) }, "its MANIFEST is missing"},
		{"MANIFEST scribbled", func(t *testing.T, dir string) { scribble(t, filepath.Join(dir, "MANIFEST"), 10, 10) }, "its MANIFEST cannot be read"},
		{"MANIFEST cut short", func(t *testing.T, dir string) { os.Truncate(filepath.Join(dir, "MANIFEST"), 8) }, "its MANIFEST does not list table 000001.sst"},
		{"value log emptied", func(t *testing.T, dir string) { os.Truncate(file(t, dir, ".vlog"), 0) }, "value log 000001.vlog is cut short (0 bytes)"},
		{"key registry scribbled", func(t *testing.T, dir string) { scribble(t, filepath.Join(dir, "KEYREGISTRY"), 0, 28) }, "its KEYREGISTRY cannot be read: "},
		{"key registry cut short", func(t *testing.T, dir string) { os.Truncate(filepath.Join(dir, "KEYREGISTRY"), 5) }, "its KEYREGISTRY cannot be read: EOF"},
		// Badger reads the header of each log as it opens it, after it
		// has started a write-ahead log and deleted the value logs it
		// found empty.
		{"value log header flipped", func(t *testing.T, dir string) { flip(t, file(t, dir, ".vlog"), 5) }, "value log 000001.vlog has a damaged header"},
		{"empty newest value log header flipped", func(t *testing.T, dir string) {
			reopen(t, dir, 2) // 000001.vlog holds values, 000002 and 000003 are empty
			flip(t, filepath.Join(dir, "000003.vlog"), 5)
		}, "value log 000003.vlog has a damaged header"},
		{"write-ahead log header flipped", func(t *testing.T, dir string) {
			killed(t, dir)
			flip(t, file(t, dir, ".mem"), 5)
		}, "write-ahead log 00001.mem has a damaged header"},
		// A read-only open would recover this store from its writer's
		// kill with a writable Badger open, which deletes empty value logs.
		{"value log header flipped after a kill", func(t *testing.T, dir string) {
			reopen(t, dir, 1)
			killed(t, dir)
			flip(t, filepath.Join(dir, "000003.vlog"), 5)
		}, "value log 000003.vlog has a damaged header"},
		// Damage checkFiles does not look for: the read-only probe finds
		// it before a writable open changes anything.
		{"value log misnamed", func(t *testing.T, dir string) {
			reopen(t, dir, 1)
			if err := os.Rename(filepath.Join(dir, "000002.vlog"), filepath.Join(dir, "2x.vlog")); err != nil {
				t.Fatal(err)
			}
		}, "Unable to parse log id"},
		// After a kill, Badger cannot open the store read-only before
		// the recovery trims it: a copy, trimmed, is probed instead.
		{"value log misnamed after a kill", func(t *testing.T, dir string) {
			reopen(t, dir, 1)
			killed(t, dir)
			if err := os.Rename(filepath.Join(dir, "000002.vlog"), filepath.Join(dir, "2x.vlog")); err != nil {
				t.Fatal(err)
			}
		}, "2x.vlog is not named as Badger names its files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := sampleStore(t)
			tc.damage(t, dir)
			before := snapshot(t, dir)
			for _, ro := range []bool{true, false} {
				_, err := Open(dir, Options{ReadOnly: ro, LockWait: -1})
				if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("Open(ReadOnly: %v) = %v, want ErrDamaged saying %q", ro, err, tc.want)
				}
				if err != nil && strings.ContainsRune(err.Error(), '\n') {
					t.Errorf("error of more than one line: %q", err)
				}
				if after := snapshot(t, dir); after != before {
					t.Errorf("Open(ReadOnly: %v) changed the damaged store", ro)
				}
			}
		})
	}
}

// flip inverts the byte at off of the file at path.
func flip(t *testing.T, path string, off int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[off] ^= 0xff
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// reopen opens the store in dir for writing n times, each time writing
// nothing: each open starts a value log of its own and leaves it empty.
func reopen(t *testing.T, dir string, n int) {
	t.Helper()
	for range n {
		s, err := Open(dir, Options{LockWait: -1})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// killed turns the store in dir into one a writer left as it was killed:
// a copy of its files taken while a writer had it open, with a write-ahead
// log that holds a run.
func killed(t *testing.T, dir string) {
	t.Helper()
	s, err := Open(dir, Options{LockWait: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutRun(Run{ID: "late", Status: StatusRunning}); err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(t.TempDir(), "copy")
	copyDir(t, dir, copied)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	copyDir(t, copied, dir)
}

// TestDamagedValueLog cuts and scribbles over the value log: a read-only
// open reads what is left and reports each damaged record; a writable
// open, which would trim the newest value log after its first damaged
// entry, refuses the store.
func TestDamagedValueLog(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, path string)
		want   string
	}{
		// Badger trims a cut value log of the entry it cut; the entries
		// before it are intact.
		{"cut", func(t *testing.T, path string) { os.Truncate(path, cutAt) }, ""},
		{"scribbled", func(t *testing.T, path string) { scribble(t, path, scribbleAt, 64) }, "and readable entries after it"},
		// The last entry of a file closed cleanly: Badger would cut the
		// file to its header, with every value of that transaction.
		{"last entry", func(t *testing.T, path string) { scribble(t, path, -10, 4) }, "and the file ends after it without the unused space a killed write leaves"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := sampleStore(t)
			tc.damage(t, file(t, dir, ".vlog"))
			before := snapshot(t, dir)

			if tc.want != "" {
				_, err := Open(dir, Options{LockWait: -1})
				if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("writable Open = %v, want ErrDamaged saying %q", err, tc.want)
				}
			}

			var warned []string
			s, err := Open(dir, Options{ReadOnly: true, Warn: func(err error) {
				if !errors.Is(err, ErrDamaged) {
					t.Errorf("warning %v does not wrap ErrDamaged", err)
				}
				warned = append(warned, err.Error())
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			runs, err := s.Runs()
			if err != nil || len(runs) != 4 {
				t.Fatalf("Runs = %d runs, %v", len(runs), err)
			}
			steps := 0
			for _, r := range runs {
				st, err := s.Steps(r.ID)
				if err != nil {
					t.Fatal(err)
				}
				steps += len(st)
			}
			outs, err := s.List("")
			if err != nil || len(outs) != 4 {
				t.Fatalf("List = %d outputs, %v", len(outs), err)
			}
			bad := 0
			for _, o := range outs {
				_, err := s.Get(o.Ref)
				if errors.Is(err, ErrDamaged) {
					bad++
					if !strings.Contains(err.Error(), "output "+o.Ref+" in tool memory at "+dir+" is damaged") {
						t.Errorf("Get: %v", err)
					}
				} else if err != nil {
					t.Fatal(err)
				}
			}
			rep, err := s.Verify()
			if err != nil {
				t.Fatal(err)
			}
			if bad+(4-steps) == 0 || len(rep.Problems) != bad+(4-steps) || len(warned) != 4-steps {
				t.Fatalf("%d outputs and %d steps damaged, %d warnings, Verify found %+v", bad, 4-steps, len(warned), rep.Problems)
			}
			for _, w := range warned {
				if !strings.HasPrefix(w, "skipped the response of step 1 of run run-") {
					t.Errorf("warning %q", w)
				}
			}
			s.Close()
			if after := snapshot(t, dir); after != before {
				t.Fatal("a read-only open changed the store")
			}
		})
	}
}

// TestGCRefusesDamagedValueLog damages a value log that is not the newest,
// which a writable open does not read: GC, which would rewrite it up to the
// damage and delete it, refuses.
func TestGCRefusesDamagedValueLog(t *testing.T) {
	dir := sampleStore(t)
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put("run-9", 1, "c", "t", "", randomBytes(99, 2*valueThreshold)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	scribble(t, filepath.Join(dir, "000001.vlog"), scribbleAt, 64)
	s, err = Open(dir, Options{LockWait: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.GC(time.Now().Add(time.Hour))
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "value log 000001.vlog has a damaged entry") {
		t.Fatalf("GC of a store with a damaged value log: %v", err)
	}
	if runs, _ := s.Runs(); len(runs) != 4 {
		t.Fatalf("GC dropped runs before it refused: %d left", len(runs))
	}
}

// TestDamagedRecord writes a run record and an output's metadata that do
// not decode: listings skip them with a warning, reading them is an
// ErrDamaged error, and Verify reports them.
func TestDamagedRecord(t *testing.T) {
	dir := sampleStore(t)
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	outs, _ := s.List("run-2")
	if err := s.update(func(txn *badger.Txn) error {
		if err := txn.Set(runKey("run-1"), []byte("{not json")); err != nil {
			return err
		}
		return txn.Set(metaKey(outs[0].Ref), []byte("nor this"))
	}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	var warned []string
	s, err = Open(dir, Options{ReadOnly: true, Warn: func(err error) { warned = append(warned, err.Error()) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, err := s.Runs()
	if err != nil || len(runs) != 3 {
		t.Fatalf("Runs = %d runs, %v", len(runs), err)
	}
	if _, err := s.Run("run-1"); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "run run-1 in tool memory at") {
		t.Fatalf("Run of a damaged record: %v", err)
	}
	if list, err := s.List(""); err != nil || len(list) != 3 {
		t.Fatalf("List = %d, %v", len(list), err)
	}
	if list, err := s.List("run-2"); err != nil || len(list) != 0 {
		t.Fatalf("List(run-2) = %d, %v", len(list), err)
	}
	if _, err := s.Get(outs[0].Ref); !errors.Is(err, ErrDamaged) {
		t.Fatalf("Get of damaged metadata: %v", err)
	}
	want := []string{
		"skipped run run-1: it is damaged (not a valid record: invalid character 'n' looking for beginning of object key string)",
		"skipped output " + outs[0].Ref + ": it is damaged (not a valid record: invalid character 'o' in literal null (expecting 'u'))",
	}
	if strings.Join(warned[:2], "\n") != strings.Join(want, "\n") {
		t.Fatalf("warnings:\n%s\nwant:\n%s", strings.Join(warned, "\n"), strings.Join(want, "\n"))
	}
	rep, err := s.Verify()
	if err != nil || len(rep.Problems) != 2 || rep.Problems[0].Record != "output "+outs[0].Ref || rep.Problems[1].Record != "run run-1" {
		t.Fatalf("Verify = %+v, %v", rep.Problems, err)
	}

	// A writable store skips them too, and GC keeps the run it cannot date.
	s.Close()
	s, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.GC(time.Now())
	if err != nil || st.Runs != 3 {
		t.Fatalf("GC = %+v, %v", st, err)
	}
	if _, err := s.Run("run-1"); !errors.Is(err, ErrDamaged) {
		t.Fatalf("GC dropped the damaged run: %v", err)
	}
}

// TestReadOnlyAfterKill opens read-only a store whose writer was killed:
// Badger cannot read it before its write-ahead log is trimmed of the
// preallocated space, so Open recovers it, and everything written is there.
// The same store with a damaged entry in its log, followed by readable
// ones, is refused, and left as it is.
func TestReadOnlyAfterKill(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	cmd, _, out := child(t, "write", dir)
	n := 0
	for out.Scan() && n < 20 {
		n++
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	mem, _ := filepath.Glob(filepath.Join(dir, "*.mem"))
	if len(mem) == 0 {
		t.Fatal("the killed writer left no write-ahead log")
	}

	damaged := filepath.Join(t.TempDir(), "damaged")
	copyDir(t, dir, damaged)
	memCopy := filepath.Join(damaged, filepath.Base(mem[len(mem)-1]))
	scribble(t, memCopy, vlogHeaderSize+10, 4) // inside the first entry's key
	before := snapshot(t, damaged)
	for _, ro := range []bool{true, false} {
		if _, err := Open(damaged, Options{ReadOnly: ro, LockWait: -1}); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "and readable entries after it") {
			t.Fatalf("Open(ReadOnly: %v) of a damaged log: %v", ro, err)
		}
	}
	if snapshot(t, damaged) != before {
		t.Fatal("Open changed a store with a damaged log")
	}

	s, err := Open(dir, Options{ReadOnly: true, LockWait: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.recovered || !s.ReadOnly() {
		t.Fatalf("recovered = %v, ReadOnly = %v", s.recovered, s.ReadOnly())
	}
	outs, err := s.List("")
	if err != nil || len(outs) == 0 {
		t.Fatalf("List after recovery = %d, %v", len(outs), err)
	}
	if _, err := s.Put("run", 1, "c", "t", "", nil); err == nil {
		t.Fatal("Put on a recovered read-only store succeeded")
	}
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o700); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		// File to file (copy_file_range on Linux): not through the heap,
		// which the race detector would mark byte by byte.
		if err := cloneFile(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPermissionsOnlyTighten checks that Open takes away the permissions of
// group and others and never adds one: a store made read-only stays so.
func TestPermissionsOnlyTighten(t *testing.T) {
	dir := sampleStore(t)
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	s, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if info, _ := os.Stat(dir); info.Mode().Perm() != 0o555 {
		t.Fatalf("a read-only open made the directory %v", info.Mode().Perm())
	}
	if os.Geteuid() == 0 {
		t.Skip("the superuser may write to any directory")
	}
	_, err = Open(dir, Options{})
	if err == nil || !strings.Contains(err.Error(), "is read-only") {
		t.Fatalf("writable open of a read-only store: %v", err)
	}
	if info, _ := os.Stat(dir); info.Mode().Perm() != 0o555 {
		t.Fatalf("a writable open made the directory %v", info.Mode().Perm())
	}
}

// cloneFile copies the file at src to a new file at dst.
func cloneFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
