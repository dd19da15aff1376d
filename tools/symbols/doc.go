// Package symbols is the code navigation of a review: where a name is
// defined and where it is used, over every source file of the reviewed
// revision.
//
// An Index is made of the files a caller read (package tools reads them
// through its sandbox, at the reviewed head, ignore rules applied) and
// costs nothing until it is asked: a question about a name looks only at
// the files holding that word, parses each once for the whole run and
// keeps what it found, so the units of a review share one index and a
// second question about a name is answered from memory.
//
// Go files are read with go/parser, no build and no network: a use
// resolves through the file's imports, its scopes and, for a method or a
// field, the type its operand is declared with, as far as the syntax of
// the module says it. Python, JavaScript/TypeScript, Java, Rust, C/C++ and
// Ruby are read by a small scanner per language family (lex.go) that tells
// code from comments and strings and finds definitions by their keywords
// and shapes; their uses are the name's identifiers in code, resolved by
// language only. The scanners are hand-written rather than a lexer library
// such as chroma, whose lexers would add megabytes to the binary and
// compile their expressions when first used.
package symbols
