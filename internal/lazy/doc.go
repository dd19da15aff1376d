// Package lazy holds what a package would otherwise build when the
// program starts and only some commands use: a regular expression
// compiled at its first use. Every command starts without compiling the
// expressions of the commands it is not (review version compiles none).
package lazy
