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

// A write the store refuses for lack of room says how much is free and
// how much it needs, named by the write it refused.
func TestRoom(t *testing.T) {
	s := &Store{dir: "/s"}
	refused := &DiskFullError{Dir: "/s", Free: 3 << 20, Need: writeReserve}
	err := s.errTxn("storing step 2 of run x", refused)
	if want := "storing step 2 of run x in tool memory at /s: 3 MiB free on its file system, 32 MiB needed"; err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
	if refused.What != "" {
		t.Error("errTxn changed the error it was given")
	}
	if err := checkRoom(t.TempDir(), "", 1); err != nil {
		t.Errorf("checkRoom(1 byte): %v", err)
	}
	if err := checkRoom(t.TempDir(), "", 1<<62); err != nil {
		if full, ok := err.(*DiskFullError); !ok || full.Need != 1<<62 || full.Free <= 0 {
			t.Errorf("checkRoom(4 EiB) = %#v", err)
		}
	} else if _, ok := freeSpace(t.TempDir()); ok {
		t.Error("checkRoom(4 EiB) passed")
	}
}
