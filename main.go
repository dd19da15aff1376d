// Command review is a code-review agent for git repositories.
package main

import (
	"os"

	"github.com/reviewdev/review/cmd"
)

func main() { os.Exit(cmd.Main()) }
