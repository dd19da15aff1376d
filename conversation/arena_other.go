//go:build !linux

package conversation

import "unsafe"

// reserve has no huge pages to ask for here: the table is made on Go's
// heap.
func reserve(int) (b, mapping []byte) { return nil, nil }

func release([]byte) {}

func smallPagesFrom([]byte, int) {}

func asWords(b []byte) []uint32 { return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(b)/4) }
