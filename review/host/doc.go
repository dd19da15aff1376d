// Package post is the seam between a review and the places it is posted:
// a GitHub pull request (review/github), a GitLab merge request
// (review/gitlab), and any host that follows. A host implements Poster:
// it posts a result's findings on the changed lines and the rest in one
// summary, without repeating what earlier runs posted, and reads back what
// they posted, so that a later run reviews only the commits since the last
// head reviewed and its gate still counts the findings left open.
//
// The package also holds what every host writes alike: the hidden markers
// that let a run find its own earlier posts, and the Markdown of a finding.
// Hosts post review/result's data, never the engine's (package review).
package host
