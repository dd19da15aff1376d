package toolmem

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/ristretto/v2/z"
	"github.com/reviewdev/review/internal/text"
)

// ErrDamaged reports a store, or a record in it, that cannot be read back as
// it was written: a file that fails its checksum, a missing MANIFEST, a
// value log cut short, a record that does not decode. A *DamagedError
// wraps it with what is damaged and why.
var ErrDamaged = errors.New("tool memory is damaged")

// damagedStore is the error of a store that cannot be opened.
func damagedStore(dir, format string, args ...any) error {
	return &DamagedError{Dir: dir, Reason: fmt.Sprintf(format, args...)}
}

// damagedRecord is the error of one record that cannot be read.
func (s *Store) damagedRecord(record string, err error) error {
	return &DamagedError{Dir: s.dir, Record: record, Reason: damageReason(err)}
}

// damageReason says in a few words why a value could not be read. Badger
// flattens its errors to text, so the text is all there is to go on.
func damageReason(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	msg := err.Error()
	switch {
	case errors.As(err, &syn), errors.As(err, &typ):
		return "not a valid record: " + text.FirstLine(err.Error())
	case errors.Is(err, errValueLost):
		return "its value in the value log is unreadable: damaged or cut short"
	case strings.Contains(msg, "checksum mismatch"):
		return "it fails its checksum"
	case strings.Contains(msg, "ErrEOF"), strings.Contains(msg, "Invalid read"):
		return "its value log ends before it"
	case strings.Contains(msg, "file with ID") && strings.Contains(msg, "not found"):
		return "its value log file is missing"
	}
	return text.FirstLine(err.Error())
}

// skip reports a record left out of a listing because it is damaged.
func (s *Store) skip(record string, err error) {
	if s.warn != nil {
		s.warn(&skippedError{record: record, why: damageReason(err)})
	}
}

// skippedError is what Options.Warn is told of a record left out.
type skippedError struct{ record, why string }

func (e *skippedError) Error() string {
	return fmt.Sprintf("skipped %s: it is damaged (%s)", e.record, e.why)
}

func (e *skippedError) Unwrap() error { return ErrDamaged }

// errNeedsRecovery reports a store that Badger cannot open read-only
// without first repairing what a killed process left: a write-ahead log to
// trim, tables to drop that no MANIFEST entry lists, files that hold
// nothing.
var errNeedsRecovery = errors.New("tool memory needs recovery")

// storeFiles are the files of a store, by kind.
type storeFiles struct {
	manifest bool
	tables   map[uint64]string
	data     int      // tables and logs, leftovers not counted
	wal      []string // write-ahead logs, leftovers included
	lastLog  string   // the newest value log
	rec      recovery // empty leftovers
}

