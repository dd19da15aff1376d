// Package tools holds the read-only tools a model may call on the repository
// under review: their JSON Schema definitions, their implementations, and the
// path sandbox they share.
//
// Every tool reads git objects at the reviewed revisions (head, and base for
// diffs and read_file_hunk's revision "base"), never the work tree, so what
// the model sees is exactly the change under review, and nothing in the
// repository is ever written. Paths are repository-relative; absolute paths,
// ".." escapes, ".git" internals, symlinks whose target leaves the
// repository, and paths hidden by the configured ignore globs are refused
// with a message the model can act on.
//
// Tool failures the model can fix (bad arguments, a missing file, a line past
// the end) are error results, not Go errors: Set.Call always returns text for
// the model and never panics.
package tools
