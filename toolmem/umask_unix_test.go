//go:build unix

package toolmem

import (
	"syscall"
	"testing"
)

// withUmask runs the test under a umask that lets Badger create files
// readable by others, as most users' umask does.
func withUmask(t *testing.T, mask int) {
	old := syscall.Umask(mask)
	t.Cleanup(func() { syscall.Umask(old) })
}
