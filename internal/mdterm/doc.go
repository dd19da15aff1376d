// Package mdterm renders the Markdown review writes (headings, emphasis,
// inline code, lists, block quotes, rules and fenced code blocks) with
// ANSI styles for a terminal. It is small on purpose: a full renderer
// (glamour) would add more than 5 MB to the binary for a report whose
// Markdown uses a handful of constructs.
package mdterm
