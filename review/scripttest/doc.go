// Package scripttest holds what the end-to-end scripts of the repository's
// root (testdata/script) and those of internal/e2e (testdata/long) share:
// the set-up that isolates a script from the machine, its conditions
// ([root], [mount]), and the commands that make a commit, start the
// scripted model server (review/reviewtest), damage or sum a store, fill a
// file system and run a program on a pseudo-terminal (ttyrun, screen).
// The root's harness adds the commands only its scripts use.
package scripttest