// listFiles sorts the files of the store in dir; it fails only on a value
// log shorter than its header that is not a leftover.
func listFiles(dir string) (*storeFiles, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot read tool memory directory %s: %w", dir, err)
	}
	fs := &storeFiles{tables: map[uint64]string{}}
	lastFid := -1
	var short []string
	for _, e := range entries {
		name := e.Name()
		switch {
		case name == badger.ManifestFilename:
			fs.manifest = true
		case strings.HasSuffix(name, ".sst"):
			if id, ok := table.ParseFileID(name); ok {
				fs.tables[id] = name
			}
			fs.data++
		case strings.HasSuffix(name, ".mem"):
			fs.wal = append(fs.wal, name)
			if empty, err := leftover(filepath.Join(dir, name)); err != nil {
				return nil, err
			} else if empty {
				fs.rec.empty = append(fs.rec.empty, name)
			} else {
				fs.data++
			}
		case strings.HasSuffix(name, ".vlog"):
			if fid, err := strconv.Atoi(strings.TrimSuffix(name, ".vlog")); err == nil && fid > lastFid {
				fs.lastLog, lastFid = name, fid
			}
			// Every value log file starts with a 20-byte header;
			// Badger would take a shorter one for a new file.
			if info, err := e.Info(); err == nil && info.Size() < vlogHeaderSize {
				short = append(short, name)
			}
			fs.data++
		}
	}
	// Badger creates a value log with a higher number than any before
	// it, after the write-ahead log of the open: only the newest can be
	// one a killed process was creating, and only in a store that was not
	// closed (a store closed cleanly has no write-ahead log). Emptied in
	// a store closed cleanly, it is damage.
	if fs.lastLog != "" && len(fs.wal) > 0 {
		if empty, err := leftover(filepath.Join(dir, fs.lastLog)); err != nil {
			return nil, err
		} else if empty {
			fs.rec.empty = append(fs.rec.empty, fs.lastLog)
			fs.data--
		}
	}
	// Badger deletes a file by cutting it to nothing first, then
	// removing it: gc does so with a value log it rewrote. A process
	// killed in between leaves it empty, and always a write-ahead log.
	for _, name := range short {
		if slices.Contains(fs.rec.empty, name) {
			continue
		}
		info, _ := os.Stat(filepath.Join(dir, name))
		if sizeOf(info) == 0 && len(fs.wal) > 0 {
			fs.rec.empty = append(fs.rec.empty, name)
			fs.data--
			continue
		}
		return nil, damagedStore(dir, "value log %s is cut short (%d bytes)", name, sizeOf(info))
	}
	if err := fs.checkHeaders(dir); err != nil {
		return nil, err
	}
	return fs, nil
}

// checkHeaders checks the header of every log file of the store in dir that
// holds one: the first 8 bytes name the encryption key of the file, and
// review never encrypts, so they are zeros. Badger looks the key up when
// it opens each file, in the middle of an open that has already started
// a write-ahead log and deleted the value logs it found empty; a damaged
// header must stop the open before that. The 12 bytes after it are an
// initialisation vector that only encryption reads.
func (fs *storeFiles) checkHeaders(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("cannot read tool memory directory %s: %w", dir, err)
	}
	for _, e := range entries {
		name := e.Name()
		kind := "value log"
		switch {
		case strings.HasSuffix(name, ".mem"):
			kind = "write-ahead log"
		case !strings.HasSuffix(name, ".vlog"):
			continue
		}
		if slices.Contains(fs.rec.empty, name) {
			continue
		}
		key, err := headerKey(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if key != 0 {
			return damagedStore(dir, "%s %s has a damaged header", kind, name)
		}
	}
	return nil
}

// headerKey reads the encryption key ID from the header of the log file at
// path; 0 for a file shorter than its header, which listFiles judges.
func headerKey(path string) (uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("cannot read tool memory file %s: %w", path, err)
	}
	defer f.Close()
	var b [8]byte
	if _, err := io.ReadFull(f, b[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, nil
		}
		return 0, fmt.Errorf("cannot read tool memory file %s: %w", path, err)
	}
	return binary.BigEndian.Uint64(b[:]), nil
}

func sizeOf(info os.FileInfo) int64 {
	if info == nil {
		return 0
	}
	return info.Size()
}

