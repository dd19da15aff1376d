// Package gitea is review's side of Gitea and Forgejo (Codeberg too: they
// speak the same API). It posts a review's findings to a pull request as
// one pull-request review with comments on the changed lines, and the
// rest in one summary comment in the pull request's conversation that
// later runs update in place (host.Summary); it sets the commit status
// "review", reads back what earlier runs posted (host.Poster: the heads
// reviewed, the findings still open, the ledger's threads), and reads the
// comments that start review comment in Gitea and Forgejo Actions.
//
// It speaks Gitea's REST API (/api/v1, its swagger at
// templates/swagger/v1_json.tmpl) through host.REST: the token in
// "Authorization: token …" on every request and only to the API's host,
// every answer bounded and checked (commit SHAs, IDs) before any of it is
// used, listings followed by their Link headers (limit, page), failures
// that may pass made again, a retried post never made twice.
//
// What Gitea's API cannot do, review says: it cannot resolve a
// conversation (no endpoint; its web route needs a browser session), so a
// fixed finding gets a reply in its conversation, which the next review
// reads, and the conversation is left for a person to resolve; and a
// comment on a line starts no Actions event that names its conversation,
// so /review dismiss works as a 👎 or a resolved conversation instead.
//
// Host is its row in the command's table: Gitea and Forgejo Actions'
// environment (GitHub's variable names, GITEA_ACTIONS or FORGEJO_ACTIONS
// set), the flag that names the API outside it, and the issue_comment
// events review comment reads.
//
// What it posts is review/result's data: it does not import the engine
// (package review) that produced it.
package gitea
