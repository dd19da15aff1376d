// Package toolmemtest opens tool memory for the tests of the packages
// above toolmem: a real Badger store on disk, in the test's temporary
// directory.
package toolmemtest

import (
	"path/filepath"
	"testing"

	"github.com/reviewdev/review/toolmem"
)

// Open opens a store in a new temporary directory; it is closed when tb
// ends, and a failure to close fails tb.
func Open(tb testing.TB) *toolmem.Store {
	tb.Helper()
	s, err := toolmem.Open(filepath.Join(tb.TempDir(), "store"), toolmem.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Error(err)
		}
	})
	return s
}
