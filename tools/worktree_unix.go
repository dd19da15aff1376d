//go:build unix

package tools

import (
	"io"
	"os"
	"syscall"
)

// diskReads says whether this platform reads files from the work tree.
const diskReads = true

// readRegular reads a file that must be a regular file of exactly size
// bytes. It follows no symlink in the last element and never blocks on a
// FIFO or device: such a file is not what the tree holds, and the caller
// unpacks the blob instead. (A symlinked parent directory can only lead to
// bytes that then fail the hash check.)
func readRegular(name string, size int64) ([]byte, bool) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != size {
		return nil, false
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, false
	}
	return data, true
}
