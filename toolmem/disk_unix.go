//go:build unix

package toolmem

import (
	"io/fs"
	"syscall"
)

// allocated returns the bytes a file takes on disk: value log and memtable
// files are sparse, so their size says little.
func allocated(info fs.FileInfo) int64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return info.Size()
}
