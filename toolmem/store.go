package toolmem

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"

	"github.com/reviewdev/review/internal/git"
	"github.com/reviewdev/review/internal/text"
)

// defaultLockWait is how long Open waits for another review to release the
// store when Options.LockWait is zero.
const defaultLockWait = 10 * time.Second

// ErrLocked reports that another process holds the store. Open's
// *LockedError wraps it with the directory and how long Open waited.
var ErrLocked = errors.New("tool memory is in use by another review")

// ErrNotFound reports an unknown ref or run. A *NotFoundError wraps it with
// the ID that was asked for.
var ErrNotFound = errors.New("not found in tool memory")

// Options tune Open. The zero value is ready to use.
type Options struct {
	// LockWait is how long Open retries while another process holds the
	// directory (10 seconds, defaultLockWait, if zero; no retry if
	// negative).
	LockWait time.Duration
	// errorLog receives Badger's error messages, one a line. Nil (what
	// Open is given) discards them: Badger never writes to the terminal
	// on its own.
	errorLog io.Writer
	// ReadOnly opens the store for reading only: nothing in the directory
	// is created or changed (see Open for the one exception), other
	// readers may use it at the same time, and a missing or empty
	// directory is an empty store.
	ReadOnly bool
	// Warn is told of each record left out of a listing because it is
	// damaged (an error wrapping ErrDamaged); nil leaves them out quietly.
	Warn func(error)
	// Snapshot, with ReadOnly, reads a store that a writer holds as the
	// writer has written it so far, instead of waiting for it: Open
	// copies what the writer has written and reads the copy (see
	// snapshot.go); Store.Snapshot then reports true. LockWait is not
	// used: a reader waits for nobody.
	Snapshot bool
}

// Store is an open tool memory. Its methods are safe for concurrent use.
type Store struct {
	db  *badger.DB
	dir string

	// readOnly refuses writes; rw says Badger opened the files for
	// writing: a writable store, or a read-only one Open had to recover.
	readOnly, rw, recovered bool
	unlock                  func()
	warn                    func(error)
	// copy is the directory of the copy a snapshot reads (see
	// openSnapshot), removed by Close; empty for the store itself.
	copy string

	// wmu serialises the writes that read before they write (ref
	// allocation in Put, sequence numbers in AddEvent), which Badger's
	// conflict detection cannot protect against phantoms.
	wmu sync.Mutex

	// memo is what this process wrote of run records, so that a record
	// written again writes only what changed (see memo); lmu guards it.
	lmu  sync.Mutex
	memo memo

	// syncs makes writes durable off the writer's path; started by the
	// first write.
	syncOnce sync.Once
	syncs    *syncer

	closeOnce sync.Once
	closeErr  error
}

