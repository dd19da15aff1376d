// Package bench measures reviews against what a corpus of cases expects.
//
// It owns the corpus (JSON Lines cases, and adapters from published
// benchmarks' formats), the cases built from it in scratch clones (a fix
// commit reverted on top of itself, or a base and a head), the scoring of
// findings against expected issues, and the scorecard: per case and in
// total, with the cost and the run IDs behind every number, merged across
// shards and compared between two runs.
//
// It never runs a model itself: the command lends it a Reviewer that runs
// each case through the same entry as `review --base`, and it scores only
// what that reviewer ran.
package bench
