package toolmem

import (
	"bufio"
	"bytes"
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

// readVerified returns the stamps of the tables recorded in dir, by table
// number; nothing when the record is missing or does not parse.
func readVerified(dir string) map[uint64]stamp {
	tables, _ := readRecord(dir)
	return tables
}

// readRecord returns the stamps of the tables recorded in dir, by table
// number, and those of the files a clean close left (closedLine), by
// name; nothing when the record is missing or does not parse.
func readRecord(dir string) (tables map[uint64]stamp, closed map[string]stamp) {
	data, err := os.ReadFile(filepath.Join(dir, verifiedFile))
	if err != nil {
		return nil, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	if !sc.Scan() || sc.Text() != verifiedHeader {
		return nil, nil
	}
	tables = map[uint64]stamp{}
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		name := ""
		if len(f) == 6 && f[0] == closedLine {
			if name = f[1]; !isBadgerFile(name) || isOwnRecord(name) {
				return nil, nil
			}
			f = f[2:]
		} else if len(f) != 5 {
			return nil, nil
		}
		n := make([]int64, len(f))
		for i, s := range f {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, nil
			}
			n[i] = v
		}
		if name == "" {
			tables[uint64(n[0])] = stamp{size: n[1], ino: n[2], mtime: n[3], ctime: n[4]}
			continue
		}
		if closed == nil {
			closed = map[string]stamp{}
		}
		closed[name] = stamp{size: n[0], ino: n[1], mtime: n[2], ctime: n[3]}
	}
	return tables, closed
}

// writeVerified replaces the record in dir with the stamps of tables, and
// of the files a clean close left if closed is not nil. It is only a
// shortcut for later opens: failing costs them time, not correctness, so
// its errors are dropped.
func writeVerified(dir string, tables map[uint64]stamp, closed map[string]stamp) {
	var b bytes.Buffer
	b.WriteString(verifiedHeader + "\n")
	for id, st := range tables {
		fmt.Fprintf(&b, "%d %d %d %d %d\n", id, st.size, st.ino, st.mtime, st.ctime)
	}
	for name, st := range closed {
		fmt.Fprintf(&b, "%s %s %d %d %d %d\n", closedLine, name, st.size, st.ino, st.mtime, st.ctime)
	}
	// The store is locked for writing: no other process writes the
	// temporary file, and one killed writing it left it to be replaced.
	tmp := filepath.Join(dir, verifiedFile+".tmp")
	if os.WriteFile(tmp, b.Bytes(), 0o600) != nil {
		os.Remove(tmp)
		return
	}
	if os.Rename(tmp, filepath.Join(dir, verifiedFile)) != nil {
		os.Remove(tmp)
	}
}
