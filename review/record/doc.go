// Package record owns the run record: what a review writes to the store
// as it goes, and how it is read back. A run is its record (toolmem.Run),
// its steps (each request exactly as sent, its response, the step's token
// figures) and its events, typed here: request, prune, replan, fallback,
// stream, final. One writer encodes them and one decoder reads them, old
// forms included, so a store written by an earlier version still replays.
//
// It also owns what reading a run back needs: the expansion of requests
// stored as deltas of earlier ones, the names a request event gives its
// messages, and the one rule for counting the tokens of tool definitions,
// which the plan, the loop, the figures and replay all use so that their
// counts agree.
//
// toolmem stores the bytes; it does not know what they mean.
package record
