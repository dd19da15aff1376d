// Package llm is the model client. It owns everything that speaks to a
// chat-completion endpoint: requests and replies (EncodeRequest,
// DecodeReply, through the wire types and adapter of review/llm/wire), the HTTP
// client with its retries and backoff, streamed answers (read with
// go-openai's stream reader, bounded by a first-byte timeout, and
// reassembled into the completion a whole answer would be, which is what
// gets recorded), the classification of failures
// (authentication, not found, context length, rate limit and quota), usage
// as the server reports it, what the server tells beside completions
// (its context window, DiscoverWindow; its own token count, Tokenizer),
// and the one model table (Lookup): context windows, tiktoken encodings,
// reasoning models and list prices.
//
// It knows tools only as definitions to send; what a tool means is the
// agent's business.
package llm
