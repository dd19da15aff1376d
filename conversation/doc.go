// Package conversation holds the provider-agnostic model of a review
// conversation: messages tagged with the context layer they belong to
// (static, summary, window, loop), token counting, and the budgets that bound
// what is sent to a model.
//
// It knows nothing about any provider's wire types or about the tools; the
// review package adapts messages to and from a concrete API.
package conversation
