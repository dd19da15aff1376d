// Package e2e holds the tests of the built review binary that are not the
// end-to-end scripts of the root: the benchmarks of whole processes
// (start-up, a review, a dry run, large changes, units in sequence and
// side by side, the peer beside them), the replay page opened in a
// browser, the kill campaign of testdata/long and the measurement behind
// bench's defaults. It has no code of its own: its tests build the binary
// once, as the release builds it, and run it from the repository's root.
package e2e
