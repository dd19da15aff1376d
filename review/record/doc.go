// Package record owns the run record: what a review writes to the store
// as it goes, and how it is read back. A run is its record (toolmem.Run),
// its steps (each request exactly as sent, its response, the step's token
// figures), its events, typed here (request, prune, replan, fallback,
// stream, final, egress), and its conversation. One Writer writes them all, and
// one reader reads each (Decode, Load, LoadConversation), old forms
// included, so a store written by an earlier version still replays.
//
// The forms, and why:
//   - A step's request is stored whole or as its difference from an earlier
//     step's (Writer): a tool loop's requests only grow, and stored whole
//     they would take space in the square of a run's steps.
//   - A request event names only the messages its request adds to the one
//     before (conversation.History.Sent); Load puts the rest back.
//   - The conversation is stored a message a part (Writer.Conversation), so a
//     step rewrites only the messages that changed.
//
// It also reads a run back for people: replay loading (Load, Outputs),
// the step figures and the run's efficiency against a naive transcript
// (Figures, Tally), runs a killed process left running (CloseAbandoned),
// and the one rule for counting the tokens of tool definitions
// (ToolTokens), which the plan, the loop, the figures and replay all use
// so that their counts agree.
//
// toolmem stores the bytes; it does not know what they mean.
package record