// DefaultDir returns the default store directory of the repository at
// repoDir: <git common dir>/review, shared by all worktrees of the
// repository and never committed.
func DefaultDir(repoDir string) (string, error) {
	dir, err := git.Runner{Dir: repoDir}.CommonDir(context.Background())
	if err != nil {
		var gerr *git.Error
		if !errors.As(err, &gerr) {
			return "", err
		}
		if _, unsafe := gerr.Unsafe(); unsafe {
			return "", err // the fix is safe.directory, not another directory
		}
		where, _ := filepath.Abs(cmp.Or(repoDir, "."))
		msg := text.FirstLine(strings.TrimSpace(string(gerr.Stderr)))
		if strings.Contains(msg, "not a git repository") {
			return "", &GitDirError{Dir: where}
		}
		if msg == "" {
			msg = gerr.Err.Error()
		}
		return "", &GitDirError{Dir: where, Reason: strings.TrimPrefix(msg, "fatal: ")}
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(repoDir, dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("cannot locate the git directory of %s: %w", repoDir, err)
	}
	return filepath.Join(abs, "review"), nil
}

// valueLogFileSize is the size of a value log file. Badger starts one at
// every writable open, mapped at twice this size, and its first touch
// reads ahead up to 8 MB of zeroed pages: at 1 MiB a new store cost a
// small review 23.4–27.3 ms of CPU against 28.2–30.0 ms
// (BenchmarkSmallReview, three runs each beside other work; at 2 and
// 4 MiB, no less than at 16), but a file then holds about a megabyte of
// large outputs, and every open maps every file that holds a live value.
const valueLogFileSize = 16 << 20

// memTableSize is the size of a memtable, which also bounds a transaction
// (maxTxnBytes). Badger gives each memtable an arena of about this size and
// a write-ahead log file mapped at twice it, whose first touch this
// machine's read-ahead (up to 8 MB) fills with zeroed pages, so a smaller
// memtable makes a new store cheaper (BenchmarkSmallReview with
// TOOLMEM_TEST_OPTIONS=mem1); but at 1 MiB the process of a review of 40
// units side by side (issue 49's shape b at 32k) took more CPU than at
// 4 MiB, its memtables written out and merged more often: 1,092–1,316 ms
// against 1,032–1,067 ms (see docs/performance.md).
const memTableSize = 4 << 20

// maxTxnBytes is what Badger lets one transaction hold: 15% of a memtable.
// Values over valueThreshold count only by their key, so blobs of any size
// fit; values under it count whole.
const maxTxnBytes = memTableSize * 15 / 100

// valueThreshold is the size above which a value goes to the value log.
// Badger refuses more than 1 MiB, and a value must fit a transaction
// (maxTxnBytes): two values this size do, as a step's request and response
// under it (TestTransactionsFit).
const valueThreshold = 64 << 10

// badgerOptions returns the options of a small store: Badger's defaults are
// sized for databases of many gigabytes (1 GiB value log files mapped at
// twice that size, 64 MiB memtables, a 256 MiB block cache), a review store
// holds megabytes. See BenchmarkFootprint for what these choices cost.
func badgerOptions(dir string, errLog io.Writer) badger.Options {
	return badger.DefaultOptions(dir).
		WithLogger(errorLogger{errLog}).
		WithMetricsEnabled(false).
		// A memtable also bounds a transaction (maxTxnBytes); blobs go to
		// the value log, so transactions stay small whatever the output
		// size.
		WithMemTableSize(memTableSize).
		WithNumMemtables(2).
		// Badger merges level 0 into the levels below once it holds
		// this many tables, and a store closing waits for a merge under
		// way. At 2, the table a long review's close flushed out was
		// the second, and the close waited for the merge it started:
		// 243 ms of a 40-file review's end (issue 49's shape (b) at
		// 16k). One under l0Tables: a short process that opens the
		// store with this many merges them as it closes (mergeOnClose).
		WithNumLevelZeroTables(levelZeroTables).
		WithNumLevelZeroTablesStall(2 * l0Tables).
		WithBaseTableSize(1 << 20).
		WithBaseLevelSize(4 << 20).
		WithNumCompactors(2).
		WithNumGoroutines(2).
		// Value log files are mapped at twice this size while written.
		WithValueLogFileSize(valueLogFileSize).
		// Values above this go to the value log, the rest stays in the
		// LSM tree. Badger starts a new value log file at every open and
		// keeps every file that holds a live value: with a threshold
		// that a 3-line review's records passed (its first request
		// alone is 9 KB), every review left a file that every later
		// open maps, and a store of 300 reviews took 80 ms more to
		// open. Under this threshold a review of ordinary size writes
		// nothing there, and its empty file is deleted by the next open;
		// large outputs still go to the value log, where they are read
		// in place. valueThreshold's doc gives the bounds.
		WithValueThreshold(valueThreshold).
		// Without compression or encryption Badger needs no block cache;
		// the data is text that the OS page cache serves well.
		WithCompression(options.None).
		WithBlockCacheSize(0).
		WithIndexCacheSize(0)
}

// Open opens the store in dir, creating it if needed. If another process
// holds it, Open retries for opts.LockWait and then returns an error that
// wraps ErrLocked.
//
// Open checks the store's files before Badger reads them and fails with an
// error wrapping ErrDamaged, changing nothing, if its MANIFEST is missing or
// unreadable, a table fails its checksums or a log's header is damaged; a
// writable Open opens the store read-only first, so that any damage Badger
// finds is found before anything is changed. Values are checked against
// their checksums as they are read.
//
// With opts.ReadOnly, Open changes nothing in dir, with one exception: a
// store left by a process killed while writing must be recovered before
// Badger can read it (its write-ahead log trimmed of the unused space after
// the last whole transaction, tables no MANIFEST entry lists dropped, logs
// created or deleted but not finished removed). Open then recovers it as a
// writable open would, waiting for the exclusive lock, if nothing but
// unused space is lost; it is still read-only to the caller.
//
// A writable Open fails with a *DiskFullError if less than MinFree is free
// on the store's file system.
func Open(dir string, opts Options) (*Store, error) {
	return open(dir, opts, badgerOptions)
}

// open is Open with the Badger options of choice.
func open(dir string, opts Options, badgerOpts func(dir string, errLog io.Writer) badger.Options) (*Store, error) {
	if dir == "" {
		return nil, ErrNoDir
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("tool memory directory %s: %w", dir, err)
	}
	dir = abs
	if opts.ReadOnly {
		empty, err := checkDir(dir)
		if err != nil {
			return nil, err
		}
		if empty {
			return openEmpty(dir, opts)
		}
	} else {
		if err := checkRoom(dir, "", MinFree); err != nil {
			return nil, err
		}
		if err := prepareDir(dir); err != nil {
			return nil, err
		}
	}
	wait := opts.LockWait
	if wait == 0 {
		wait = defaultLockWait
	}
	if opts.ReadOnly && opts.Snapshot {
		wait = -1
	}
	bopts := badgerOpts(dir, opts.errorLog).
		// Tables are checked whole before Badger opens them (checkFiles),
		// then each block as it is read; values in the value log are
		// checked as they are read.
		WithChecksumVerificationMode(options.OnBlockRead).
		WithVerifyValueChecksum(true)

	s, err := openLocked(dir, bopts, opts.ReadOnly, false, wait)
	if opts.ReadOnly && errors.Is(err, errNeedsRecovery) {
		// Recover what a killed process left, as a writable open
		// would, with the store locked for writing; then read it.
		s, err = openLocked(dir, bopts, true, true, wait)
		if errors.Is(err, errNeedsRecovery) {
			// Badger still finds something to trim: its own recovery.
			s, err = openLocked(dir, bopts, false, false, wait)
		}
		if err == nil {
			s.readOnly, s.recovered = true, true
		}
	}
	if opts.ReadOnly && opts.Snapshot && errors.Is(err, ErrLocked) {
		return openSnapshot(dir, opts)
	}
	if err != nil {
		return nil, err
	}
	s.warn = opts.Warn
	if s.rw && !s.readOnly {
		if err := restrictFiles(dir); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// openLocked locks dir (waiting up to wait for another process), checks its
// files and opens it with Badger, read-only or not. A read-only open that
// recovers takes the lock of a writer, and recovers the store first.
func openLocked(dir string, bopts badger.Options, readOnly, recover bool, wait time.Duration) (*Store, error) {
	bopts = bopts.WithReadOnly(readOnly).
		WithBypassLockGuard(ownLock || readOnly && !badgerLocksReaders)
	deadline := time.Now().Add(wait)
	delay := 20 * time.Millisecond
	for {
		db, unlock, err := lockAndOpen(dir, bopts, readOnly, recover)
		if err == nil {
			return &Store{db: db, dir: dir, readOnly: readOnly, rw: !readOnly, unlock: unlock}, nil
		}
		if !errors.Is(err, errBusy) && !isLockError(err) {
			return nil, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, &LockedError{Dir: dir, Waited: max(wait, 0)}
		}
		time.Sleep(min(delay, left))
		delay = min(2*delay, 250*time.Millisecond)
	}
}

// lockAndOpen is one attempt of openLocked.
func lockAndOpen(dir string, bopts badger.Options, readOnly, recover bool) (*badger.DB, func(), error) {
	unlock, err := lockDir(dir, readOnly && !recover)
	if err != nil {
		return nil, nil, err
	}
	db, err := openBadger(dir, bopts, readOnly, recover)
	if err != nil {
		unlock()
		return nil, nil, err
	}
	return db, unlock, nil
}

// openBadger checks the files of dir and opens them with Badger. It turns
// Badger's panics and its errors about damaged files into ErrDamaged
// errors. What a killed process left (see recovery) is recovered first by
// a writable open, and by a read-only one that recovers; another read-only
// open returns errNeedsRecovery.
func openBadger(dir string, bopts badger.Options, readOnly, recover bool) (db *badger.DB, err error) {
	rec, err := checkFiles(dir, bopts, readOnly)
	if err != nil {
		return nil, err
	}
	if readOnly && !recover && rec.needed() {
		return nil, errNeedsRecovery
	}
	if !readOnly || recover {
		// A store as a clean close left it needs no probe (closedLine).
		if rec.needed() || !closedCleanly(dir, rec.prior.closed) {
			if err := probe(dir, bopts, rec.needed()); err != nil {
				return nil, err
			}
		}
	}
	if err := rec.apply(dir); err != nil {
		return nil, err
	}
	if !readOnly {
		if err := restrictDir(dir); err != nil {
			return nil, err
		}
	}
	// The record a writable open leaves: the tables it checked, and the
	// mark of a close that merges level 0, written before it opens.
	var r record
	if !readOnly {
		r = record{tables: rec.verified}
		if r.tables == nil {
			r.tables = rec.prior.tables
		}
		if mergeOnClose(dir, rec) {
			r.merging = true
			if r.write(dir) != nil {
				r.merging = false
			}
		}
		bopts = bopts.WithCompactL0OnClose(r.merging)
	}
	err = guard(dir, func() error {
		var err error
		db, err = badger.Open(bopts)
		return err
	})
	if err == nil {
		// Only a writable open records the tables it checked: a
		// read-only one changes nothing, and a failed one neither.
		if !readOnly && rec.verified != nil && !r.merging {
			_ = r.write(dir)
		}
		return db, nil
	}
	return nil, openError(dir, err, readOnly)
}

// probe opens the store in dir read-only and closes it, before an open
// that changes it: Badger's writable open changes the store before it has
// read all of it (it starts a write-ahead log, deletes the value logs it
// finds empty, starts compactions), and so does the recovery of a store a
// killed writer left (recovery), so damage that checkFiles does not know
// of would be found only after the store was changed. A read-only open
// reads the same files and changes nothing. On a store of a hundred
// reviews it took 1.6 ms, against 61 ms for the writable open and close it
// precedes (go test -bench Open ./toolmem, 2 shared cores).
//
// Badger cannot open read-only a store a killed writer left (its logs
// have unused space after their last whole transaction, or it holds
// files that hold nothing: leftovers): then probe opens a copy of it,
// trimmed as the recovery will trim the store (copyStore, as a snapshot is
// taken), which costs the store's size in the temporary directory once
// after a kill. If the copy cannot be made, the open goes on unprobed,
// as it did before probes.
func probe(dir string, bopts badger.Options, leftovers bool) error {
	if _, err := os.Stat(filepath.Join(dir, badger.ManifestFilename)); errors.Is(err, fs.ErrNotExist) {
		return nil // a new store: checkFiles refused data files without it
	}
	if !leftovers {
		err := probeAt(dir, bopts)
		if !isTruncateNeeded(err) {
			return err
		}
	}
	tmp, err := os.MkdirTemp("", "review-probe-")
	if err != nil {
		return nil
	}
	defer os.RemoveAll(tmp)
	if err := copyStore(dir, tmp, false); err != nil {
		if errors.Is(err, ErrDamaged) {
			return err
		}
		return nil
	}
	err = probeAt(tmp, bopts.WithDir(tmp).WithValueDir(tmp))
	if isTruncateNeeded(err) {
		return nil // Badger trims more than the recovery: its own open will
	}
	var de *DamagedError
	if errors.As(err, &de) {
		de.Dir = dir // the store's damage, found in its copy
	}
	return err
}

// probeAt is one read-only open and close of the store in dir, with the
// error an open would return; a truncation Badger needs is returned as
// it is.
func probeAt(dir string, bopts badger.Options) error {
	probes.Add(1)
	var db *badger.DB
	err := guard(dir, func() error {
		var err error
		db, err = badger.Open(bopts.WithReadOnly(true).WithBypassLockGuard(true))
		return err
	})
	if err == nil {
		return guard(dir, db.Close)
	}
	if isTruncateNeeded(err) {
		return err
	}
	return openError(dir, err, false)
}

// probes counts the probes made (probeAt), for tests.
var probes atomic.Int64

// openError is the error of a failed badger.Open of the store in dir.
func openError(dir string, err error, readOnly bool) error {
	switch {
	case errors.Is(err, ErrDamaged), isLockError(err):
		return err
	case readOnly && isTruncateNeeded(err):
		// checkFiles found nothing but unused space to trim.
		return errNeedsRecovery
	case errors.Is(err, os.ErrPermission):
		return &AccessError{Dir: dir, Reason: lastClause(err), cause: err}
	case isDiskFull(err):
		// Badger's words for it may hold "truncate" or "manifest".
		return &DiskFullError{Dir: dir, What: "opening it", cause: err}
	case isDamage(err):
		return damagedStore(dir, "%s", lastClause(err))
	}
	return fmt.Errorf("cannot open tool memory at %s: %s", dir, text.FirstLine(err.Error()))
}

// openEmpty returns the empty, read-only store of a directory that holds
// none: in memory, so that reading it creates nothing.
func openEmpty(dir string, opts Options) (*Store, error) {
	db, err := badger.Open(badger.DefaultOptions("").
		WithInMemory(true).
		WithLogger(errorLogger{opts.errorLog}).
		WithMetricsEnabled(false).
		WithMemTableSize(1 << 20).
		WithValueThreshold(valueThreshold).
		WithCompression(options.None).
		WithBlockCacheSize(0).
		WithIndexCacheSize(0))
	if err != nil {
		return nil, fmt.Errorf("cannot open tool memory at %s: %s", dir, text.FirstLine(err.Error()))
	}
	return &Store{db: db, dir: dir, readOnly: true, warn: opts.Warn, unlock: func() {}}, nil
}

// guard runs f, turning a panic into an ErrDamaged error: Badger panics on
// some damage it finds, and that must end in a message, not a stack trace.
// A fault in a memory map of Badger's (a write on a full file system,
// which would end the process with SIGBUS) panics too while f runs in
// this goroutine, and is a *DiskFullError, not damage.
func guard(dir string, f func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if err = faultError(dir, r); err == nil {
				err = damagedStore(dir, "reading it failed: %s", firstLine(fmt.Sprint(r)))
			}
		}
	}()
	return f()
}

// view and update are db.View and db.Update behind guard; update refuses a
// read-only store.
func (s *Store) view(f func(*badger.Txn) error) error {
	return guard(s.dir, func() error { return s.db.View(f) })
}

func (s *Store) update(f func(*badger.Txn) error) error {
	return s.updateSized(0, f)
}

// updateSized is update for a write of about n bytes: it is refused if the
// file system would be left with less than writeReserve free.
func (s *Store) updateSized(n int64, f func(*badger.Txn) error) error {
	if s.readOnly {
		return s.errReadOnly()
	}
	if err := checkRoom(s.dir, "", writeReserve+n); err != nil {
		return err
	}
	return guard(s.dir, func() error { return s.db.Update(f) })
}

// errReadOnly is the error of a write to a read-only store: a mistake of
// the caller, which opened it read-only.
func (s *Store) errReadOnly() error {
	return fmt.Errorf("tool memory at %s is open read-only", s.dir)
}

// ReadOnly reports whether the store was opened read-only.
func (s *Store) ReadOnly() bool { return s.readOnly }

// Snapshot reports whether the store is read through a copy, taken as
// Open opened it, because a writer holds it (see Options.Snapshot): its
// runs recorded as running are running.
func (s *Store) Snapshot() bool { return s.copy != "" }

// checkDir checks the directory of a store to be opened read-only: it
// reports whether there is no store there yet (no directory, or one without
// a MANIFEST or data files), and refuses a directory that holds anything
// but a store.
func checkDir(dir string) (empty bool, err error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("cannot read tool memory directory %s: %w", dir, err)
	}
	empty = true
	for _, e := range entries {
		name := e.Name()
		if !isBadgerFile(name) {
			return false, notStoreError(dir, name)
		}
		switch filepath.Ext(name) {
		case ".sst", ".vlog", ".mem":
			empty = false
		}
		if name == badger.ManifestFilename {
			empty = false
		}
	}
	return empty, nil
}