// checkFiles looks at the files of the store in dir before Badger opens
// them, with the directory locked. Badger trusts its files: without a
// MANIFEST it starts an empty store and deletes the tables it does not know
// (even when opened read-only), and a damaged table panics in one of the
// goroutines that open tables, where no recover can reach. So checkFiles
// refuses a store whose MANIFEST is missing or unreadable, or whose tables
// are missing or fail their checksums, with an ErrDamaged error, changing
// nothing. Otherwise it returns what a killed process left: files that
// hold nothing (see leftover), and for a read-only open, which Badger
// cannot do while they are there, the logs to trim and the tables to drop
// that Badger's writable open would.
func checkFiles(dir string, bopts badger.Options, readOnly bool) (*recovery, error) {
	fs, err := listFiles(dir)
	if err != nil {
		return nil, err
	}
	rec := &fs.rec
	if !fs.manifest {
		if fs.data > 0 {
			return nil, damagedStore(dir, "its MANIFEST is missing, and without it the %d data files it holds cannot be read", fs.data)
		}
		return rec, nil // a new store, or one killed as it was created
	}

	m, err := replayManifest(filepath.Join(dir, badger.ManifestFilename), bopts)
	if err != nil {
		return nil, damagedStore(dir, "its MANIFEST cannot be read: %s", text.FirstLine(err.Error()))
	}
	if err := checkKeyRegistry(dir); err != nil {
		return nil, damagedStore(dir, "its KEYREGISTRY cannot be read: %s", err)
	}
	rec.prior = readRecord(dir)
	if err := checkTables(dir, m, fs.tables, bopts, rec); err != nil {
		return nil, err
	}
	// Badger reads write-ahead logs, and for a writable open the last
	// value log, up to their first damaged entry and trims the rest.
	for _, name := range fs.wal {
		if slices.Contains(rec.empty, name) {
			continue
		}
		path := filepath.Join(dir, name)
		end, err := scanLog(path)
		if err != nil {
			return nil, damagedStore(dir, "write-ahead log %s %s", name, err)
		}
		if readOnly {
			rec.trimLog(path, name, end)
		}
	}
	if !readOnly && fs.lastLog != "" && !slices.Contains(rec.empty, fs.lastLog) {
		if err := checkLog(filepath.Join(dir, fs.lastLog)); err != nil {
			return nil, damagedStore(dir, "value log %s %s", fs.lastLog, err)
		}
	}
	// Badger deletes the tables its MANIFEST does not list. A process
	// killed while writing tables leaves such tables, and always a
	// write-ahead log (a store closed cleanly has none): then they are its
	// unfinished work, and Badger's recovery is right to drop them.
	// Without a write-ahead log the MANIFEST has lost them.
	for id, name := range fs.tables {
		if _, ok := m.Tables[id]; ok {
			continue
		}
		// A writer killed as its close merged level 0 leaves tables
		// and no write-ahead log (mergingLine).
		if len(fs.wal) == 0 && !rec.prior.merging {
			return nil, damagedStore(dir, "its MANIFEST does not list table %s", name)
		}
		if readOnly {
			rec.tables = append(rec.tables, name)
		}
	}
	return rec, nil
}

// checkTables checks that every table m lists is among tables (by number)
// and reads whole each one that no earlier open recorded as checked, or
// whose file changed since (verifiedFile, as rec.prior holds it), noting
// in rec how many it read, the record to write if it changed, and the
// tables at level 0 and the tree's size.
func checkTables(dir string, m badger.Manifest, tables map[uint64]string, bopts badger.Options, rec *recovery) error {
	r := rec.prior
	known, now := r.tables, time.Now()
	verified := make(map[uint64]stamp, len(m.Tables))
	for id, tm := range m.Tables {
		name, ok := tables[id]
		if !ok {
			return damagedStore(dir, "table %s, listed in its MANIFEST, is missing", table.IDToFilename(id))
		}
		path := filepath.Join(dir, name)
		st, stamped := stampOf(path)
		if tm.Level == 0 {
			rec.level0++
		}
		if stamped {
			rec.tree += st.size
		} else if info, err := os.Stat(path); err == nil {
			rec.tree += info.Size()
		}
		if was, ok := known[id]; stamped && ok && was == st {
			verified[id] = st
			continue
		}
		if err := verifyTable(path, tm, bopts); err != nil {
			return damagedStore(dir, "table %s is unreadable: %s", name, err)
		}
		rec.checked++
		if stamped && st.settled(now) {
			verified[id] = st
		}
	}
	// A writable open rewrites the record if it changed, and without the
	// lines of the last clean close, which its own files are about to
	// change (closedLine), or the merging mark of a writer before it
	// (mergingLine), whose leftovers its open deletes.
	if !maps.Equal(known, verified) || r.closed != nil || r.merging {
		rec.verified = verified
	}
	return nil
}

