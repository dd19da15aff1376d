package cmd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/reviewdev/review/internal/text"
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
	limitMemory(os.Getenv)
	ctx, stop := signalContext()
	defer stop()
	f := &Factory{IO: System(), Getenv: os.Getenv, Now: time.Now}
	f.IO.ActionsLog = hostNamed(ciFrom(f.Getenv).Host).readsCommands()
	out := watchOut(f.IO)
	code := run(ctx, f, os.Args[1:])
	f.IO.Flush()
	return outFailed(out, code, f.IO.ErrOut)
}

// softMemoryLimit is the heap the garbage collector works to stay under
// unless GOMEMLIMIT says otherwise. A review's heap is tens of megabytes;
// one file of tens of megabytes is held whole while it is parsed and
// rendered, and without a limit the heap doubles before each collection.
// The limit is soft: past it the collector works harder (at most half the
// CPU), it never fails an allocation. At 184 MiB the dry run of a
// 20,000-file change peaks under 200 MiB (BenchmarkProcessDryRun20k) for
// the same CPU as at 224 MiB, and a 64 MB added file is not slower.
const softMemoryLimit = 184 << 20

// limitMemory sets softMemoryLimit, unless GOMEMLIMIT is set.
func limitMemory(getenv func(string) string) {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softMemoryLimit)
	}
}

func run(ctx context.Context, f *Factory, args []string) int {
	completing := len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd)
	var root *cobra.Command
	if sub := subcommandIn(args); sub != nil {
		root = newRootOf(f, sub)
	} else {
		root = newRoot(f, completing)
	}
	root.SetArgs(args)
	c, err := root.ExecuteContextC(ctx)
	if err == nil {
		return ExitOK
	}
	if ctx.Err() != nil && !isOutcome(err) {
		fmt.Fprintln(f.IO.ErrOut, interruptedLine(err))
		return ExitInterrupted
	}
	if !isOutcome(err) {
		fmt.Fprintln(f.IO.ErrOut, "review: "+text.OneLine(errorLine(err), 0))
	}
	var he *hintError
	if errors.As(err, &he) {
		for _, l := range he.hint {
			fmt.Fprintln(f.IO.ErrOut, "  "+l)
		}
	}
	var ue *UsageError
	if errors.As(err, &ue) {
		// The usage of the command that was mistyped, not the root's.
		if c == nil {
			c = root
		}
		if c != root {
			fmt.Fprintln(f.IO.ErrOut, "Usage: "+c.UseLine())
		}
		fmt.Fprintf(f.IO.ErrOut, "Run '%s --help' for usage.\n", c.CommandPath())
	}
	return exitCode(err)
}

// NewCmdRoot builds the review command tree.
func NewCmdRoot(f *Factory) *cobra.Command { return newRoot(f, true) }

// subcommand is a command of the root, by name, and how it is made.
type subcommand struct {
	name string
	make func(*Factory) *cobra.Command
}

// subcommands are the root's commands.
// TestSubcommandNames holds each name to its command's.
var subcommands = []subcommand{
	{"version", NewCmdVersion},
	{"replay", func(f *Factory) *cobra.Command { return NewCmdReplay(f, nil) }},
	{"runs", func(f *Factory) *cobra.Command { return NewCmdRuns(f, nil) }},
	{"tool", func(f *Factory) *cobra.Command { return NewCmdTool(f, nil) }},
	{"memory", NewCmdMemory},
	{"gc", NewCmdGC},
	{"doctor", NewCmdDoctor},
	{"ask", func(f *Factory) *cobra.Command { return NewCmdAsk(f, nil) }},
	{"comment", func(f *Factory) *cobra.Command { return NewCmdComment(f, nil) }},
	{"config", NewCmdConfig},
	{"bench", func(f *Factory) *cobra.Command { return NewCmdBench(f, nil) }},
	{"learn", func(f *Factory) *cobra.Command { return NewCmdLearn(f, nil) }},
}

// subcommandIn is the command args run when their first names one of the
// root's commands; nil when they run the root, help or completion, or
// name none.
func subcommandIn(args []string) *subcommand {
	if len(args) == 0 {
		return nil
	}
	for i := range subcommands {
		if subcommands[i].name == args[0] {
			return &subcommands[i]
		}
	}
	return nil
}

// newRoot builds the command tree, with the completions of flags' values
// (refs, runs) only when completing asks for them: the shell's completion
// request is the only command that reads them.
func newRoot(f *Factory, completing bool) *cobra.Command {
	root := NewCmdReview(f, nil)
	startRoot(f, root)
	root.Long += "\n\n" + text.Wrap(exitCodeLine(), helpWidth)
	root.Args = usageArgs(unknownCommand)
	root.SuggestionsMinimumDistance = 2
	// --version prints what `review version` does. It is handled here,
	// not by cobra's Version: cobra prints a line of one's own only
	// through text/template, and text/template's reflection makes the
	// linker keep every exported method of every type (4.7 MB of the
	// binary; internal/policy's TestBinary).
	var showVersion bool
	root.Flags().BoolVar(&showVersion, "version", false, "print the version of review")
	inGroup(root.Flags(), groupGeneral, "version")
	reviewRun := root.RunE
	root.RunE = func(c *cobra.Command, args []string) error {
		if showVersion {
			_, err := fmt.Fprintln(f.IO.Out, versionLine())
			return err
		}
		return reviewRun(c, args)
	}
	for _, sub := range subcommands {
		root.AddCommand(sub.make(f))
	}
	root.SetHelpCommand(newCmdHelp())
	// Made now rather than when the root runs, so its arguments can be
	// checked like every group's.
	root.InitDefaultCompletionCmd()
	finishRoot(root)
	if completing {
		addCompletions(root, f)
	}
	return root
}

