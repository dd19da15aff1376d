// Package diffctx turns the changes of a branch into the static context a
// review model sees.
//
// Load runs git through package git, whose flags and configuration
// overrides make the output independent of the user's git configuration, and
// diffs the merge base of base and head against head, finding renames as
// git diff does and copies only when asked. Parse reads that output
// with go-diff and then checks it: every file section must start with
// "diff --git" and every hunk must hold exactly the lines its header
// announces, so a diff that cannot be understood is an error naming the file
// rather than a silently wrong context. Each changed file becomes a File with
// its status, modes, line counts (equal to git diff --numstat), hunks and
// tags such as security, test or lockfile.
//
// Render writes the static context: an overview of the changed files, then
// the hunks in priority order (security-relevant code first, tests and docs
// later, lockfiles, generated and binary files only summarised) until a
// token budget is used. Files that did not fit are listed with the tool call
// that fetches them. The overview is budgeted too: past its share, the files
// first in priority order keep their lines and the others are counted by
// directory, with the call that lists them. SplitUnits splits a diff too
// large for one request into units of hunks, reviewed one per turn, within a
// bound on their number. The package never calls a model.
package diffctx
