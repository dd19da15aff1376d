// Package gitlab is review's side of GitLab: it posts a review's findings
// to a merge request as discussions on the changed lines, placed by the
// merge request's latest diff version, with one summary note that later
// runs update in place, keeping the findings only it listed while their
// files are unchanged, and reads back what earlier runs posted (host.Poster).
//
// It speaks GitLab's REST API v4 through host.REST, the client every host
// shares: the few endpoints it needs (the token's user, the merge request,
// its versions, notes and discussions) do not justify a client library of
// hundreds of services in the binary. The token goes in PRIVATE-TOKEN on
// every request, and only to the API's host: a redirect to another host
// drops it. Listings follow GitLab's pagination (X-Next-Page, else the
// Link header's page, always asked of the API's host); a request GitLab
// fails with 429 or a server error, or that the network drops, is made
// again after the wait GitLab asks for (Retry-After) or a growing one, and
// a retried post never posts twice.
//
// Host is its row in the command's table: GitLab CI's environment, the
// flags that name a merge request outside it, and the note events a
// pipeline trigger passes to review comment.
//
// What it posts is review/result's data: it does not import the engine
// (package review) that produced it.
package gitlab
