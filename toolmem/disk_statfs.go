//go:build linux || darwin || freebsd || openbsd || dragonfly

package toolmem

import (
	"errors"
	"io/fs"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// freeSpace returns the bytes this process may still write on the file
// system of dir, or of its nearest parent that exists; false if it cannot
// tell.
func freeSpace(dir string) (int64, bool) {
	for d := dir; ; d = filepath.Dir(d) {
		var st unix.Statfs_t
		err := unix.Statfs(d, &st)
		if err == nil {
			return avail(&st), true
		}
		if !errors.Is(err, fs.ErrNotExist) || d == filepath.Dir(d) {
			return 0, false
		}
	}
}
