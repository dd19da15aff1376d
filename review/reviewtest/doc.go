// Package reviewtest serves scripted chat completions over real HTTP for
// tests: an httptest server speaking the OpenAI chat-completions wire
// protocol that answers each request with the next step of a script (a
// reply, tool calls, an error status, a delay or a malformed body) and
// records every request and response byte for byte. A request that asks
// for a stream is answered with server-sent events, as OpenAI streams
// them, with text cut into pieces (inside characters if a step says so),
// a stall or a cut connection where a step asks for one; a script can
// also answer such requests whole, as a server that does not stream.
//
// It also validates bodies against the OpenAI chat-completions schema
// vendored in the repository's testdata/schemas (SchemaPath finds it from
// any package), so tests anywhere in the project can check that what the
// client sends is a valid request.
//
// The server checks nothing itself: tests decide what a request must hold.
//
// Scripts cannot know tool-memory refs in advance (they derive from the run
// ID), so a scripted argument may say $REF(call_id): the server replaces it
// with the ref named by the preview of that call's result in the request.
package reviewtest
