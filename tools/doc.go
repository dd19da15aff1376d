// Package tools holds the tools a model may call: the contract every tool
// follows, the read-only tools on the repository under review, and the one
// path from a call to what the conversation carries.
//
// A Tool gives its Spec (name, description, parameters) and runs. Its
// parameters (Param) declare types, limits and defaults once: the JSON
// Schema sent to the model, the checks of each call, the filling in of
// defaults and the example shown with a mistake all derive from them, and
// every argument mistake of every tool is worded by ArgError. A Set holds
// the registered tools; New registers the repository tools, Register and
// With add others (package review adds submit_review). Tool names are the
// constants of package toolname.
//
// find_definition and find_references answer from the run's symbol index
// (package symbols), read once from the head's source files through the
// same readers and ignore rules as search_in_project (Set.Symbols).
//
// Set.Answer is the runner used by the agent and by review tool alike: it
// runs a call, stores the whole output in tool memory and returns the
// preview the conversation carries instead.
//
// Every repository tool reads git objects at the reviewed revisions (head,
// and base for diffs and read_file_hunk's revision "base"), never the work
// tree, so what the model sees is exactly the change under review, and
// nothing in the repository is ever written. Paths are repository-relative;
// absolute paths, ".." escapes, ".git" internals, symlinks whose target
// leaves the repository, and paths hidden by the configured ignore globs
// are refused with a message the model can act on.
//
// Tool failures the model can fix (bad arguments, a missing file, a line past
// the end) are error results, not Go errors: Set.Call always returns text for
// the model and never panics.
package tools
