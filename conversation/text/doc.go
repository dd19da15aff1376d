// Package text holds the small helpers every package uses to show text to
// people and to the model: squashing to one line, cutting on rune
// boundaries, first lines, plurals and short commit names. They live once
// here so that a message reads the same wherever it is made.
package text
