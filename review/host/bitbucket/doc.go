// Package bitbucket is review's side of Bitbucket Cloud. It posts a
// review's findings to a pull request as comments on the changed lines
// (inline.path and inline.to, the line in the new file) and, for the same
// findings, a Code Insights report "review" on the head commit with an
// annotation each, which Bitbucket shows in the pull request's Reports
// panel and beside the diff; the rest goes in one summary comment that
// later runs update in place (host.Summary). It sets the build status
// "review" of the head, reads back what earlier runs posted (host.Poster:
// the heads reviewed, the findings still open, the ledger's threads), and
// resolves the comment of a finding that was fixed (POST
// .../comments/{id}/resolve).
//
// It speaks Bitbucket's REST API 2.0 (its swagger at
// https://api.bitbucket.org/swagger.json) through host.REST: the token in
// "Authorization: Bearer …" on every request and only to the API's host,
// every answer bounded and checked (commit SHAs, IDs) before any of it is
// used, listings followed by the page number of their "next" link,
// failures that may pass made again, a retried post never made twice.
//
// Bitbucket escapes raw HTML in a comment, so review's markers, HTML
// comments on every other host, travel as link reference definitions
// that nothing refers to ([//]: # "review:…"), which Markdown shows as
// nothing (content).
//
// Which comments are review's own: a repository access token, as
// Pipelines jobs use, may not ask who it is (GET /user needs the account
// scope), so each marker review writes carries a signature, an HMAC of
// the marker keyed with the token (sign), and only a marker that verifies
// counts. A person cannot make one for a head review did not post; a
// marker copied whole says only what review said before.
//
// What Bitbucket cannot do, review says: its Pipelines start on a push or
// a pull request, never on a comment, so review comment does not run here
// (Host.NoComment); and its API has no reactions, so a finding is
// dismissed by resolving its comment.
//
// Host is its row in the command's table: Bitbucket Pipelines'
// environment (BITBUCKET_PR_ID, BITBUCKET_WORKSPACE, BITBUCKET_REPO_SLUG,
// BITBUCKET_COMMIT, BITBUCKET_PR_DESTINATION_BRANCH) and the flag that
// names the API.
//
// What it posts is review/result's data: it does not import the engine
// (package review) that produced it.
package bitbucket
