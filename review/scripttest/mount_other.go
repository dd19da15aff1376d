//go:build !linux

package scripttest

import "github.com/rogpeppe/go-internal/testscript"

// mounttmpfs and fill are Linux's: elsewhere [mount] does not hold, and a
// script that fills a file system skips.
func cmdMountTmpfs(ts *testscript.TestScript, neg bool, args []string) {
	ts.Fatalf("mounttmpfs: Linux only")
}

func canMount() bool { return false }

func cmdFill(ts *testscript.TestScript, neg bool, args []string) {
	ts.Fatalf("fill: Linux only")
}
