package lazy

import (
	"regexp"
	"sync"
)

// Regexp returns a function that compiles expr the first time it is
// called, and returns the same expression from then on, safe from any
// goroutine. As regexp.MustCompile, it panics if expr does not compile:
// a test that uses the expression finds that.
func Regexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
