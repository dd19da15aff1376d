package main

import (
	"io/fs"
	"path/filepath"
	"syscall"
)

// diskKiB is the disk space the files under dir take, in KiB: allocated
// blocks, as du counts them.
func diskKiB(dir string) (int64, error) {
	var blocks int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			blocks += st.Blocks
		}
		return nil
	})
	return blocks * 512 / 1024, err
}
