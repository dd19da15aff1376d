// Package docs holds the reference pages of docs/ that the binary
// prints: `review help TOPIC` prints a section of configuration.md, so
// the help and the reference are one text. It imports nothing.
package docs

import _ "embed"

// Configuration is docs/configuration.md: every flag by group, the
// configuration keys and the environment.
//
//go:embed configuration.md
var Configuration string
