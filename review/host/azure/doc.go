// Package azure is review's side of Azure DevOps Services (and Server):
// Azure Repos pull requests. It posts each of a review's findings on a
// changed line as a thread of its own on that line of the new file (a
// thread's threadContext: its path, rightFileStart and rightFileEnd), and
// the rest in one summary thread on the pull request that later runs
// update in place (host.Summary); it sets the pull request's status
// "review", and reads back what earlier runs posted (host.Poster: the
// heads reviewed, the findings still open, the ledger's threads by their
// status).
//
// It speaks the REST API, api-version 7.1 (the git area's pullRequests,
// pullRequestThreads, pullRequestThreadComments and pullRequestStatuses,
// described in MicrosoftDocs/vsts-rest-api-specs
// specification/git/7.1/git.json), and the location service's
// connectionData to learn who the token is, through host.REST: the token
// in the Authorization header only, and only to the organization's host
// (Bearer for the job's SYSTEM_ACCESSTOKEN, Basic with an empty user name
// for a personal access token), every answer bounded and checked (IDs,
// identities, web addresses) before any of it is used, failures that may
// pass made again, a retried thread never started twice.
//
// A mention on Azure DevOps is "@<" and an identity's ID: every body it
// posts is kept from forming one (inert), beside host.Neutralize.
//
// Host is its row in the command's table: Azure Pipelines' environment
// (TF_BUILD, SYSTEM_COLLECTIONURI, SYSTEM_TEAMPROJECT, BUILD_REPOSITORY_ID,
// SYSTEM_PULLREQUEST_PULLREQUESTID, SYSTEM_PULLREQUEST_TARGETBRANCH) and
// the flag that names the organization outside it. A comment on a pull
// request starts no pipeline, so review comment does not run there
// (NoComment says what does).
//
// What it posts is review/result's data: it does not import the engine
// (package review) that produced it.
package azure
