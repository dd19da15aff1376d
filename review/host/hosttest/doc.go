// Package hosttest holds the hosts review posts to, as tests meet them.
//
// Scripted servers speak each host's REST API over real HTTP, as much of
// it as posting, review comment and the ledger use, in the shapes its
// published API description gives: GitHub (REST under /api/v3 and
// GraphQL), GitLab (REST v4), Gitea and Forgejo (/api/v1: every request
// body and every answer is checked against the definitions of Gitea's
// swagger vendored in testdata/schemas, ValidateGitea), Azure DevOps
// (REST API 7.1, checked the same way against the definitions of its
// description, ValidateAzure). Each checks a
// request as its host would (the token in the host's header, the
// documented body), keeps what is posted so a second run sees it, and
// records every request for the scripts to read. Event builders write the event files each host's CI
// hands a job.
//
// Oracles hold what a host acts on in a posted text, by its own published
// rules: GitLab's quick-action extractor in both generations teams run
// (Commands), GitHub's mention filter (Mentions), Gitea's mention rule
// (GiteaMentions), Azure DevOps' "@<ID>" (AzureMentions). The host package's neutralisation is held to these,
// never to its own idea of Markdown.
//
// It imports nothing of review: the servers answer as the hosts do, not
// as review expects.
package hosttest
