//go:build unix

package toolmem

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// A fault in a memory map of Badger's, which is what a full disk is to a
// write through one (SIGBUS), is an error in guard, not a crash, and never
// damage.
func TestFaultIsNotDamage(t *testing.T) {
	// A file mapped, then cut short under the map: reading it faults
	// (SIGBUS), as writing through a map does on a full disk.
	path := filepath.Join(t.TempDir(), "mapped")
	if err := os.WriteFile(path, make([]byte, 8192), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := unix.Mmap(int(f.Fd()), 0, 8192, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Skipf("cannot map a file here: %v", err)
	}
	defer unix.Munmap(m)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	var b byte
	err = guard(filepath.Dir(path), func() error {
		b = m[4096]
		return nil
	})
	if err == nil || errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "memory map") {
		t.Errorf("a fault in guard = %v (read %d), want an error that says so and is not damage", err, b)
	}
}
