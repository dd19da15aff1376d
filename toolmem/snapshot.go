package toolmem

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/table"
)

// A store that a writer holds is read through a copy of it (a snapshot),
// so that a person can follow a running review from a second terminal
// without weakening the writer's hold. The ways that were not taken:
//
//   - Opening the live directory read-only: the writer holds Badger's
//     lock, and without it Badger's read-only open refuses the writer's
//     write-ahead log (it has unused space after its last entry) and
//     would read tables a compaction is deleting.
//   - Hard links to the immutable files: Badger deletes a table or log by
//     cutting it to nothing first, and a link shares that file, so a
//     compaction in the writer would empty the reader's copy under it.
//   - The writer publishing snapshots: it would pay, at every step of
//     every review, for what a reader needs once in a while.
//
// So the reader copies, without any lock, what a point in the writer's
// history needs: the MANIFEST, the tables it lists, the write-ahead logs
// up to their last whole transaction and the value logs up to their last
// whole entry, and opens the copy read-only. Badger appends to its logs
// and writes a value before the write-ahead log entry that points to it,
// so copying the write-ahead logs before the value logs gives a copy whose
// every pointer is in it. The writer changes the MANIFEST before it
// deletes what the change replaced (a memtable written as a table, tables
// merged): if the MANIFEST changed while the files were copied, or a value
// log went away, the copy is taken again. The copy lives in the system's
// temporary directory and is removed by Close; the store itself is only
// read. What it costs is the store's size in copied bytes (copy_file_range
// where the system offers it) — paid only by a reader that found the
// store held.

// errMoved reports that the writer changed the store while it was copied.
var errMoved = errors.New("the store changed while it was copied")

// snapshotTries is how many copies openSnapshot takes before it gives up
// on a writer that keeps changing the store.
const snapshotTries = 10

// openSnapshot opens a read-only copy of the store in dir, which a writer
// holds. It fails with a *LockedError if the writer changed the store
// during every copy.
func openSnapshot(dir string, opts Options) (*Store, error) {
	started := time.Now()
	for try := range snapshotTries {
		if try > 0 {
			time.Sleep(time.Duration(try) * 20 * time.Millisecond)
		}
		tmp, err := os.MkdirTemp("", "review-snapshot-")
		if err != nil {
			return nil, fmt.Errorf("cannot copy tool memory at %s to read it while a review writes it: %w", dir, err)
		}
		s, err := openCopy(dir, tmp, opts)
		if err == nil {
			return s, nil
		}
		os.RemoveAll(tmp)
		// A copy that does not open is taken again too: the writer may
		// have cut a file as it was copied. Damage that is in the store
		// is in every copy, and is reported once the tries are spent.
		if !errors.Is(err, errMoved) && !errors.Is(err, ErrDamaged) {
			return nil, err
		}
		if try == snapshotTries-1 && errors.Is(err, ErrDamaged) {
			return nil, err
		}
	}
	return nil, &LockedError{Dir: dir, Waited: time.Since(started).Round(time.Millisecond)}
}

// openCopy copies the store in dir to tmp and opens the copy.
func openCopy(dir, tmp string, opts Options) (*Store, error) {
	if err := copyStore(dir, tmp, true); err != nil {
		return nil, err
	}
	s, err := open(tmp, Options{ReadOnly: true, LockWait: -1, errorLog: opts.errorLog, Warn: opts.Warn}, badgerOptions)
	if err != nil {
		// Say the store, not the copy.
		var de *DamagedError
		if errors.As(err, &de) {
			de.Dir = dir
		}
		return nil, err
	}
	// The copy is the reader's own: recovering it, if Open had to,
	// changed nothing of the store's.
	s.dir, s.copy, s.recovered = dir, tmp, false
	return s, nil
}

// copyStore copies to dst (an empty directory) the store in dir as a
// writer leaves it at one point of its history; see the top of this file.
// live says that a writer holds the store; without one (probe) the copy
// is of a store left by a killed writer, trimmed as its recovery will.
func copyStore(dir, dst string, live bool) error {
	mpath := filepath.Join(dir, badger.ManifestFilename)
	mf, err := os.Open(mpath)
	if err != nil {
		// A writer creating the store: there is nothing yet.
		return movedIf(err)
	}
	defer mf.Close()
	before, err := mf.Stat()
	if err != nil {
		return err
	}
	n, err := copyTables(mf, dir, dst)
	if err != nil {
		return err
	}
	// The write-ahead logs, then the value logs they point into.
	if err := copyWriteAheadLogs(dir, dst); err != nil {
		return err
	}
	sizes, err := copyValueLogs(dir, dst, live)
	if err != nil {
		return err
	}
	copied()
	return checkUnchanged(dir, before, n, sizes)
}

// copyTables copies the MANIFEST, open in mf, cut after its last whole
// change, the tables it lists and the key registry, and returns the size
// of the MANIFEST as copied.
func copyTables(mf *os.File, dir, dst string) (int64, error) {
	mcopy := filepath.Join(dst, badger.ManifestFilename)
	n, err := copyFrom(mf, mcopy)
	if err != nil {
		return 0, err
	}
	m, err := cutManifest(mcopy)
	if err != nil {
		return 0, err
	}
	for id := range m.Tables {
		name := table.IDToFilename(id)
		if _, err := copyFile(filepath.Join(dir, name), filepath.Join(dst, name)); err != nil {
			return 0, err
		}
	}
	if _, err := copyFile(filepath.Join(dir, badger.KeyRegistryFileName), filepath.Join(dst, badger.KeyRegistryFileName)); err != nil && !errors.Is(err, errMoved) {
		return 0, err
	}
	return n, nil
}

