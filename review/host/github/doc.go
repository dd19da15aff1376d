// Package github is review's side of GitHub. It posts a review's findings
// to a pull request as one review with inline comments on the changed
// lines, without repeating itself when run again, and writes the Markdown
// summary a GitHub Actions job shows ($GITHUB_STEP_SUMMARY). It also reads
// the pull request from the event file Actions provides.
//
// It speaks the REST API through go-github, against github.com or the API
// URL of a GitHub Enterprise Server, and makes a request again when it
// fails in a way that may pass: GitHub's server errors, its secondary rate
// limits, the network. A retried post never posts twice.
//
// The annotations review writes to standard output (--format github) are
// an output format, and live with the other formats.
//
// What it posts is review/result's data: it does not import the engine
// (package review) that produced it.
package github