func notStoreError(dir, name string) error {
	return &NotStoreError{Dir: dir, Holds: name}
}

// prepareDir creates dir 0700, or checks that an existing dir is a store (or
// empty): a mistyped --store must not turn a directory of the user's into
// a database. openBadger then takes away the permissions of group and
// others (restrictDir). Neither ever adds a permission: a store made
// read-only stays read-only, and a writable open of it fails with a
// message that says so.
func prepareDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot create tool memory directory %s: %w", dir, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("cannot read tool memory directory %s: %w", dir, err)
	}
	for _, e := range entries {
		if !isBadgerFile(e.Name()) {
			return notStoreError(dir, e.Name())
		}
	}
	if !writable(dir) {
		return &ReadOnlyError{Dir: dir}
	}
	return nil
}

// restrictDir takes the permissions of group and others away from dir,
// once its files are checked (a damaged store is left as it is) and before
// Badger creates any.
func restrictDir(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("cannot read tool memory directory %s: %w", dir, err)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		if err := os.Chmod(dir, perm&^0o077); err != nil {
			return fmt.Errorf("cannot restrict tool memory directory %s to its owner: %w", dir, err)
		}
	}
	return nil
}

// isBadgerFile reports whether name is one of the files Badger keeps in its
// directory, or the store's record of the tables it checked and of its
// last clean close (verifiedFile).
func isBadgerFile(name string) bool {
	switch name {
	case "LOCK", "MANIFEST", "MANIFEST-REWRITE", "KEYREGISTRY", "REWRITE-KEYREGISTRY", "DISCARD",
		verifiedFile, verifiedFile + ".tmp":
		return true
	}
	switch filepath.Ext(name) {
	case ".vlog", ".sst", ".mem":
		return true
	}
	return false
}

