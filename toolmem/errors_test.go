package toolmem

import (
	"errors"
	"fmt"
	"syscall"
	"testing"
)

// A full file system is a DiskFullError whether the cause arrives wrapped
// or, as Badger often passes it on, flattened to text; other errors of a
// write keep their words.
func TestDiskFull(t *testing.T) {
	s := &Store{dir: "/s"}
	for _, cause := range []error{
		fmt.Errorf("write /s/000001.vlog: %w", syscall.ENOSPC),
		errors.New("while appending to the value log: write /s/000001.vlog: no space left on device"),
	} {
		err := s.errTxn("storing the output of read_file", cause)
		var full *DiskFullError
		if !errors.As(err, &full) || full.Dir != "/s" {
			t.Errorf("%v: got %#v, want a *DiskFullError", cause, err)
			continue
		}
		if want := "storing the output of read_file in tool memory at /s: no space left on the device"; err.Error() != want {
			t.Errorf("got %q, want %q", err, want)
		}
	}
	if err := s.errTxn("storing run x", errors.New("txn too big")); errors.As(err, new(*DiskFullError)) {
		t.Errorf("another failure taken for a full disk: %v", err)
	}
}
