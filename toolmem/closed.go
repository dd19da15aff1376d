package toolmem

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// closedFile records the files a writer left as it closed the store
// cleanly, each with its stamp. A writable open probes the store first
// (probe: a read-only Badger open and close, so that damage is found before
// the store changes); when every file is still the one that close left,
// none added, none gone, none written since, the probe would read what
// Badger itself just wrote and closed without error, and is skipped.
// checkFiles still runs: it replays the MANIFEST and reads whole every
// table no open has checked, those of the last close among them.
//
// The probe is what grows with a store's age: in one of 1,300 reviews (57
// MB, 37 tables, a MANIFEST of 72 KB) it took 29–40 ms of a review's
// start, where checkFiles took 17 ms.
//
// Every writer adds files (its write-ahead log, its value log) as it opens,
// so a writer killed at any point leaves files the record does not list,
// and the next writer probes; the record is also removed as a writer opens.
// A file damaged in place without its stamp changing (the disk's own
// failure) is found as Badger reads it, as verifiedFile's tables are.
const closedFile = "CLOSED"

// closedHeader starts the record; any other start, or a record that does
// not parse, means the store was not closed cleanly.
const closedHeader = "review store closed cleanly v1"

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
// Badger's (its records, and Badger's LOCK, which every open touches).
func isOwnRecord(name string) bool {
	switch name {
	case "LOCK", verifiedFile, verifiedFile + ".tmp", closedFile, closedFile + ".tmp":
		return true
	}
	return false
}

// writeClosed records the files of dir as a clean close left them. Like
// writeVerified it is only a shortcut: failing costs the next open a
// probe, so its errors are dropped.
func writeClosed(dir string) {
	stamps, ok := storeStamps(dir)
	if !ok {
		return
	}
	var b bytes.Buffer
	b.WriteString(closedHeader + "\n")
	for name, st := range stamps {
		fmt.Fprintf(&b, "%s %d %d %d %d\n", name, st.size, st.ino, st.mtime, st.ctime)
	}
	tmp := filepath.Join(dir, closedFile+".tmp")
	if os.WriteFile(tmp, b.Bytes(), 0o600) != nil {
		os.Remove(tmp)
		return
	}
	if os.Rename(tmp, filepath.Join(dir, closedFile)) != nil {
		os.Remove(tmp)
	}
}

// readClosed returns the stamps recorded in dir, by name; nil when there
// is no record or it does not parse.
func readClosed(dir string) map[string]stamp {
	data, err := os.ReadFile(filepath.Join(dir, closedFile))
	if err != nil {
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	if !sc.Scan() || sc.Text() != closedHeader {
		return nil
	}
	m := map[string]stamp{}
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 5 || !isBadgerFile(f[0]) || isOwnRecord(f[0]) {
			return nil
		}
		var n [4]int64
		for i, s := range f[1:] {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil
			}
			n[i] = v
		}
		m[f[0]] = stamp{size: n[0], ino: n[1], mtime: n[2], ctime: n[3]}
	}
	return m
}

// closedCleanly reports whether the files of dir are those a clean close
// recorded: the same names, each with the same stamp.
func closedCleanly(dir string) bool {
	rec := readClosed(dir)
	if len(rec) == 0 {
		return false
	}
	now, ok := storeStamps(dir)
	return ok && maps.Equal(rec, now)
}

// forgetClosed removes the record of a clean close, as a writer opens.
func forgetClosed(dir string) { os.Remove(filepath.Join(dir, closedFile)) }
