package toolmem

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"
)

// The errors of this package say what is wrong with the store and why,
// with the data a caller needs to advise; what to do about them (which
// flag, which command) is the command line's to say, since this package
// does not know how it was reached.

// ErrNoDir is Open's error for an empty directory name.
var ErrNoDir = errors.New("tool memory directory is empty")

// GitDirError is DefaultDir's error when dir has no git directory to keep
// the store in.
type GitDirError struct {
	Dir string // absolute
	// Reason is git's own words when it could not tell; empty when Dir
	// is simply not inside a git repository.
	Reason string
}

func (e *GitDirError) Error() string {
	if e.Reason == "" {
		return fmt.Sprintf("%s is not inside a git repository", e.Dir)
	}
	return fmt.Sprintf("cannot locate the git directory of %s (%s)", e.Dir, e.Reason)
}

// NotRepo reports whether Dir is not inside a git repository at all.
func (e *GitDirError) NotRepo() bool { return e.Reason == "" }

// AccessError is a store whose files this process may not read or write.
type AccessError struct {
	Dir    string
	Reason string // the system's words, e.g. "permission denied"
	cause  error
}

func (e *AccessError) Error() string {
	return fmt.Sprintf("cannot open tool memory at %s: %s", e.Dir, e.Reason)
}

func (e *AccessError) Unwrap() error { return e.cause }

// NotStoreError is a directory that holds files other than a store's: a
// mistyped directory must not become a database.
type NotStoreError struct {
	Dir   string
	Holds string // the first file found that is not the store's
}

func (e *NotStoreError) Error() string {
	return fmt.Sprintf("%s is not a tool memory directory (it holds %s)", e.Dir, e.Holds)
}

// ReadOnlyError is a store a writer cannot write: its directory is not
// writable by this process. A read-only Open still reads it.
type ReadOnlyError struct{ Dir string }

func (e *ReadOnlyError) Error() string {
	return fmt.Sprintf("tool memory at %s is read-only", e.Dir)
}

// LockedError is the error Open returns for a store held by another
// process after waiting for it; it matches ErrLocked.
type LockedError struct {
	Dir    string
	Waited time.Duration
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("tool memory at %s is in use by another review (waited %s)", e.Dir, e.Waited)
}

func (e *LockedError) Unwrap() error { return ErrLocked }

// DamagedError is a store, or one record in it, that cannot be read back
// as it was written; it matches ErrDamaged. The store was left as it was.
type DamagedError struct {
	Dir string
	// Record names the damaged record ("run X", "output REF", "step N of
	// run X"); empty when the store as a whole cannot be opened.
	Record string
	Reason string // why it cannot be read, in a few words
}

func (e *DamagedError) Error() string {
	if e.Record == "" {
		return fmt.Sprintf("tool memory at %s is damaged (%s); it was left as it is", e.Dir, e.Reason)
	}
	return fmt.Sprintf("%s in tool memory at %s is damaged (%s); the other records are readable", e.Record, e.Dir, e.Reason)
}

func (e *DamagedError) Unwrap() error { return ErrDamaged }

// NotFoundError is an unknown ref or run; it matches ErrNotFound.
type NotFoundError struct {
	Kind string // KindRef or KindRun
	ID   string // as asked for
}

// Kinds of NotFoundError.
const (
	KindRef = "ref"
	KindRun = "run"
)

func (e *NotFoundError) Error() string {
	if e.Kind == KindRun {
		return fmt.Sprintf("no run with ID %q", e.ID)
	}
	return fmt.Sprintf("no stored output with ref %q", e.ID)
}

func (e *NotFoundError) Unwrap() error { return ErrNotFound }

// DiskFullError is a write the file system had no room for, or that the
// store refused because too little space is left (MinFree to open,
// 32 MiB left by each write). What was written before it is intact: Badger's log is
// appended to, never rewritten.
type DiskFullError struct {
	Dir  string
	What string // what was being written, e.g. "writing output abc"; may be empty
	// Free and Need are the space left and the space the store asked for,
	// when it refused the write itself; zero when the file system did.
	Free, Need int64
	cause      error
}

func (e *DiskFullError) Error() string {
	where := "tool memory at " + e.Dir
	if e.What != "" {
		where = e.What + " in " + where
	}
	if e.Need > 0 {
		return fmt.Sprintf("%s: %s free on its file system, %s needed", where, MiB(e.Free), MiB(e.Need))
	}
	return where + ": no space left on the device"
}

func (e *DiskFullError) Unwrap() error { return e.cause }

// isDiskFull recognises a full file system. Badger flattens some of its
// errors to text, so the text is checked too.
func isDiskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || strings.Contains(err.Error(), "no space left on device")
}
