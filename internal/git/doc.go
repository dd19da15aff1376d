// Package git is the one way review runs git. Every git process the diff
// context, the tools, the tool memory and the commands start goes through a
// Runner, so each is hardened alike against what the user's configuration
// and environment could change: no pager, no colour, no external diff
// driver, no terminal prompts, literal pathspecs, unquoted paths, the diff
// settings that shape a patch pinned, no optional locks (a read never
// refreshes the index), and messages in the C locale, so that they can be
// matched. The user's and the system's git configuration are still read:
// they hold safe.directory, credentials and GIT_DIR-like settings that
// reviews rely on, and the pinned values override what would change output.
//
// A failed run is an *Error that names the subcommand and git's own
// complaint, turns "dubious ownership" into the safe.directory command that
// fixes it, and wraps the context's error when the run was cancelled.
//
// The package imports nothing of review's, so every other package may use it.
package git
