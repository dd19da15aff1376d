package scripttest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/dustin/go-humanize"
	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sys/unix"
)

// mounttmpfs mounts a tmpfs of the given size on dir for the rest of the
// script, so that a script can fill a file system: `mounttmpfs dir size`.
// A script that uses it skips first where [mount] does not hold.
func cmdMountTmpfs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: mounttmpfs dir size")
	}
	dir := ts.MkAbs(args[0])
	ts.Check(unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+args[1]+",mode=0700"))
	ts.Defer(func() { _ = unix.Unmount(dir, unix.MNT_DETACH) })
}

// canMount reports whether this process can mount a tmpfs: it is the
// superuser, and the system (a container) lets it.
var canMount = sync.OnceValue(func() bool {
	dir, err := os.MkdirTemp("", "mount")
	if err != nil {
		return false
	}
	defer os.Remove(dir)
	if unix.Mount("tmpfs", dir, "tmpfs", 0, "size=1m") != nil {
		return false
	}
	return unix.Unmount(dir, 0) == nil
})

// fill fills the file system of dir with a file in dir until only leave
// bytes are free (0: none): `fill dir leave`.
func cmdFill(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: fill dir leave")
	}
	dir := ts.MkAbs(args[0])
	leave, err := humanize.ParseBytes(strings.ReplaceAll(args[1], "m", "MiB"))
	ts.Check(err)
	var st unix.Statfs_t
	ts.Check(unix.Statfs(dir, &st))
	free := int64(st.Bavail) * int64(st.Bsize)
	n := free - int64(leave)
	if n <= 0 {
		return
	}
	f, err := os.CreateTemp(dir, "fill-")
	ts.Check(err)
	defer f.Close()
	// Fallocate takes what it can on a tmpfs; zeros written for the rest.
	if err := unix.Fallocate(int(f.Fd()), 0, 0, n); err != nil && leave > 0 {
		ts.Fatalf("fill %s: %v", dir, err)
	}
	if leave == 0 {
		buf := make([]byte, 1<<16)
		off, _ := f.Seek(0, 2)
		for {
			if _, err := f.WriteAt(buf, off); err != nil {
				if !isNoSpace(err) {
					ts.Fatalf("fill %s: %v", dir, err)
				}
				break
			}
			off += int64(len(buf))
		}
		for _, size := range []int{4096, 512, 1} {
			for {
				if _, err := f.WriteAt(buf[:size], off); err != nil {
					break
				}
				off += int64(size)
			}
		}
	}
	ts.Logf("filled %s with %s: %s", dir, filepath.Base(f.Name()), strconv.FormatInt(n, 10))
}

func isNoSpace(err error) bool {
	pe, ok := err.(*os.PathError)
	return ok && pe.Err == syscall.ENOSPC
}
