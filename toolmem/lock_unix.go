//go:build !windows && !plan9 && !js && !wasip1 && !aix

package toolmem

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// ownLock says that Open locks the directory itself (lockDir) and tells
// Badger not to: the lock must be held while Open checks the files, before
// Badger opens them.
const ownLock = true

// badgerLocksReaders does not matter here: Badger takes no lock.
const badgerLocksReaders = true

// errBusy reports a directory locked by another process.
var errBusy = errors.New("tool memory directory is locked")

// lockDir takes the lock Badger takes on its directory, flock(2) on the
// directory itself: shared for a reader, exclusive for a writer. Being the
// same lock, it also excludes other versions of review. It fails with
// errBusy at once if another process holds a conflicting lock.
func lockDir(dir string, shared bool) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot lock tool memory directory %s: %w", dir, err)
	}
	how := unix.LOCK_EX | unix.LOCK_NB
	if shared {
		how = unix.LOCK_SH | unix.LOCK_NB
	}
	if err := unix.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, errBusy
		}
		return nil, fmt.Errorf("cannot lock tool memory directory %s: %w", dir, err)
	}
	return func() { f.Close() }, nil
}

// writable reports whether this process may create files in dir.
func writable(dir string) bool {
	return unix.Access(dir, unix.W_OK) == nil
}
