// Package cmd holds the review command line: cobra commands built by
// constructors, flags and help text, configuration loading, output selection
// and the mapping from errors to exit codes. Review logic lives in the
// review, diffctx, conversation, toolmem and tools packages.
package cmd
