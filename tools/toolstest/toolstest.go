// Package toolstest gives the tests of the tools, and of the packages
// above them, the store the tools write their outputs to: a real Badger
// store on disk, in the test's temporary directory.
package toolstest

import (
	"path/filepath"
	"testing"

	"github.com/reviewdev/review/toolmem"
)

// Store opens a store in a new temporary directory; it is closed when tb
// ends, and a failure to close fails tb.
func Store(tb testing.TB) *toolmem.Store {
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
