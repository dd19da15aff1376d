// Package wire is the OpenAI Chat Completions protocol as it crosses the
// network: the request, its messages, tool calls and tool definitions, the
// completion a server answers with, the chunks of a streamed answer, usage
// and the error bodies servers send, with their encoding and decoding. It
// is also the adapter between these shapes and conversation messages: no
// other package converts one into the other.
//
// The types are ours rather than go-openai's so that what is decoded keeps
// its bytes (a tool's JSON Schema, a content given as parts) and what is
// encoded is exactly what was sent before: field order, omitted fields and
// escaping follow go-openai's encoding, which earlier runs were recorded
// with. go-openai still reads event streams and error objects (see
// review/llm).
package wire
