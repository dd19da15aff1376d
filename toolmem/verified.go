package toolmem

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// verifiedFile records the tables an open checked whole (verifyTable), each
// with its stamp: Badger never changes a table once written (a compaction
// writes new ones, under new numbers), so an open checks whole only the
// tables it has no stamp for, or whose file changed since. Checking every
// table at every open read the whole tree each start: in a store of 300
// reviews (13 MB), 18 % of a dry run's CPU. A table damaged in place without
// its file changing (the disk's own failure) is found as its blocks are
// read, each against its checksum (options.OnBlockRead).
const verifiedFile = "VERIFIED"

// verifiedHeader starts the record; any other start is ignored, as is a
// record that does not parse: then every table is checked again.
const verifiedHeader = "review tables checked whole v1"

// stamp identifies a file's content as the file system knows it: any write,
// truncation, rename or copy changes its change time (ctime), which no
// program can set back, and its inode or size besides.
type stamp struct {
	size, ino, mtime, ctime int64
}

// settle is how old a file's change time must be for its stamp to be
// recorded: a file system gives a file changed twice within one tick of its
// clock the same ctime. A change time in whole seconds may come from a
// clock of seconds (FAT's is two); one with a fraction, from a clock of
// milliseconds at most (Linux's file systems take the kernel's coarse
// clock, a tick of 1–10 ms), so settleFine is enough for it: the opens
// that follow a merge soon after it, as a script's reviews do, read its
// tables whole once, not for two seconds.
var settle, settleFine = 2 * time.Second, 50 * time.Millisecond

// settled reports whether st may be recorded at now.
func (st stamp) settled(now time.Time) bool {
	if st.ctime == 0 {
		return false
	}
	wait := settle
	if st.ctime%int64(time.Second) != 0 {
		wait = min(settle, settleFine)
	}
	return now.Sub(time.Unix(0, st.ctime)) >= wait
}

// record is what verifiedFile holds: the tables checked whole, the files a
// clean close left (closedLine), and whether a close is to merge level 0
// (mergingLine).
type record struct {
	tables  map[uint64]stamp
	closed  map[string]stamp // nil: no clean close since the last writer opened
	merging bool
}

// readRecord reads the record in dir; an empty one when it is missing or
// does not parse.
func readRecord(dir string) record {
	data, err := os.ReadFile(filepath.Join(dir, verifiedFile))
	if err != nil {
		return record{}
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	if !sc.Scan() || sc.Text() != verifiedHeader {
		return record{}
	}
	r := record{tables: map[uint64]stamp{}}
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		name := ""
		switch {
		case len(f) == 1 && f[0] == mergingLine:
			r.merging = true
			continue
		case len(f) == 6 && f[0] == closedLine:
			if name = f[1]; !isBadgerFile(name) || isOwnRecord(name) {
				return record{}
			}
			f = f[2:]
		case len(f) != 5:
			return record{}
		}
		n := make([]int64, len(f))
		for i, s := range f {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return record{}
			}
			n[i] = v
		}
		if name == "" {
			if n[0] < 0 {
				// No table has a negative number.
				return record{}
			}
			r.tables[uint64(n[0])] = stamp{size: n[1], ino: n[2], mtime: n[3], ctime: n[4]}
			continue
		}
		if r.closed == nil {
			r.closed = map[string]stamp{}
		}
		r.closed[name] = stamp{size: n[0], ino: n[1], mtime: n[2], ctime: n[3]}
	}
	if sc.Err() != nil {
		// A line longer than the scanner takes is no line this build
		// wrote: the rest of the record (the merging mark among it)
		// would go unread, so none of it is trusted.
		return record{}
	}
	return r
}

// write replaces the record in dir with r. The tables and a clean close are
// only a shortcut for later opens: failing costs them time, not
// correctness, and most callers drop the error. The merging mark is not
// (see mergingLine): a record that holds it is synced before write returns.
func (r record) write(dir string) error {
	var b bytes.Buffer
	b.WriteString(verifiedHeader + "\n")
	for id, st := range r.tables {
		fmt.Fprintf(&b, "%d %d %d %d %d\n", id, st.size, st.ino, st.mtime, st.ctime)
	}
	for name, st := range r.closed {
		fmt.Fprintf(&b, "%s %s %d %d %d %d\n", closedLine, name, st.size, st.ino, st.mtime, st.ctime)
	}
	if r.merging {
		b.WriteString(mergingLine + "\n")
	}
	// The store is locked for writing: no other process writes the
	// temporary file, and one killed writing it left it to be replaced.
	tmp := filepath.Join(dir, verifiedFile+".tmp")
	err := writeFile(tmp, b.Bytes(), r.merging)
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, verifiedFile))
	}
	if err == nil && r.merging {
		err = syncDir(dir)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// writeFile writes data to a new file at path, synced if sync is set.
func writeFile(path string, data []byte, sync bool) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil && sync {
		err = f.Sync()
	}
	return cmp.Or(err, f.Close())
}
