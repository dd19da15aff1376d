// Package ignore matches the configured ignore globs against repository
// paths. The diff context leaves out the files they match and the tools
// refuse to list, search or read them, so both ask this one matcher and a
// file is hidden from the model everywhere or nowhere.
package ignore