// copyWriteAheadLogs copies each write-ahead log up to its last whole
// transaction.
func copyWriteAheadLogs(dir, dst string) error {
	mems, err := logFiles(dir, ".mem")
	if err != nil {
		return err
	}
	for _, name := range mems {
		if err := copyLog(filepath.Join(dir, name), filepath.Join(dst, name), true); err != nil {
			return err
		}
	}
	return nil
}

// copyValueLogs copies the value logs: the last, which the writer appends
// to, up to its last whole entry, and the others whole. It returns the
// sizes of those it copied whole, which must not change while the copy is
// taken. A value log cut below its header is being deleted: the copy is
// taken again when a writer holds the store (errMoved), and the file left
// out without one.
func copyValueLogs(dir, dst string, live bool) (map[string]int64, error) {
	vlogs, err := logFiles(dir, ".vlog")
	if err != nil {
		return nil, err
	}
	sizes := map[string]int64{}
	for i, name := range vlogs {
		src, to := filepath.Join(dir, name), filepath.Join(dst, name)
		if i == len(vlogs)-1 {
			// The one the writer appends to.
			if err := copyLog(src, to, false); err != nil {
				return nil, err
			}
			continue
		}
		info, err := os.Stat(src)
		if err != nil {
			return nil, movedIf(err)
		}
		if info.Size() < vlogHeaderSize {
			// Being deleted by gc, which cuts a file to nothing first,
			// once it has rewritten its values: the write-ahead logs
			// copied may predate the rewrite. Without a writer, a
			// leftover of a killed gc, which the recovery removes.
			if live {
				return nil, errMoved
			}
			continue
		}
		if sizes[name], err = copyFile(src, to); err != nil {
			return nil, err
		}
	}
	return sizes, nil
}

// checkUnchanged reports errMoved unless what the copy holds is still what
// the store holds: the same MANIFEST file (before, when the copy started)
// of the n bytes copied, and the value logs copied whole at their sizes.
func checkUnchanged(dir string, before os.FileInfo, n int64, sizes map[string]int64) error {
	after, err := os.Stat(filepath.Join(dir, badger.ManifestFilename))
	if err != nil || !os.SameFile(before, after) || after.Size() != n {
		return errMoved
	}
	for name, size := range sizes {
		if info, err := os.Stat(filepath.Join(dir, name)); err != nil || info.Size() != size {
			return errMoved
		}
	}
	return nil
}

// copied is called once copyStore has copied every file, before it checks
// that the store did not change meanwhile: tests change it there.
var copied = func() {}

// movedIf turns a file gone missing into errMoved: the writer deleted it.
func movedIf(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return errMoved
	}
	return err
}

// cutManifest cuts the MANIFEST at path after its last whole change, which
// a copy taken as the writer appended one may lack the end of, and returns
// what it lists.
func cutManifest(path string) (badger.Manifest, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return badger.Manifest{}, err
	}
	defer f.Close()
	bopts := badgerOptions(filepath.Dir(path), nil)
	m, end, err := badger.ReplayManifestFile(f, bopts.ExternalMagicVersion, bopts)
	if err != nil {
		// The store's own MANIFEST is checked as the copy opens; one
		// that does not read here is the writer's rewrite half copied.
		return m, errMoved
	}
	return m, f.Truncate(end)
}

// logFiles lists the files of dir ending in ext, in the order of their
// numbers.
func logFiles(dir, ext string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot read tool memory directory %s: %w", dir, err)
	}
	type numbered struct {
		name string
		n    int
	}
	var files []numbered
	for _, e := range entries {
		num, ok := strings.CutSuffix(e.Name(), ext)
		if !ok {
			continue
		}
		n, err := strconv.Atoi(num)
		if err != nil {
			return nil, damagedStore(dir, "%s is not named as Badger names its files", e.Name())
		}
		files = append(files, numbered{e.Name(), n})
	}
	slices.SortFunc(files, func(a, b numbered) int { return a.n - b.n })
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.name
	}
	return names, nil
}

// copyFile copies the file src to dst (new) and returns its size.
func copyFile(src, dst string) (int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, movedIf(err)
	}
	defer in.Close()
	return copyFrom(in, dst)
}

// copyFrom copies what is left of in to dst (new), with copy_file_range
// where the system has it.
func copyFrom(in *os.File, dst string) (int64, error) {
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("copying tool memory file %s: %w", in.Name(), err)
	}
	return n, nil
}

// copyLog copies the log file src, which the writer may be appending to,
// to dst up to the end of its last whole entry, or of its last whole
// transaction if txn (a write-ahead log: Badger's read-only open refuses
// one with anything after that). It reads entries until the first that
// does not read back, without scanLog's judgement of what follows: the
// writer may be writing it. A file without a whole entry (or transaction)
// is not copied: nothing points into it.
func copyLog(src, dst string, txn bool) error {
	in, err := os.Open(src)
	if err != nil {
		return movedIf(err)
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer out.Close()
	size := info.Size()
	r := bufio.NewReaderSize(io.TeeReader(in, out), 64<<10)
	if _, err := r.Discard(vlogHeaderSize); err != nil {
		out.Close()
		return os.Remove(dst)
	}
	end := int64(vlogHeaderSize)
	t := txnEnd{end: end}
	for {
		e, ok := readLogEntry(r, size-end)
		if !ok {
			break
		}
		end += e.n
		t.add(e, end)
	}
	if txn {
		end = t.end
	}
	if end == vlogHeaderSize {
		out.Close()
		return os.Remove(dst)
	}
	if err := out.Truncate(end); err != nil {
		return err
	}
	return out.Close()
}
