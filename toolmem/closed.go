package toolmem

import (
	"maps"
	"os"
	"path/filepath"

	"github.com/dgraph-io/badger/v4/table"
)

// closedLine starts each line of verifiedFile that records a file a
// writer left as it closed the store cleanly, with its stamp. A writable
// open probes the store first (probe: a read-only Badger open and close,
// so that damage is found before the store changes); when every file is
// still the one that close left, none added, none gone, none written since,
// the probe would read what Badger itself just wrote and closed without
// error, and is skipped. checkFiles still runs: it replays the MANIFEST and
// reads whole every table no open has checked, those of the last close
// among them.
//
// The probe is what grows with a store's age: in one of 1,300 reviews (57
// MB, 37 tables, a MANIFEST of 72 KB) it took 29–40 ms of a review's
// start, where checkFiles took 17 ms.
//
// Every writer adds files (its write-ahead log, its value log) as it opens,
// so a writer killed at any point leaves files the record does not list,
// and the next writer probes; the lines are also dropped as a writer opens
// (checkTables). A file damaged in place without its stamp changing (the
// disk's own failure) is found as Badger reads it, as the tables are. The
// lines are in verifiedFile, not a file of their own, so that a build from
// before them still takes the directory for a store: it reads a record
// with lines it does not know as no record, and checks every table once.
const closedLine = "closed"

// storeStamps returns the stamps of the files of dir that Badger keeps, by
// name: false if one has no stamp (then no record can stand for them).
func storeStamps(dir string) (map[string]stamp, bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	m := map[string]stamp{}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || isOwnRecord(name) {
			continue
		}
		st, ok := stampOf(filepath.Join(dir, name))
		if !ok {
			return nil, false
		}
		m[name] = st
	}
	return m, true
}

// isOwnRecord reports whether name is a file the store keeps beside
// Badger's (its record, and Badger's LOCK, which every open touches).
func isOwnRecord(name string) bool {
	switch name {
	case "LOCK", verifiedFile, verifiedFile + ".tmp":
		return true
	}
	return false
}

// writeClosed records the files of dir as a clean close left them, beside
// the tables recorded as checked that are still there unchanged, and
// without the merging mark. Like the tables, it is only a shortcut:
// failing costs the next open a probe.
func writeClosed(dir string) {
	closed, ok := storeStamps(dir)
	if !ok {
		return
	}
	r := readRecord(dir)
	for id, st := range r.tables {
		if now, ok := closed[table.IDToFilename(id)]; !ok || now != st {
			delete(r.tables, id)
		}
	}
	r.closed, r.merging = closed, false
	_ = r.write(dir)
}

// closedCleanly reports whether the files of dir are those a clean close
// recorded (rec): the same names, each with the same stamp.
func closedCleanly(dir string, rec map[string]stamp) bool {
	if len(rec) == 0 {
		return false
	}
	now, ok := storeStamps(dir)
	return ok && maps.Equal(rec, now)
}

// mergingLine, a line of verifiedFile, marks a store whose writer is to
// merge level 0 as it closes (mergeOnClose). Badger merges it after it has
// written its memtable out and deleted its write-ahead log: a writer
// killed during that merge leaves tables the MANIFEST does not list and no
// write-ahead log, which is otherwise a MANIFEST that lost tables (damage,
// see checkFiles). With the mark they are the merge's unfinished work,
// which Badger's next writable open deletes. The mark is written and
// synced before the store opens, or the close does not merge; a clean
// close removes it (writeClosed). A build from before the mark reads the
// record as none, as it does the closed lines.
const mergingLine = "merging"
