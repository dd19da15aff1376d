// Package mdterm renders the Markdown review writes for a terminal, with
// ANSI styles: headings, emphasis, inline code, links, lists, block
// quotes, rules, fenced code blocks, tables and the report's collapsed
// sections. goldmark, a CommonMark parser, reads the Markdown, with
// GitHub's tables and strikethrough read by gfm.go as goldmark's extension
// package reads them (that package compiles regular expressions when the
// program starts); mdterm writes its tree. A full terminal renderer (glamour) would take the
// binary from 22 to 35 MB and make the linker keep every exported method
// of every type (its templates call methods by name).
package mdterm
