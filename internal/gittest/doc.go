// Package gittest makes small git repositories for tests, with git
// isolated from the user's configuration and commits made reproducible:
// the one helper the packages' tests share, instead of a function of
// their own in each that runs git. It runs git directly, not through
// internal/git, so that package's own tests can use it.
package gittest
