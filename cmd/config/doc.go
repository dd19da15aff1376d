// Package config owns review's layered configuration: the table of
// settings, where each may come from, and how the layers combine. A
// setting comes, first match wins, from a command-line flag, an
// environment variable, the repository's .review.yaml, the user's
// $XDG_CONFIG_HOME/review/config.yaml, or its default; Load keeps the
// source of every value, which `review config` shows (Effective.Rows,
// Effective.WriteTable).
//
// Configuration files are strict: an unknown key, a value of the wrong
// type or out of range is an error naming the file, the line and the key,
// with the likely key when one was mistyped. The repository's file comes
// with the change under review, so it is read with care: it must be a
// regular file inside the work tree, at most 1 MiB, and it may not choose
// where the API key is sent (Resolve).
//
// The package knows no cobra: the commands hand it their flags through
// Sources.Flag, and a mistake in them comes back as a *FlagError. The
// settings embed result.Config, the one config struct a run is made with,
// and hold severities as result.Severity: the package does not import the
// engine (package review).
package config
