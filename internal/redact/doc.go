// Package redact finds secrets in text and replaces them with placeholders
// before the text can reach a model, the tool memory store or a run record.
//
// Detection uses gitleaks' default rule set (MIT-licensed), as the gitleaks
// module's config package parses it from the rule file it embeds: each
// rule's regular expression, secret group, entropy threshold, keywords and
// allowlists, and the global allowlist. The rules are evaluated here as
// gitleaks' detector evaluates them: a rule runs only where one of its
// keywords occurs, its secret must be more random than the rule's entropy
// threshold, and a secret an allowlist matches is left alone. The detector
// itself is not used: it does not say where in a text a secret is, and it
// brings archive readers and a WebAssembly runtime with it. Where gitleaks
// runs a rule over a whole file holding a keyword, here it runs over the
// lines around each keyword that a match could reach, which makes a large
// diff cheap to scan, and on a line of a minified bundle over the bytes
// around each keyword (see window.go).
//
// Four detectors of our own complete the rules: literal values assigned to
// passwords, tokens and keys in code and configuration (with an entropy
// check), credentials in URLs, private keys whose END line is cut off, and
// lines of key material without their header (redacted, never reported).
//
// A secret becomes [secret:RULE#FFFF]: the rule that found it and four hex
// digits of a hash of the secret, so one secret reads the same wherever it
// appears and two secrets of a kind can be told apart, while four digits
// say next to nothing about the secret. Redaction keeps the lines: a secret
// over several lines leaves its placeholder on each, so line numbers, diff
// markers and read_file_hunk's line numbers stay where they were.
//
// The package imports nothing of this module but the ignore globs, so the
// diff context, the tools, the store and the commands can all use it.
package redact