// restrictFiles takes the permissions of group and others away from the
// files of the store (0600 as Badger creates them, 0666 minus the umask).
// Files it creates while open are protected by the 0700 directory and are
// tightened on Close. Like prepareDir, it never adds a permission.
func restrictFiles(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("cannot read tool memory directory %s: %w", dir, err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed by a compaction meanwhile
		}
		if err != nil {
			return fmt.Errorf("cannot restrict tool memory files: %w", err)
		}
		perm := info.Mode().Perm()
		if perm&0o077 == 0 {
			continue
		}
		err = os.Chmod(filepath.Join(dir, e.Name()), perm&^0o077)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cannot restrict tool memory files: %w", err)
		}
	}
	return nil
}

// isLockError recognises Badger's failure to flock the directory. Badger
// flattens the error to text, so the text is all there is to go on.
func isLockError(err error) bool {
	s := err.Error()
	return strings.Contains(s, "Another process is using this Badger database") ||
		strings.Contains(s, "Cannot acquire directory lock")
}

// Close flushes and closes the store. It is safe to call more than once.
// Badger writes its memtable out as a level-0 table as it closes, a few
// milliseconds of a small review's end; a store left with records in its
// write-ahead log instead is what a killed writer leaves, which Badger
// cannot open read-only: the next reader would recover it first and the
// next writer probe a copy of it (see recovery and probe).
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		if s.copy != "" {
			defer os.RemoveAll(s.copy)
		}
		defer s.unlock()
		var serr error
		if s.syncs != nil {
			serr = s.syncs.stop()
		}
		err := cmp.Or(guard(s.dir, s.db.Close), serr)
		if err != nil {
			if !errors.Is(err, ErrDamaged) {
				err = fmt.Errorf("closing tool memory at %s: %s", s.dir, text.FirstLine(err.Error()))
			}
			s.closeErr = err
			return
		}
		if s.rw && s.copy == "" {
			s.closeErr = restrictFiles(s.dir)
			if s.closeErr == nil {
				writeClosed(s.dir)
			}
		}
	})
	return s.closeErr
}

