// Package text holds the small helpers every package uses to show text to
// people and to the model: squashing to one line, cutting on rune
// boundaries, first lines, plurals and short commit names. They live once
// here so that a message reads the same wherever it is made.
//
// It also owns what makes untrusted text safe to print: Safe and Writer
// strip what a terminal would act on (control characters, escape
// sequences) and break what the GitHub Actions runner would take for a
// workflow command; Clean does the first part only.
package text
