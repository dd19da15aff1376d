//go:build unix

package tools

import (
	"syscall"
)

// diskReads says whether this platform reads files from the work tree.
const diskReads = true

// readRegular reads a file that must hold exactly size bytes into buf
// (grown as needed) and returns them. It follows no symlink in the last
// element and never blocks on a FIFO or device; whatever such a file
// holds, and whatever a symlinked parent directory leads to, fails the
// caller's hash check and the blob is unpacked instead. It makes three
// system calls, open, read and close, without the os package's poller
// registration and finalizer: on a 13,000-file search they are most of
// the time not spent matching.
func readRegular(name string, size int64, buf []byte) ([]byte, bool) {
	fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return buf, false
	}
	defer syscall.Close(fd)
	// One byte more than expected: a regular file that returns exactly
	// size bytes for size+1 asked has ended.
	want := int(size) + 1
	if cap(buf) < want {
		buf = make([]byte, want)
	}
	buf = buf[:want]
	n := 0
	for n < want {
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return buf[:0], false
		}
		if m == 0 {
			break
		}
		n += m
	}
	return buf[:n], n == int(size)
}