// levelZeroTables is how many tables at level 0 Badger's own compactions
// merge from (see badgerOptions). A test that needs merges to come soon
// lowers it in the process it starts.
var levelZeroTables = l0Tables - 1

// l0Tables is how many tables at Badger's level 0 a closing store merges
// into the levels below. Each open ends with a level-0 table (the
// memtable, flushed at close).
const l0Tables = 6

// mergeOnClose reports whether a writable open of the store in dir, as
// checkFiles found it (rec), should merge level 0 as it closes: when the
// table its close writes there makes l0Tables. Badger merges level 0 in
// its own compactions, which start up to a second after an open, too late
// for a short process (`review tool` in a loop, a review stopped at once);
// 100 `review tool` calls in a row left 100 tables, and every later open
// and read went through each. Badger's CompactL0OnClose
// merges level 0, once its close has written its own table there, into
// the level below it that the tree's size calls for, and rewrites only
// the tables of that level: in a store of 1,300 reviews (57 MB) that level
// holds a tenth of the tree. (Badger's Flatten, which the close used
// before, rewrote the whole tree every sixth short process: 0.84–0.94 s
// and a peak of 195 MiB for a review's start in that store.) The merge
// writes new tables before it deletes the old, so it is left for a process
// with room on the disk for the whole tree, which bounds any level.
func mergeOnClose(dir string, rec *recovery) bool {
	if rec == nil || rec.level0+1 < l0Tables {
		return false
	}
	if free, ok := freeSpace(dir); ok && free < writeReserve+rec.tree {
		return false
	}
	return true
}

