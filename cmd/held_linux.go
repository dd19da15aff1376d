package cmd

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// lockHolder is the process holding the exclusive lock on dir, as
// /proc/locks lists it (toolmem flocks the store's directory); 0 if it is
// not found, as in another PID namespace.
func lockHolder(dir string) int {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return 0
	}
	f, err := os.Open("/proc/locks")
	if err != nil {
		return 0
	}
	defer f.Close()
	want := strconv.FormatUint(st.Ino, 10)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "1: FLOCK  ADVISORY  WRITE 30519 fe:00:9989584 0 EOF"
		fs := strings.Fields(sc.Text())
		if len(fs) < 6 || fs[1] != "FLOCK" || fs[3] != "WRITE" {
			continue
		}
		id := strings.Split(fs[5], ":")
		if len(id) != 3 || id[2] != want || !sameDevice(id[0], id[1], st.Dev) {
			continue
		}
		if pid, err := strconv.Atoi(fs[4]); err == nil && pid != os.Getpid() {
			return pid
		}
	}
	return 0
}

// sameDevice reports whether major and minor, in hexadecimal, are dev's.
func sameDevice(major, minor string, dev uint64) bool {
	ma, err1 := strconv.ParseUint(major, 16, 32)
	mi, err2 := strconv.ParseUint(minor, 16, 32)
	return err1 == nil && err2 == nil && uint32(ma) == unix.Major(dev) && uint32(mi) == unix.Minor(dev)
}