// checkKeyRegistry reads the KEYREGISTRY of the store in dir, as Badger
// does when it opens the store, without changing it: Badger reports a
// damaged one in words of its reader alone ("EOF"). A store without one is
// Badger's to create.
func checkKeyRegistry(dir string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	kr, err := badger.OpenKeyRegistry(badger.KeyRegistryOptions{Dir: dir, ReadOnly: true})
	if err != nil {
		return errors.New(lastClause(err))
	}
	return kr.Close()
}

// replayManifest reads the MANIFEST at path without changing it.
func replayManifest(path string, bopts badger.Options) (m badger.Manifest, err error) {
	f, err := os.Open(path)
	if err != nil {
		return m, err
	}
	defer f.Close()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	m, _, err = badger.ReplayManifestFile(f, bopts.ExternalMagicVersion, bopts)
	return m, err
}

// verifyTable reads the table at path and checks the checksums of its
// index and of every block, recovering from the panics Badger's table code
// raises on some damage.
func verifyTable(path string, tm badger.TableManifest, bopts badger.Options) (err error) {
	if tm.KeyID != 0 {
		return nil // encrypted: review never writes such tables
	}
	mf, err := z.OpenMmapFile(path, os.O_RDONLY, 0)
	if err != nil {
		return errors.New(firstClause(err))
	}
	// OpenTable closes the file on some errors and not on others (nor on
	// a panic); closing it twice would unmap memory twice.
	closeFile := func() {
		if _, err := mf.Fd.Stat(); !errors.Is(err, os.ErrClosed) {
			_ = mf.Close(-1)
		}
	}
	defer func() {
		if r := recover(); r != nil {
			closeFile()
			err = errors.New("it does not parse as a table")
		}
	}()
	_, err = table.OpenTable(mf, table.Options{
		ReadOnly:    true,
		ChkMode:     options.OnTableRead,
		Compression: tm.Compression,
		BlockSize:   bopts.BlockSize,
	})
	closeFile()
	if err != nil {
		return errors.New(lastClause(err))
	}
	return nil
}

// isTruncateNeeded recognises Badger's refusal to open read-only a store
// whose write-ahead log needs trimming.
func isTruncateNeeded(err error) bool {
	return err != nil && strings.Contains(err.Error(), badger.ErrTruncateNeeded.Error())
}

// isDamage reports whether an error of badger.Open says that its files are
// damaged rather than, say, not readable by this user.
func isDamage(err error) bool {
	if errors.Is(err, os.ErrPermission) || errors.Is(err, os.ErrNotExist) {
		return false
	}
	s := strings.ToLower(err.Error())
	for _, w := range []string{"checksum", "corrupt", "manifest", "eof", "does not exist for table", "truncate", "level validation", "unable to read", "out of range", "key mismatch", "keyregistry", "datakey", "parse log id", "duplicate file"} {
		if strings.Contains(s, w) && !strings.Contains(s, "unsupported version") {
			return true
		}
	}
	return false
}

// firstLine is the first line of s.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// firstClause and lastClause pick from Badger's errors, which chain their
// causes as "context err: cause err: cause", the outermost and the
// innermost part.
func firstClause(err error) string {
	s, _, _ := strings.Cut(firstLine(err.Error()), " err: ")
	return s
}

func lastClause(err error) string {
	s := firstLine(err.Error())
	if i := strings.LastIndex(s, " err: "); i >= 0 {
		s = s[i+len(" err: "):]
	}
	return s
}

// errValueLost reports a value Badger could not read from the value log.
var errValueLost = errors.New("its value cannot be read from the value log")

// readValue calls f with the value of item. Badger only logs a failure to
// read a value from the value log (a checksum mismatch, a file cut short)
// and passes on no value at all; readValue returns errValueLost instead,
// telling such a value from an empty one by the size the key records.
func readValue(item *badger.Item, f func(v []byte) error) error {
	return item.Value(func(v []byte) error {
		if len(v) == 0 && item.ValueSize() > 0 {
			return errValueLost
		}
		return f(v)
	})
}