// Dir returns the absolute directory of the store.
func (s *Store) Dir() string { return s.dir }

// sync makes everything written so far durable, soon. Badger's log
// already survives a killed process; syncing guards run records against
// a crash of the machine. An msync costs a millisecond or more, and each
// leaves the pages it wrote out read-only, so that the next write to each
// faults again; a step writes several records, and units side by side
// write all the time: the writes return at once, and a goroutine syncs
// what they wrote, at most once every syncEvery, as many writes as came in
// meanwhile at a time. Close syncs what is left at once. A sync that
// failed fails the next write, and Close.
func (s *Store) sync() error {
	s.syncOnce.Do(func() { s.syncs = startSyncer(func() error { return guard(s.dir, s.db.Sync) }, syncEvery) })
	if err := s.syncs.request(); err != nil {
		if isDiskFull(err) {
			return &DiskFullError{Dir: s.dir, What: "syncing the writes", cause: err}
		}
		return fmt.Errorf("syncing tool memory at %s: %s", s.dir, text.FirstLine(err.Error()))
	}
	return nil
}

// syncEvery is the least time between the starts of two syncs: a run
// record reaches the disk at most this long, and a sync's time, after it
// was written (see Durability in doc.go).
const syncEvery = 200 * time.Millisecond

// syncer runs a store's syncs in the background.
type syncer struct {
	kick  chan struct{} // buffered: one sync pending at most
	done  chan struct{}
	hurry chan struct{} // closed by stop: the pending sync runs at once
	every time.Duration

	mu     sync.Mutex
	err    error // the first failure
	closed bool
}

