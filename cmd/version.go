package cmd

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is set at build time with -ldflags "-X github.com/reviewdev/review/cmd.Version=v1.2.3";
// otherwise it comes from the module version go install recorded.
var Version = ""

// version returns the best version string available.
func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// NewCmdVersion builds `review version`.
func NewCmdVersion(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of review",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(f.IO.Out, "review %s (%s %s/%s)\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
