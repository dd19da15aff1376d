package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
)

// Factory carries what every command needs from its environment, so tests
// can run commands with their own streams, environment and clock.
type Factory struct {
	IO     *IOStreams
	Getenv func(string) string
	// Dir is the working directory; "" means the process's.
	Dir string
	Now func() time.Time
}

// Main runs the review command line and returns the process exit code.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	f := &Factory{IO: System(), Getenv: os.Getenv, Now: time.Now}
	return run(ctx, f, os.Args[1:])
}

func run(ctx context.Context, f *Factory, args []string) int {
	root := NewCmdRoot(f)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	if ctx.Err() != nil && !errors.Is(err, errFindings) {
		fmt.Fprintln(f.IO.ErrOut, "review: interrupted")
		return ExitInterrupted
	}
	if !errors.Is(err, errFindings) {
		fmt.Fprintln(f.IO.ErrOut, "review: "+oneLine(err))
	}
	var ue *UsageError
	if errors.As(err, &ue) {
		fmt.Fprintln(f.IO.ErrOut, "Run 'review --help' for usage.")
	}
	return exitCode(err)
}

// NewCmdRoot builds the review command tree.
func NewCmdRoot(f *Factory) *cobra.Command {
	root := NewCmdReview(f, nil)
	root.SilenceErrors = true
	root.SilenceUsage = true
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetIn(f.IO.In)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &UsageError{Err: err}
	})
	root.AddCommand(
		NewCmdVersion(f),
		NewCmdReplay(f, nil),
		NewCmdRuns(f, nil),
		NewCmdTool(f, nil),
		NewCmdMemory(f),
		NewCmdGC(f, nil),
		NewCmdDoctor(f, nil),
		NewCmdAsk(f, nil),
		NewCmdConfig(f, nil),
	)
	return root
}

// usageArgs turns cobra's positional-argument errors into usage errors.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if err := check(c, args); err != nil {
			return &UsageError{Err: err}
		}
		return nil
	}
}