func startSyncer(sync func() error, every time.Duration) *syncer {
	y := &syncer{kick: make(chan struct{}, 1), done: make(chan struct{}), hurry: make(chan struct{}), every: every}
	go y.run(sync)
	return y
}

// run makes a sync for each kick, the first at once and each other no
// sooner than every after the start of the one before it, unless stop
// hurries it.
func (y *syncer) run(sync func() error) {
	defer close(y.done)
	var last time.Time
	var timer *time.Timer
	for range y.kick {
		if wait := y.every - time.Since(last); !last.IsZero() && wait > 0 {
			if timer == nil {
				timer = time.NewTimer(wait)
			} else {
				timer.Reset(wait)
			}
			select {
			case <-timer.C:
			case <-y.hurry:
				timer.Stop()
			}
		}
		// The sync covers every write made before it starts, and so the
		// kicks of writes made while it waited.
		stopped := false
		select {
		case _, ok := <-y.kick:
			stopped = !ok
		default:
		}
		last = time.Now()
		if err := sync(); err != nil {
			y.mu.Lock()
			y.err = cmp.Or(y.err, err)
			y.mu.Unlock()
		}
		if stopped {
			return
		}
	}
}

// request asks for a sync after the writes made so far, and returns the
// failure of an earlier one.
func (y *syncer) request() error {
	y.mu.Lock()
	defer y.mu.Unlock()
	if !y.closed {
		select {
		case y.kick <- struct{}{}:
		default: // one is pending, and will cover these writes too
		}
	}
	return y.err
}

