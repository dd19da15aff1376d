// Package toolname names the tools a model may call.
//
// The names live apart from package tools, which registers its tools under
// them, so that the packages tools builds on (toolmem's preview headers,
// conversation's stubs and digests, diffctx's fetch hints) can name a tool
// in the text they write for the model without importing tools. Every text
// for the model names tools through these constants; a test in package
// review fails if any hint or prompt names a tool that is not registered.
package toolname
