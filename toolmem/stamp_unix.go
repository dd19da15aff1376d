//go:build unix

package toolmem

import "golang.org/x/sys/unix"

// stampOf returns the stamp of the file at path, and false when it has
// none.
func stampOf(path string) (stamp, bool) {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return stamp{}, false
	}
	return stamp{size: st.Size, ino: int64(st.Ino), mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}, true
}