// stop makes the pending sync at once, waits for it and returns the first
// failure.
func (y *syncer) stop() error {
	y.mu.Lock()
	if !y.closed {
		y.closed = true
		close(y.hurry)
		close(y.kick)
	}
	y.mu.Unlock()
	<-y.done
	y.mu.Lock()
	defer y.mu.Unlock()
	if y.err != nil {
		return fmt.Errorf("syncing tool memory: %s", text.FirstLine(y.err.Error()))
	}
	return nil
}

// notFoundError is an ErrNotFound of a kind NotFoundError does not name.
type notFoundError struct{ msg string }

func (e *notFoundError) Error() string { return e.msg }
func (e *notFoundError) Unwrap() error { return ErrNotFound }

func refNotFound(ref string) error { return &NotFoundError{Kind: KindRef, ID: ref} }

func runNotFound(id string) error { return &NotFoundError{Kind: KindRun, ID: id} }

// errorLogger passes Badger's errors to a writer and drops everything else.
type errorLogger struct{ w io.Writer }

func (l errorLogger) Errorf(format string, args ...any) {
	if l.w == nil {
		return
	}
	msg := strings.TrimRight(fmt.Sprintf(format, args...), "\n")
	fmt.Fprintf(l.w, "tool memory: %s\n", msg)
}

func (errorLogger) Warningf(string, ...any) {}
func (errorLogger) Infof(string, ...any)    {}
func (errorLogger) Debugf(string, ...any)   {}

// errTxn wraps an error from a read or write of the store, keeping errors
// of this package (not found, bad input) as they are.
func (s *Store) errTxn(what string, err error) error {
	var in *inputError
	var dm *DamagedError
	var full *DiskFullError
	if errors.As(err, &full) && full.What == "" {
		named := *full
		named.What = what
		return &named
	}
	if errors.Is(err, ErrNotFound) || errors.As(err, &in) || errors.As(err, &dm) || errors.As(err, &full) {
		return err
	}
	if isDiskFull(err) {
		return &DiskFullError{Dir: s.dir, What: what, cause: err}
	}
	if strings.ContainsRune(strings.TrimSpace(err.Error()), '\n') {
		return fmt.Errorf("%s in tool memory at %s: %s", what, s.dir, text.FirstLine(err.Error()))
	}
	return fmt.Errorf("%s in tool memory at %s: %w", what, s.dir, err)
}

// inputError is a caller's mistake (bad ID, bad line number, bad regular
// expression), reported as it is.
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

func inputErrorf(format string, args ...any) error {
	return &inputError{fmt.Sprintf(format, args...)}
}
