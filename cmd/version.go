package cmd

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is set at build time with -ldflags "-X github.com/reviewdev/review/cmd.Version=v1.2.3",
// as the release builds (.goreleaser.yaml) and the action's source build do;
// otherwise it comes from the module version go install recorded.
var Version = ""

// version returns the best version string available.
func version() string {
	if Version != "" {
		return Version
	}
	bi, ok := debug.ReadBuildInfo()
	if ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	// A build from a checkout: Go records a pseudo-version of the commit
	// (v0.0.0-20261128095742-e9fd189f5b97), above; otherwise a semantic
	// version that says so, with the commit when go build recorded it
	// (code scanning wants a version that identifies the tool, not
	// "devel").
	v := unstamped
	if ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += "+" + s.Value[:12]
			}
		}
	}
	return v
}

// NewCmdVersion builds `review version`.
func NewCmdVersion(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of review",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintln(f.IO.Out, versionLine())
			return err
		},
	}
}

// unstamped is the version of a build that recorded neither a version nor
// a commit.
const unstamped = "0.0.0-dev"

// versionLine is what `review version` and `review --version` print. A
// build that recorded no commit says so, and how to make one that does:
// go run, -buildvcs=false (in GOFLAGS too) and a git worktree, where go
// build finds no .git directory, record none.
func versionLine() string {
	v := version()
	note := ""
	if v == unstamped {
		note = "; no commit recorded: go build -buildvcs=true in a git clone records it"
	}
	return fmt.Sprintf("review %s (%s %s/%s%s)", v, runtime.Version(), runtime.GOOS, runtime.GOARCH, note)
}
