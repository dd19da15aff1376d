package toolmem

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// GCStats says what GC dropped and the size of the store on disk before and
// after.
type GCStats struct {
	Runs, Outputs           int
	BytesBefore, BytesAfter int64
}

// GC drops the runs started before olderThan with their outputs, steps,
// events and conversations, and outputs of unrecorded runs created before
// olderThan, then reclaims their space on disk. Space in the value log file
// being written is reclaimed by a later GC, so GC soon after Open reclaims
// the most.
func (s *Store) GC(olderThan time.Time) (GCStats, error) {
	var st GCStats
	if s.readOnly {
		return st, s.errReadOnly()
	}
	if err := s.checkValueLogs(); err != nil {
		return st, err
	}
	before, err := diskUsage(s.dir)
	if err != nil {
		return st, err
	}
	st.BytesBefore = before

	runs := map[string]bool{} // run ID -> to drop
	var refs []Output
	err = s.view(func(txn *badger.Txn) error {
		prefix := []byte(nsRun)
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: true})
		for it.Seek(prefix); it.Valid(); it.Next() {
			// A run whose record is damaged has no known age: it is
			// kept, and so are its outputs.
			id := runIDOf(it.Item().Key())
			var r Run
			if err := readValue(it.Item(), func(v []byte) error { return decodeRun(v, &r) }); err != nil {
				s.skip("run "+id, err)
				runs[id] = false
				continue
			}
			runs[id] = r.Started.Before(olderThan)
		}
		it.Close()
		return s.scanMeta(txn, func(o Output) {
			drop, known := runs[o.Run]
			if drop || !known && o.Created.Before(olderThan) {
				refs = append(refs, o)
			}
		})
	})
	if err != nil {
		return st, s.errTxn("collecting old runs", err)
	}

	var prefixes [][]byte
	for id, drop := range runs {
		if !drop {
			continue
		}
		st.Runs++
		prefixes = append(prefixes, runKey(id), runningKey(id), settingsPrefix(id), stepsPrefix(id), eventsPrefix(id), convPrefix(id), turnsPrefix(id), indexPrefix(id))
	}
	for _, o := range refs {
		st.Outputs++
		prefixes = append(prefixes, metaKey(o.Ref), outputPrefix(o.Ref), indexKey(o.Run, o.Ref))
	}
	// Dropping and rewriting write tables and value logs before they
	// free anything.
	if err := checkRoom(s.dir, "collecting garbage", writeReserve+valueLogFileSize); err != nil {
		return st, err
	}
	if len(prefixes) > 0 {
		// DropPrefix, unlike deletes, flushes the memtable and compacts the
		// tables at once, which also tells the value log GC below what it
		// may discard.
		if err := guard(s.dir, func() error { return s.db.DropPrefix(prefixes...) }); err != nil {
			return st, s.errTxn("dropping old runs", err)
		}
	}
	if err := s.collectValueLog(); err != nil {
		return st, err
	}
	if err := restrictFiles(s.dir); err != nil {
		return st, err
	}
	if st.BytesAfter, err = diskUsage(s.dir); err != nil {
		return st, err
	}
	return st, nil
}

// collectValueLog rewrites value log files until none is worth it.
func (s *Store) collectValueLog() error {
	// Each call rewrites at most one file; the bound only guards against a
	// store that keeps finding work.
	for range 1000 {
		err := guard(s.dir, func() error { return s.db.RunValueLogGC(0.5) })
		if errors.Is(err, badger.ErrNoRewrite) || errors.Is(err, badger.ErrRejected) {
			return nil
		}
		if err != nil {
			return s.errTxn("collecting garbage", err)
		}
	}
	return nil
}

// diskUsage returns the bytes the files of dir take on disk.
func diskUsage(dir string) (int64, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("measuring tool memory at %s: %w", dir, err)
	}
	var total int64
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		if info.Mode().IsRegular() {
			total += allocated(info)
		}
	}
	return total, nil
}
