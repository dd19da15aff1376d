package cmd

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/reviewdev/review/toolmem"
)

// storeDir resolves where tool memory lives: --store, then REVIEW_STORE,
// then the repository's git directory.
func storeDir(flag string, getenv func(string) string, dir string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if d := getenv("REVIEW_STORE"); d != "" {
		return d, nil
	}
	return toolmem.DefaultDir(dir)
}

// openStore opens tool memory; the caller closes it on every path.
func openStore(flag string, getenv func(string) string, dir string) (*toolmem.Store, error) {
	d, err := storeDir(flag, getenv, dir)
	if err != nil {
		return nil, err
	}
	return toolmem.Open(d, toolmem.Options{})
}

// parseAge reads an age such as 30d, 2w, 12h or 90m.
func parseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	unit := time.Duration(0)
	switch {
	case strings.HasSuffix(s, "d"):
		unit = 24 * time.Hour
	case strings.HasSuffix(s, "w"):
		unit = 7 * 24 * time.Hour
	}
	if unit > 0 {
		n, err := strconv.ParseFloat(s[:len(s)-1], 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("invalid age %q: use a number with d, w, h or m, e.g. 30d", s)
		}
		return time.Duration(n * float64(unit)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("invalid age %q: use a number with d, w, h or m, e.g. 30d", s)
	}
	return d, nil
}