// newRootOf builds the root with sub as its only command, for args that
// run sub: every command pays for the tree it is built in (most of it
// the review's flags, registered on the root and on ask, bench and
// comment), and a command run needs only its own and the root's
// persistent flags. The root has no flags of its own then: it does not
// run. TestRootOfHelp holds each command's help the same in both trees.
func newRootOf(f *Factory, sub *subcommand) *cobra.Command {
	root := &cobra.Command{Use: rootName}
	startRoot(f, root)
	root.AddCommand(sub.make(f))
	root.SetHelpCommand(newCmdHelp())
	finishRoot(root)
	return root
}

// rootName is the root command's name, the first word of the review's
// use line (NewCmdReview), which is the root of the whole tree.
const rootName = "review"

// startRoot gives root what every tree's root has before its commands:
// the shared streams, the persistent flags and usage errors.
func startRoot(f *Factory, root *cobra.Command) {
	root.SilenceErrors = true
	root.SilenceUsage = true
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetIn(f.IO.In)
	// Bound to the shared streams, so every command and the progress
	// read them.
	pf := root.PersistentFlags()
	pf.BoolVarP(&f.IO.Quiet, "quiet", "q", false, "print no progress: only errors and warnings")
	pf.BoolVarP(&f.IO.Verbose, "verbose", "v", false, "print each model request's tokens on stderr")
	inGroup(pf, groupGeneral, "quiet", "verbose")
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if f.IO.Quiet && f.IO.Verbose {
			return usageErrorf("--quiet and --verbose ask for less and more: give one")
		}
		return nil
	}
	root.SetFlagErrorFunc(flagError)
}

// flagError is every command's error for a flag it could not parse: a
// usage error. A value of the wrong kind is said in words, not in Go's
// (pflag passes on strconv's "parsing "128k": invalid syntax"), and a
// count written as people write window sizes, with a k or M, gets the
// digits to write instead.
func flagError(_ *cobra.Command, err error) error {
	var iv *pflag.InvalidValueError
	if !errors.As(err, &iv) {
		return &UsageError{Err: err}
	}
	f, v := iv.GetFlag(), iv.GetValue()
	want, ok := map[string]string{"int": "a whole number", "float64": "a number", "bool": "true or false"}[f.Value.Type()]
	if !ok {
		return &UsageError{Err: err}
	}
	msg := fmt.Sprintf("--%s must be %s, got %q", f.Name, want, v)
	if n, ok := suffixed(v); ok && f.Value.Type() == "int" {
		msg += fmt.Sprintf(": write it in digits, as in --%s %d", f.Name, n)
	}
	return &UsageError{Err: errors.New(msg)}
}

// suffixed reads a count written with a k (thousand) or M (million)
// suffix, as in 128k; a window of 128 Ki tokens is 131072, which the
// digits leave to the user to write.
func suffixed(s string) (int, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 2 {
		return 0, false
	}
	mul, ok := map[byte]int{'k': 1e3, 'K': 1e3, 'm': 1e6, 'M': 1e6}[s[len(s)-1]]
	n, err := strconv.Atoi(s[:len(s)-1])
	if !ok || err != nil || n < 0 || n > math.MaxInt32/mul {
		return 0, false
	}
	return n * mul, true
}

// finishRoot gives root, once its commands are in, what every tree's root
// has: flags listed in order, the grouped help and groups that refuse
// what they do not hold.
func finishRoot(root *cobra.Command) {
	// Before anything asks cobra for a command's local flags, which it
	// copies once, in the order it then lists them.
	listInOrder(root)
	root.SetUsageFunc(usage)
	checkGroups(root)
}

// listInOrder keeps the flags of c and its commands in the order they
// were registered, which the grouped help lists them in.
func listInOrder(c *cobra.Command) {
	c.Flags().SortFlags = false
	for _, sub := range c.Commands() {
		listInOrder(sub)
	}
}

// checkGroups makes every command that only groups others (memory,
// completion) refuse an argument that names none of them. Cobra would
// print the group's help and exit 0, so `review completion tcsh` looked
// like it worked. Without arguments a group still prints its help.
func checkGroups(c *cobra.Command) {
	for _, sub := range c.Commands() {
		checkGroups(sub)
	}
	if c == c.Root() || c.Runnable() || !c.HasSubCommands() {
		return
	}
	what := "command"
	if c.Name() == "completion" {
		what = "shell"
		for _, sub := range c.Commands() {
			if sub.Args != nil {
				sub.Args = usageArgs(sub.Args)
			}
		}
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return c.Help()
		}
		var names []string
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				names = append(names, sub.Name())
			}
		}
		return usageErrorf("unknown %s %q for %s: use %s", what, args[0], c.CommandPath(), text.JoinOr(names))
	}
}

// unknownCommand refuses the root command any argument, as cobra.NoArgs
// does, and suggests the command a mistyped one was meant to be: the root
// reviews, so cobra's own suggestions, made only for a root that takes no
// Args, are never reached.
func unknownCommand(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	err := fmt.Errorf("unknown command %q for %q", args[0], c.CommandPath())
	if s := c.SuggestionsFor(args[0]); len(s) > 0 {
		return &hintError{err: err, hint: []string{"did you mean " + text.JoinOr(s) + "?"}}
	}
	return err
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