// vlogHeaderSize is the size of the header of a value log file.
const vlogHeaderSize = 20

// checkLog reads a log file (a write-ahead log or a value log) entry by
// entry, as Badger does when it opens a store, before it trims the file
// after the last entry it can read (and a value log further, to the end of
// the last whole transaction). A process killed while writing leaves one
// entry half written (Go copies large buffers header last, so even its
// header may be missing), then the zeros of the file's preallocated space:
// trimming those loses nothing. checkLog fails on evidence that trimming
// would lose entries: the unreadable entry has a header and a whole entry
// follows it, or the file does not end in zeros. A file closed cleanly is
// cut to its last entry, so unreadable bytes up to its end are damage, not
// a write cut short: Badger would trim a value log whose last entry is
// damaged to its header, with every entry of that entry's transaction.
func checkLog(path string) error {
	_, err := scanLog(path)
	return err
}

// scanLog checks the log file at path as checkLog does, and returns the
// offset Badger trims it to: the end of its last whole transaction.
func scanLog(path string) (trim int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := info.Size()
	r := bufio.NewReaderSize(f, 64<<10)
	if _, err := r.Discard(vlogHeaderSize); err != nil {
		return 0, errors.New("is cut short")
	}
	end := int64(vlogHeaderSize) // of the readable entries
	txn := txnEnd{end: end}
	for {
		e, ok := readLogEntry(r, size-end)
		if !ok {
			break
		}
		end += e.n
		txn.add(e, end)
	}
	if end >= size {
		return txn.end, nil
	}
	if _, err := f.Seek(end, io.SeekStart); err != nil {
		return 0, err
	}
	r.Reset(f)
	var h logHeader
	hlen, err := h.read(r, crc32.New(castagnoli))
	if err == nil && h.klen > 0 && h.klen <= maxKeyLen {
		next := end + int64(hlen) + int64(h.klen) + int64(h.vlen) + crc32.Size
		if next < size {
			if _, err := f.Seek(next, io.SeekStart); err != nil {
				return 0, err
			}
			r.Reset(f)
			if _, ok := readLogEntry(r, size-next); ok {
				return 0, fmt.Errorf("has a damaged entry at byte %d, and readable entries after it", end)
			}
		}
	}
	if zero, err := endsInZeros(f, size); err != nil {
		return 0, err
	} else if !zero {
		return 0, fmt.Errorf("has a damaged entry at byte %d, and the file ends after it without the unused space a killed write leaves", end)
	}
	return txn.end, nil
}

// tailZeros is how many bytes at the end of a log file endsInZeros reads:
// a file closed cleanly ends in its last entry's checksum and data.
const tailZeros = 16

// endsInZeros reports whether the last bytes of f (of size size) are zeros:
// the preallocated space a process killed while writing leaves.
func endsInZeros(f *os.File, size int64) (bool, error) {
	n := min(size, tailZeros)
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, size-n); err != nil {
		return false, err
	}
	for _, b := range buf {
		if b != 0 {
			return false, nil
		}
	}
	return true, nil
}

// checkValueLogs checks every value log file as checkLog does. Badger's
// value log GC rewrites a file by reading it up to its first damaged entry,
// then deletes it.
func (s *Store) checkValueLogs() error {
	logs, err := filepath.Glob(filepath.Join(s.dir, "*.vlog"))
	if err != nil {
		return err
	}
	for _, path := range logs {
		if err := checkLog(path); err != nil {
			return damagedStore(s.dir, "value log %s %s", filepath.Base(path), err)
		}
	}
	return nil
}

// maxKeyLen is the longest key Badger writes to a value log.
const maxKeyLen = 1 << 16

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// logHeader is the header of a value log entry: two bytes, then the key
// length, value length and expiry as uvarints.
type logHeader struct {
	meta       byte
	klen, vlen uint64
}

