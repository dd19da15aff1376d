//go:build windows || plan9 || js || wasip1 || aix

package toolmem

import (
	"errors"
	"runtime"
)

// ownLock is false here: Badger locks the directory when it opens it, and
// Open recognises its lock errors (isLockError). Open's checks of the files
// then run before the lock is taken.
const ownLock = false

// badgerLocksReaders is false on Windows, where Badger cannot lock a
// directory for a reader: a read-only open there takes no lock at all.
const badgerLocksReaders = runtime.GOOS != "windows"

var errBusy = errors.New("tool memory directory is locked")

// lockDir does nothing here: Badger takes the lock.
func lockDir(string, bool) (func(), error) { return func() {}, nil }

// writable is left to Badger to find out here.
func writable(string) bool { return true }
