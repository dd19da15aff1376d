package toolmem

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// recovery is what a process killed while it wrote the store left for the
// next open to clean up, as checkFiles found it once it found no damage.
// Nothing in it holds data: files created but never written, the unused
// space after a write-ahead log's last whole transaction, tables the
// MANIFEST never listed.
type recovery struct {
	// empty are files that hold nothing (see leftover). Badger refuses
	// a write-ahead log or value log without its header, so every open
	// removes them.
	empty []string
	// trim are the write-ahead logs to cut to their last whole
	// transaction, and tables those no MANIFEST entry lists: a writable
	// Badger open does that itself, a read-only one cannot and refuses.
	trim   []trim
	tables []string
	// checked counts the tables checked whole (verifyTable).
	checked int
	// verified is the record of tables checked whole (verifiedFile) to
	// write once the store is open for writing, nil when it is
	// unchanged.
	verified map[uint64]stamp
	// level0 counts the tables the MANIFEST puts at level 0, and tree
	// is the size of all the tables it lists (see mergeOnClose).
	level0 int
	tree   int64
	// prior is the record in verifiedFile as the open found it, read
	// once for all that consult it.
	prior record
}

// trim is a write-ahead log to cut at end.
type trim struct {
	name string
	end  int64
}

// trimLog notes the write-ahead log name (at path) to be cut at end, or
// removed if it holds no whole transaction, if it is longer.
func (r *recovery) trimLog(path, name string, end int64) {
	info, err := os.Stat(path)
	if err != nil || info.Size() <= end {
		return
	}
	if end <= vlogHeaderSize {
		r.empty = append(r.empty, name)
		return
	}
	r.trim = append(r.trim, trim{name, end})
}

// needed reports whether there is anything to recover.
func (r *recovery) needed() bool {
	return r != nil && len(r.empty)+len(r.trim)+len(r.tables) > 0
}

// apply recovers the store in dir, which the caller holds locked for
// writing: it removes the empty files, cuts the write-ahead logs and drops
// the tables. Each step leaves a store the next open can recover, should
// this process be killed too.
func (r *recovery) apply(dir string) error {
	if !r.needed() {
		return nil
	}
	fail := func(what string, err error) error {
		if isDiskFull(err) {
			return &DiskFullError{Dir: dir, What: "recovering from a killed review", cause: err}
		}
		return fmt.Errorf("cannot recover tool memory at %s from a killed review (%s): %w", dir, what, err)
	}
	for _, t := range r.trim {
		if err := os.Truncate(filepath.Join(dir, t.name), t.end); err != nil {
			return fail("trimming "+t.name, err)
		}
	}
	for _, name := range append(r.empty, r.tables...) {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fail("removing "+name, err)
		}
	}
	return syncDir(dir)
}

// syncDir makes the removals in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("syncing tool memory directory %s: %w", dir, err)
	}
	return nil
}

// leftover reports whether the log file at path (a write-ahead log or a
// value log) holds nothing: no bytes at all, or only zeros. Badger deletes
// a file by cutting it to nothing first, then removing it; it creates such
// a file, sizes it (sparse, 8 or 32 MiB) and then writes its header;
// a process killed in between leaves it so, as does one that found no room
// for the header on a full disk. Badger refuses it, as cut short, or reads
// its holes through a memory map, which faults on a full file system that
// allocates pages on read (tmpfs).
func leftover(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("cannot read tool memory file %s: %w", path, err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := io.ReadFull(f, buf)
		if n > 0 && !allZero(buf[:n]) {
			return false, nil
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return true, nil
		}
		if err != nil {
			return false, fmt.Errorf("cannot read tool memory file %s: %w", path, err)
		}
	}
}

func allZero(b []byte) bool {
	return len(bytes.Trim(b, "\x00")) == 0
}
