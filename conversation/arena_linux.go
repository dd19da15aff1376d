package conversation

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePage is the size of a transparent huge page with 4 KiB pages.
const hugePage = 2 << 20

// reserve maps n bytes of zeroed memory, its start on a huge page's
// boundary, and asks for huge pages (MADV_HUGEPAGE); nil when it cannot.
// The mapping is returned whole, for release.
func reserve(n int) (b, mapping []byte) {
	m, err := unix.Mmap(-1, 0, n+hugePage, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil, nil
	}
	skip := int((hugePage - uintptr(unsafe.Pointer(&m[0]))%hugePage) % hugePage)
	b = m[skip : skip+n : skip+n]
	if n >= hugePage {
		// Without huge pages the advice is refused, and small pages
		// serve: nothing to do.
		_ = unix.Madvise(b[:n&^(hugePage-1)], unix.MADV_HUGEPAGE)
	}
	return b, m
}

// release unmaps what reserve mapped.
func release(mapping []byte) { _ = unix.Munmap(mapping) }

// smallPagesFrom leaves the huge-page stretch of mem that holds byte end
// (the table's end) to small pages, unless it is its first, which the
// decompressed form has touched already.
func smallPagesFrom(mem []byte, end int) {
	from := end &^ (hugePage - 1)
	if from == 0 || from >= len(mem)&^(hugePage-1) {
		return
	}
	_ = unix.Madvise(mem[from:from+hugePage], unix.MADV_NOHUGEPAGE)
}
