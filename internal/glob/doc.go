// Package glob matches the configured ignore and allow globs against
// repository paths. The diff context leaves out the files the ignore globs
// match and the tools refuse to list, search or read them, so both ask this
// one matcher and a file is hidden from the model everywhere or nowhere.
package glob
