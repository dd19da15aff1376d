// Package seam is the seam between a review and the places it is posted,
// and what those places share. It is the leaf of review/host: each host is
// a package beside it, side by side (github, gitlab, gitea, bitbucket,
// azure), and hosttest holds them as tests meet them (scripted servers,
// event files, the oracles of their rules).
//
// A host implements Poster: it posts a result's findings on the changed
// lines and the rest in one summary, without repeating what earlier runs
// posted, and reads back what they posted, so that a later run reviews
// only the commits since the last head reviewed and its gate still counts
// the findings left open. It exports a Host, the row of the command's
// table of --post names: how its CI is told apart (read from the
// environment handed down as data), its flags, the constructor of its
// poster, and the reader of the comments that start review comment. A new
// host is its package and one row there.
//
// The package also holds what every host does alike: the hidden markers
// that let a run find its own earlier posts, the ledger's fingerprints and
// reconciliation, the Markdown of a finding and its neutralisation, the
// comment commands, and the REST client (REST) with its retries (Retry)
// that hosts without a client library of their own speak through. Hosts
// post review/result's data, never the engine's (package review). It
// imports none of the hosts beneath it.
package seam
