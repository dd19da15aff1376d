// Package result is the review's result, which every output and host
// formats: findings, their severity and their evidence (where the model
// was shown the lines they cite, and whether it was shown all of them),
// the findings left out, held back or withheld and why (Quiet),
// the result of a review (revisions, summary, usage, cost, failed units,
// the files not reviewed and their reasons), the answer to a follow-up
// question, the dry run's view of the first request, and the
// configuration a run is made with, which cmd fills and the engine reads.
//
// It holds data and what can be said of the data alone (a finding's
// location, fingerprint and suggested change, a result's usage line and
// cost); the engine that produces it is package review, which imports it
// like review/report, review/host and the hosts beneath it, and cmd.
// It imports no engine.
package result
