package toolmem

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/table"
)

// Report is what Verify found: how much it read, and every record it could
// not read back as it was written.
type Report struct {
	Dir      string    `json:"store"`
	Records  int       `json:"records"`
	Runs     int       `json:"runs"`
	Steps    int       `json:"steps"`
	Outputs  int       `json:"outputs"`
	Bytes    int64     `json:"bytes"`
	Problems []Problem `json:"problems"`
	// Recovered says that opening the store recovered it from a killed
	// review first (see Open).
	Recovered bool `json:"recovered"`
	// Free is the space free on the store's file system in bytes, -1 if
	// it cannot be told. Below MinFree a review does not start.
	Free int64 `json:"free"`
}

// Problem is one damaged record.
type Problem struct {
	Record  string `json:"record"`  // "run X", "output REF", "step N of run X"...
	Problem string `json:"problem"` // why it cannot be read
}

// Verify reads every record of the store: each value, which Badger checks
// against its checksum, each run, step, output and event record decoded,
// each blob's chunks against the length it records, and every table whole:
// an open reads whole only the tables not recorded as checked
// (verifiedFile). Verify returns an error only if it cannot go on; damaged
// records are Problems of the Report.
func (s *Store) Verify() (Report, error) {
	rep := Report{Dir: s.dir, Problems: []Problem{}, Recovered: s.recovered, Free: -1}
	if free, ok := freeSpace(s.dir); ok {
		rep.Free = free
	}
	opts := s.db.Opts()
	if !opts.InMemory {
		for _, ti := range s.db.Tables() {
			path := table.NewFilename(ti.ID, opts.Dir)
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
				continue // merged away meanwhile
			}
			if err := verifyTable(path, badger.TableManifest{Compression: opts.Compression}, opts); err != nil {
				rep.Problems = append(rep.Problems, Problem{"table " + filepath.Base(path), damageReason(err)})
			}
		}
	}
	var blob *blobCheck
	endBlob := func() {
		if blob != nil {
			if err := blob.check(); err != nil {
				rep.Problems = append(rep.Problems, Problem{blob.record, damageReason(err)})
			}
			blob = nil
		}
	}
	err := s.view(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, PrefetchSize: 16})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			k := item.KeyCopy(nil)
			rep.Records++
			if blob != nil && !blob.holds(k) {
				endBlob()
			}
			err := readValue(item, func(v []byte) error {
				rep.Bytes += int64(len(v))
				return checkRecord(k, v, &rep, &blob)
			})
			if err != nil {
				if blob != nil && blob.holds(k) {
					if blob.bad {
						continue // one problem per blob, however many chunks are damaged
					}
					blob.bad = true
				}
				rep.Problems = append(rep.Problems, Problem{describeKey(k), damageReason(err)})
			}
		}
		return nil
	})
	endBlob()
	if err != nil {
		return rep, err
	}
	return rep, nil
}

// blobCheck follows the chunks of one blob as the keys go by.
type blobCheck struct {
	prefix []byte
	record string
	size   uint64 // as its header says
	got    uint64
	bad    bool // a chunk was unreadable, and is reported already
}

func (b *blobCheck) holds(k []byte) bool {
	return len(k) == len(b.prefix)+4 && bytes.HasPrefix(k, b.prefix)
}

func (b *blobCheck) check() error {
	if b.bad || b.got == b.size {
		return nil
	}
	return fmt.Errorf("only %d of its %d bytes are present", b.got, b.size)
}

// checkRecord decodes the value v of key k as the store wrote it, counts
// it in rep, and starts or feeds the check of a blob.
func checkRecord(k, v []byte, rep *Report, blob **blobCheck) error {
	if b := *blob; b != nil && b.holds(k) {
		b.got += uint64(len(v))
		return nil
	}
	if isBlobHeader(k) {
		if len(v) != 8 {
			return errors.New("its length header is damaged")
		}
		*blob = &blobCheck{prefix: append([]byte(nil), k...), record: describeKey(k), size: binary.BigEndian.Uint64(v)}
		return nil
	}
	switch string(k[:min(len(k), 2)]) {
	case nsRun:
		rep.Runs++
		var r Run
		return decodeRun(v, &r)
	case nsMeta:
		rep.Outputs++
		var o Output
		return json.Unmarshal(v, &o)
	case nsStep:
		rep.Steps++
		var rec stepRecord
		return json.Unmarshal(v, &rec)
	case nsEvent:
		if len(v) < 4 {
			return errors.New("shorter than its step number")
		}
		return nil
	case nsIndex, nsRunning:
		return nil
	case nsTurns:
		// t/<run>/ is the header; a message's key adds 4 bytes of its
		// number, which may hold any byte, '/' too.
		if len(k) < 5 || k[len(k)-5] != '/' {
			var h turnsHeader
			return json.Unmarshal(v, &h)
		}
		if !json.Valid(v) {
			return errors.New("not a valid message")
		}
		return nil
	}
	return errors.New("not a key this store writes")
}

// isBlobHeader reports whether k is the key of a blob's length header:
// o/<ref>/, s/<run>/<step>/q/ or a/, c/<run>/, p/<run>/.
func isBlobHeader(k []byte) bool {
	if len(k) < 3 || k[len(k)-1] != '/' {
		return false
	}
	switch string(k[:2]) {
	case nsOutput, nsConv, nsSettings:
		return bytes.Count(k, []byte("/")) == 2
	case nsStep:
		return bytes.HasSuffix(k, []byte("/q/")) || bytes.HasSuffix(k, []byte("/a/"))
	}
	return false
}

// describeKey names the record under key k for a person.
func describeKey(k []byte) string {
	ns, rest := string(k[:min(len(k), 2)]), k[min(len(k), 2):]
	id, tail, _ := bytes.Cut(rest, []byte("/"))
	switch ns {
	case nsRun:
		return "run " + string(id)
	case nsMeta:
		return "output " + string(id)
	case nsOutput:
		return "the data of output " + string(id)
	case nsIndex:
		return "an output of run " + string(id)
	case nsConv, nsTurns:
		return "the conversation of run " + string(id)
	case nsRunning:
		return "the running mark of run " + string(id)
	case nsSettings:
		return "the settings of run " + string(id)
	case nsEvent:
		if len(tail) == 4 {
			return fmt.Sprintf("event %d of run %s", binary.BigEndian.Uint32(tail), id)
		}
		return "an event of run " + string(id)
	case nsStep:
		if len(tail) >= 5 {
			step := fmt.Sprintf("step %d of run %s", binary.BigEndian.Uint32(tail), id)
			switch string(tail[5:min(len(tail), 7)]) {
			case "q/":
				return "the request of " + step
			case "a/":
				return "the response of " + step
			}
			return step
		}
		return "a step of run " + string(id)
	}
	return "key " + strconv.Quote(string(k))
}
