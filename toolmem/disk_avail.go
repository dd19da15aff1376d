//go:build linux || darwin || freebsd || dragonfly

package toolmem

import "golang.org/x/sys/unix"

// avail is the bytes st says an unprivileged process may still write.
func avail(st *unix.Statfs_t) int64 { return int64(st.Bavail) * int64(st.Bsize) }
