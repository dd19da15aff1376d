// Package learn reads and writes the team's learnings: short rules in the
// team's words, kept in the repository as .review/learnings.md, each with
// where it came from and the paths it applies to. The review reads them
// like its configuration (from the base revision in CI), gives them to the
// model as a section of the static layer, and lets the model withhold a
// finding a learning covers by citing its number. The file is Markdown so
// that a team reads it as a page on its host and reviews a change to it
// as it reviews code; a proposal from a pull-request comment is a pull
// request that adds to it, never a change the reviewer makes on its own.
package learn
