package toolmem

import (
	"fmt"
	"runtime"
)

// Badger writes its logs and tables through memory maps of files it sizes
// first, sparse: on a full file system the write is not an error but a
// SIGBUS that ends the process, and it happens in Badger's goroutines,
// where no recover can reach. So the store checks the free space itself,
// before Badger needs it.

// MinFree is the free space a writable Open asks of the store's file
// system: room for a review's records and outputs (a large review stores
// a few MiB) above writeReserve.
const MinFree int64 = 64 << 20

// writeReserve is the free space a write leaves for Badger: a write is
// refused with a *DiskFullError, before Badger sees it, once less than
// this (plus the size of what it writes) is free. Badger writes on its own
// after the write returns: a memtable (4 MiB) flushed to a table, tables
// (of 1 MiB) merged by a compaction, a value log file (16 MiB) rewritten by
// gc.
const writeReserve int64 = 32 << 20

// checkRoom fails with a *DiskFullError if the file system of dir has
// less than need bytes free.
func checkRoom(dir, what string, need int64) error {
	free, ok := freeSpace(dir)
	if !ok || free >= need {
		return nil
	}
	return &DiskFullError{Dir: dir, What: what, Free: free, Need: need}
}

// faultError is the error of a panic that Badger's access to a memory
// map raised (with debug.SetPanicOnFault, see guard), or nil if r is
// another panic. A full file system is the usual cause; it is not damage.
func faultError(dir string, r any) error {
	re, ok := r.(runtime.Error)
	if !ok {
		return nil
	}
	if _, ok := re.(interface{ Addr() uintptr }); !ok {
		return nil
	}
	if free, ok := freeSpace(dir); ok && free < writeReserve {
		return &DiskFullError{Dir: dir, Free: free, Need: writeReserve, cause: re}
	}
	return fmt.Errorf("tool memory at %s: a file of it could not be read or written through its memory map (%v)", dir, re)
}

// MiB says n bytes in MiB (or KiB, under one) for a person.
func MiB(n int64) string {
	switch {
	case n < 1<<20:
		return fmt.Sprintf("%d KiB", n>>10)
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