// read reads a header from r, also into sum, and returns its length.
func (h *logHeader) read(r *bufio.Reader, sum hash.Hash32) (int, error) {
	var b [2]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return 0, err
	}
	sum.Write(b[:])
	h.meta = b[0]
	n := 2
	var vals [3]uint64
	for i := range vals {
		v, err := binary.ReadUvarint(r)
		if err != nil {
			return 0, err
		}
		var enc [binary.MaxVarintLen64]byte
		k := binary.PutUvarint(enc[:], v)
		sum.Write(enc[:k])
		n += k
		vals[i] = v
	}
	h.klen, h.vlen = vals[0], vals[1]
	return n, nil
}

// logEntry is what scanLog needs of an entry: its length, and what Badger
// reads of it to find the end of the last whole transaction.
type logEntry struct {
	n    int64
	meta byte
	ts   uint64 // of a transaction's entry: its key's version
	fin  uint64 // of the entry that ends a transaction: its version
	zero bool   // no key: Badger stops there
}

// Badger's entry flags for transactions in its logs.
const (
	bitTxn    = 1 << 6
	bitFinTxn = 1 << 7
)

// readLogEntry reads one entry of a value log from r and checks it against
// its checksum; it reports whether the entry is whole.
func readLogEntry(r *bufio.Reader, left int64) (logEntry, bool) {
	sum := crc32.New(castagnoli)
	var h logHeader
	hlen, err := h.read(r, sum)
	if err != nil || h.klen > maxKeyLen || int64(hlen)+int64(h.klen)+int64(h.vlen)+crc32.Size > left {
		return logEntry{}, false
	}
	key := make([]byte, h.klen)
	if _, err := io.ReadFull(r, key); err != nil {
		return logEntry{}, false
	}
	sum.Write(key)
	var val []byte
	if h.meta&bitFinTxn != 0 && h.vlen <= 20 {
		val = make([]byte, h.vlen)
		if _, err := io.ReadFull(r, val); err != nil {
			return logEntry{}, false
		}
		sum.Write(val)
	} else if _, err := io.CopyN(sum, r, int64(h.vlen)); err != nil {
		return logEntry{}, false
	}
	var crc [crc32.Size]byte
	if _, err := io.ReadFull(r, crc[:]); err != nil || binary.BigEndian.Uint32(crc[:]) != sum.Sum32() {
		return logEntry{}, false
	}
	e := logEntry{n: int64(hlen) + int64(h.klen+h.vlen) + crc32.Size, meta: h.meta, zero: h.klen == 0}
	if len(key) > 8 {
		e.ts = math.MaxUint64 - binary.BigEndian.Uint64(key[len(key)-8:])
	}
	if h.meta&bitFinTxn != 0 {
		fin, err := strconv.ParseUint(string(val), 10, 64)
		if err != nil {
			e.fin = math.MaxUint64 // ends no transaction
		} else {
			e.fin = fin
		}
	}
	return e, true
}

// txnEnd follows the entries of a log as Badger does when it replays one,
// to find the end of the last whole transaction: Badger trims a log there.
type txnEnd struct {
	open uint64 // the version of the transaction begun, 0 if none
	end  int64  // of the last whole transaction
	done bool   // Badger stops reading here
}

// add follows the entry e, which ends at off.
func (t *txnEnd) add(e logEntry, off int64) {
	if t.done || e.zero {
		t.done = true
		return
	}
	switch {
	case e.meta&bitTxn != 0:
		if t.open == 0 {
			t.open = e.ts
		}
		t.done = t.open != e.ts
	case e.meta&bitFinTxn != 0:
		if e.fin != t.open {
			t.done = true
			return
		}
		t.open, t.end = 0, off
	default:
		if t.open != 0 {
			t.done = true
			return
		}
		t.end = off
	}
}
