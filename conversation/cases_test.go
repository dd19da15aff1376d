package conversation

import "os"

// cases is how many random cases a property test holds: all n in the
// ordinary build (go test ./...) and when REVIEW_PROPERTIES=all (.ci/long
// sets it for its race run), a third under the race detector otherwise,
// as CI runs this package: the properties are of one goroutine's
// arithmetic, which the race detector has nothing to check in, and it
// runs them several times slower (TestBoundProperty, TestPruneProperties
// and TestPruneSelectRecencyEquivalence took 8.4 s of the package's
// 14.5 s under it, go test -json's times).
func cases(n int) int {
	if raceBuild && os.Getenv("REVIEW_PROPERTIES") != "all" {
		return max(1, n/3)
	}
	return n
}
