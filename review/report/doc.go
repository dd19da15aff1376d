// Package report writes what review produces, in every output format: a
// review's result, a follow-up answer and a dry run as Markdown for people
// and as JSON, SARIF, GitHub workflow annotations, reviewdog's rdjson and
// GitLab's Code Quality report for CI, and a recorded run replayed as text
// or JSON.
//
// The formats a user can name with --format live in one registry (Lookup,
// Names): it validates the name, lists the names in help and completion,
// and dispatches to the writer, for `review` and `review ask` alike. Adding
// a format is adding a writer and one entry to the registry.
//
// Writers only render: they never call the model or read the store. What
// they render is review/result's data; they do not import the engine
// (package review) that produced it.
package report
