package cmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/git"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/review/record"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/toolmem"
	"github.com/reviewdev/review/tools"
)

// ToolOptions are the settings of `review tool`.
type ToolOptions struct {
	IO     *IOStreams
	Getenv func(string) string
	Dir    string
	Now    func() time.Time

	Name  string
	Args  string
	Base  string
	Head  string
	Store string
	Full  bool
}

// NewCmdTool builds `review tool <name> '<json args>'`.
func NewCmdTool(f *Factory, runF func(*ToolOptions) error) *cobra.Command {
	opts := &ToolOptions{IO: f.IO, Getenv: f.Getenv, Dir: f.Dir, Now: f.Now}
	c := &cobra.Command{
		Use:   "tool <name> ['<json args>']",
		Short: "Run one of the model's tools from the shell and store its output",
		Long: `tool runs a repository tool exactly as the model would call it, stores the whole
output in tool memory, and prints what the model would receive: the output
itself if it is small, otherwise a preview whose first line names the ref and
the ` + toolname.ReadToolOutput + ` call that pages through the rest. --full prints the
whole output instead, byte for byte. The ref is printed on standard error;
read the output again with review memory show <ref>. An error result (a
refused path, a bad argument) is printed like any result and exits with 1.

Tools: `, // the tools' names are added when the help is shown (toolHelp)
		Example: `  review tool ` + toolname.ListProjectFiles + ` '{"path_prefix": "cmd/"}'
  review tool ` + toolname.SearchInProject + ` '{"pattern": "TODO"}'
  review tool ` + toolname.ReadFileHunk + ` '{"path": "main.go", "start_line": 1, "end_line": 20}'
  review tool --base main ` + toolname.GetFileDiff + ` '{"path": "main.go"}'
  review tool ` + toolname.ReadToolOutput + ` '{"ref": "k3f9a2c01b", "start_line": 41, "line_count": 80}'`,
		Args: usageArgs(cobra.RangeArgs(1, 2)),
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return tools.New(tools.Env{}).Names(), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.Name = args[0]
			opts.Args = "{}"
			if len(args) == 2 {
				opts.Args = args[1]
			}
			if runF != nil {
				return runF(opts)
			}
			return runTool(c.Context(), opts)
		},
	}
	c.SetHelpFunc(toolHelp)
	c.Flags().StringVar(&opts.Base, "base", "", "revision that "+toolname.ReadFileHunk+`'s "base" and `+toolname.GetFileDiff+" read (its merge base with --head)")
	c.Flags().StringVar(&opts.Head, "head", "HEAD", "revision the tools read")
	addStoreFlag(c.Flags(), &opts.Store)
	c.Flags().BoolVar(&opts.Full, "full", false, "print the whole output, not the model's preview")
	return c
}

// toolHelp shows the tool command's help with the tools' names, which
// building the tools (their definitions and schemas) gives: built when
// the help is asked for, not as every command starts.
func toolHelp(c *cobra.Command, args []string) {
	if !strings.Contains(c.Long, toolname.ListProjectFiles) {
		c.Long += strings.Join(tools.New(tools.Env{}).Names(), ", ")
	}
	c.SetHelpFunc(nil)
	c.HelpFunc()(c, args)
}

func runTool(ctx context.Context, opts *ToolOptions) error {
	// The name and the shape of the arguments are checked before anything
	// else: they are mistakes in the command line, not results to store.
	if names := tools.New(tools.Env{}).Names(); !slices.Contains(names, opts.Name) {
		return usageErrorf("unknown tool %q: use one of %s", opts.Name, strings.Join(names, ", "))
	}
	if err := checkToolArgs(opts.Name, opts.Args); err != nil {
		return err
	}
	root, err := git.Runner{Dir: opts.Dir}.TopLevel(ctx)
	if err != nil {
		if strings.Contains(err.Error(), "not a git repository") {
			where, _ := filepath.Abs(cmp.Or(opts.Dir, "."))
			return fmt.Errorf("%s is not inside a git repository: run review tool in one", where)
		}
		return fmt.Errorf("review tool needs a git repository: %w", err)
	}
	// An unknown revision is a problem of the repository, as for a
	// review (exit 1), with the same advice.
	head, err := diffctx.Resolve(ctx, root, opts.Head)
	if err != nil {
		return fmt.Errorf("--head: %w", err)
	}
	base := ""
	if opts.Base != "" {
		b, err := diffctx.Resolve(ctx, root, opts.Base)
		if err != nil {
			return fmt.Errorf("--base: %w", err)
		}
		if base, err = (git.Runner{Dir: root}).Text(ctx, "merge-base", b, head); err != nil {
			// git merge-base says nothing when the histories are unrelated.
			return fmt.Errorf("no merge base between --base %q and %s (%s): choose a base that shares history with --head", opts.Base, opts.Head, gitComplaint(err))
		}
	}
	st, err := openStore(opts.Store, opts.Getenv, opts.Dir)
	if err != nil {
		return err
	}
	defer st.Close()
	set := tools.New(tools.Env{Root: root, Head: head, Base: base, Store: st, Redact: (&result.Config{Redact: true}).Redactor()})
	// Run, stored and previewed as the agent does it, with the default
	// preview limits, under a run of its own, so gc treats shell calls like
	// any other. The run is recorded once an output is stored under it.
	now := opts.Now()
	run := toolmem.Run{ID: toolmem.NewRunID(now), Repo: root, Head: opts.Head, HeadSHA: head, Base: opts.Base, BaseSHA: base,
		Model: toolRunModel, Status: toolmem.StatusComplete, Started: now, Ended: now}
	ans, err := set.Answer(ctx, tools.Call{Run: run.ID, Step: 0, ID: "cli", Name: opts.Name, Args: opts.Args}, toolmem.Limits{})
	if err != nil {
		return err
	}
	out := ans.Content
	if ans.Ref != "" {
		if err := record.NewWriter(st, run.ID).Run(run); err != nil {
			return err
		}
		fmt.Fprintf(opts.IO.ErrOut, "stored as ref %s (%s bytes, run %s): review memory show %s\n", ans.Ref, text.Number(len(ans.Output)), run.ID, ans.Ref)
		if opts.Full {
			out = ans.Output
		}
	}
	w := opts.IO.Out
	if opts.Full {
		w = opts.IO.ExactOut()
	}
	if _, err := io.WriteString(w, out); err != nil {
		return err
	}
	// --full is byte-exact, like review memory show; the preview is for
	// reading and ends its last line.
	if !opts.Full && !strings.HasSuffix(out, "\n") {
		fmt.Fprintln(opts.IO.Out)
	}
	if ans.IsError {
		return fmt.Errorf("tool %s returned an error result (shown above)", opts.Name)
	}
	return nil
}

// checkToolArgs rejects arguments that are not a JSON object with the
// tool's own message, which shows an example of valid arguments. The model
// would get that message as a result; from the shell it is a usage error.
// Mistakes in single arguments are left to the call, whose error result
// the model would get.
func checkToolArgs(name, args string) error {
	var ae *tools.ArgError
	if err := tools.New(tools.Env{}).Check(name, args); errors.As(err, &ae) && ae.Arg == "" {
		return usageErrorf("%v; quote the JSON for the shell: review tool %s '{...}'", err, name)
	}
	return nil
}

// toolRunModel stands for the model in the run that holds review tool
// outputs; review runs lists such runs only with --all.
const toolRunModel = "review tool"
