package conversation

import (
	"testing"
	"unsafe"
)

// TestTableInArena holds each embedded table to one block outside Go's
// heap (tableArena), laid out as it was reserved: its decompressed form,
// offsets and slots inside the block, which holds them all.
func TestTableInArena(t *testing.T) {
	for name, data := range map[string][]byte{O200k: o200kTable, CL100k: cl100kTable} {
		mem := newTableArena(data)
		if mem.mem == nil {
			t.Fatalf("%s: no block reserved", name)
		}
		b, err := readTableIn(data, mem)
		if err != nil {
			t.Fatal(err)
		}
		start := uintptr(unsafe.Pointer(&mem.mem[0]))
		inside := func(what string, p unsafe.Pointer, n int) {
			if a := uintptr(p); a < start || a+uintptr(n) > start+uintptr(len(mem.mem)) {
				t.Errorf("%s: its %s are not in the block", name, what)
			}
		}
		inside("bytes", unsafe.Pointer(&b.blob[0]), len(b.blob))
		inside("offsets", unsafe.Pointer(&b.off[0]), 4*len(b.off))
		inside("slots", unsafe.Pointer(&b.slots[0]), 4*len(b.slots))
		if uintptr(unsafe.Pointer(&b.slots[len(b.slots)-1]))+4-start > uintptr(mem.used) {
			t.Errorf("%s: the slots end past what the block says is used", name)
		}
		if start%hugePage != 0 {
			t.Errorf("%s: the block starts off a huge page's boundary", name)
		}
	}
}
