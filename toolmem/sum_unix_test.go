//go:build unix

package toolmem

import (
	"crypto/sha256"
	"os"
	"syscall"
)

// fileSum is the SHA-256 of the file at path, read through a mapping:
// read into the heap, a store's files (value logs and write-ahead logs
// of tens of megabytes, mostly unused space) cost the race detector
// seconds a test to mark as written.
func fileSum(path string) ([32]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return [32]byte{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return [32]byte{}, err
	}
	if info.Size() == 0 {
		return sha256.Sum256(nil), nil
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(info.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return [32]byte{}, err
	}
	defer syscall.Munmap(data)
	return sha256.Sum256(data), nil
}
