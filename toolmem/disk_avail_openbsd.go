package toolmem

import "golang.org/x/sys/unix"

// avail is the bytes st says an unprivileged process may still write:
// OpenBSD names statfs's fields as its C struct does.
func avail(st *unix.Statfs_t) int64 { return int64(st.F_bavail) * int64(st.F_bsize) }
