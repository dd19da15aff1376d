package conversation

import (
	"math/bits"
	"unsafe"

	"github.com/klauspost/compress/zstd"
)

// tableArena lays out an encoding's table in one block of memory: the
// decompressed form, then the offsets, then the hash slots. Read in a
// fresh process, the table's 4 to 5 MB are that many megabytes of pages
// touched for the first time, a fault each 4 KiB (some 1,200 for o200k,
// about 16 µs each on a virtual machine: more than the decompression and
// hashing together). Where the system offers huge pages for memory that
// asks for them (Linux's transparent huge pages in "madvise" or "always"
// mode), the block asks, so that its whole 2 MiB stretches cost one fault
// each; the stretch the table ends in is left to small pages, so that no
// more memory is resident than the table uses. Elsewhere, and when the
// block cannot be had, the table is made on Go's heap as before. The block
// lives as long as the process, as the table does, and holds no pointers.
type tableArena struct {
	mem     []byte // the block, from its start; nil on Go's heap
	mapping []byte // the memory mapped for it
	used    int
	size    int // the decompressed form's, as its frame declares it
}

// newTableArena reserves a block for the table whose compressed form is
// data, from the size its zstd frame declares: the decompressed form and,
// at most, the offsets and slots of a table of as many tokens as it could
// hold (each token at least a byte, with its length byte: half its size).
func newTableArena(data []byte) *tableArena {
	var h zstd.Header
	if err := h.Decode(data); err != nil || !h.HasFCS || h.FrameContentSize < 8 || h.FrameContentSize > maxTable {
		return &tableArena{}
	}
	size := int(h.FrameContentSize)
	n := uint32((size - 8) / 2)
	most := align8(size) + 4*int(n+1) + 4*int(slotsFor(n))
	mem, mapping := reserve(most)
	return &tableArena{mem: mem, mapping: mapping, size: size}
}

// free gives the block back, for a table that is not kept: one refused
// as damaged, or a benchmark's.
func (a *tableArena) free() {
	if a.mapping != nil {
		release(a.mapping)
		a.mem, a.mapping = nil, nil
	}
}

// bytes returns the next n bytes of the block, empty with capacity n, or
// nil when the block cannot hold them.
func (a *tableArena) bytes(n int) []byte {
	if a.mem == nil || a.used+n > len(a.mem) {
		return nil
	}
	b := a.mem[a.used : a.used : a.used+n]
	a.used = align8(a.used + n)
	return b
}

// words returns n zeroed words, from the block when it holds them.
func (a *tableArena) words(n int) []uint32 {
	if b := a.bytes(4 * n); b != nil {
		return asWords(b[:4*n])
	}
	return make([]uint32, n)
}

// settle is told the table's size once known, before its offsets and
// slots are written: the stretch the table ends in is left to small pages.
func (a *tableArena) settle(n uint32) {
	if a.mem != nil {
		end := a.used + 4*int(n+1) + 4*int(slotsFor(n))
		smallPagesFrom(a.mem, end)
	}
}

// slotsFor is the number of hash slots for n tokens: a power of two, a
// load factor under a half, which keeps the probes short (most lookups in
// a merge are of pairs that are no token).
func slotsFor(n uint32) uint32 { return uint32(1) << bits.Len32(2*n) }

func align8(n int) int { return (n + 7) &^ 7 }

// asWords reads b, whose length is a multiple of 4, as words.
func asWords(b []byte) []uint32 { return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(b)/4) }
