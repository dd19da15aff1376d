package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/review/llm"
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
the read_tool_output call that pages through the rest. --full prints the
whole output instead, byte for byte. The ref is printed on standard error;
read the output again with review memory show <ref>. An error result (a
refused path, a bad argument) is printed like any result and exits with 1.

Tools: ` + strings.Join(tools.New(tools.Env{}).Names(), ", "),
		Example: `  review tool list_project_files '{"path_prefix": "cmd/"}'
  review tool search_in_project '{"pattern": "TODO"}'
  review tool read_file_hunk '{"path": "main.go", "start_line": 1, "end_line": 20}'
  review tool --base main get_file_diff '{"path": "main.go"}'
  review tool read_tool_output '{"ref": "k3f9a2c01b", "start_line": 41, "line_count": 80}'`,
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
	c.Flags().StringVar(&opts.Base, "base", "", `revision that read_file_hunk's "base" and get_file_diff read (its merge base with --head)`)
	c.Flags().StringVar(&opts.Head, "head", "HEAD", "revision the tools read")
	addStoreFlag(c.Flags(), &opts.Store)
	c.Flags().BoolVar(&opts.Full, "full", false, "print the whole output, not the model's preview")
	return c
}

func runTool(ctx context.Context, opts *ToolOptions) error {
	// The name and the shape of the arguments are checked before anything
	// else: they are mistakes in the command line, not results to store.
	if names := tools.New(tools.Env{}).Names(); !slices.Contains(names, opts.Name) {
		return usageErrorf("unknown tool %q: use one of %s", opts.Name, strings.Join(names, ", "))
	}
	if err := checkToolArgs(ctx, opts.Name, opts.Args); err != nil {
		return err
	}
	root, err := gitOut(ctx, opts.Dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return fmt.Errorf("review tool needs a git repository: %w", err)
	}
	head, err := gitOut(ctx, root, "rev-parse", "--verify", "--end-of-options", opts.Head+"^{commit}")
	if err != nil {
		return usageErrorf("unknown revision %q for --head: %v", opts.Head, err)
	}
	base := ""
	if opts.Base != "" {
		b, err := gitOut(ctx, root, "rev-parse", "--verify", "--end-of-options", opts.Base+"^{commit}")
		if err != nil {
			return usageErrorf("unknown revision %q for --base: %v", opts.Base, err)
		}
		if base, err = gitOut(ctx, root, "merge-base", b, head); err != nil {
			// git merge-base says nothing when the histories are unrelated.
			return usageErrorf("no merge base between --base %q and %s (%v): choose a base that shares history with --head", opts.Base, opts.Head, err)
		}
	}
	st, err := openStore(opts.Store, opts.Getenv, opts.Dir)
	if err != nil {
		return err
	}
	defer st.Close()
	set := tools.New(tools.Env{Root: root, Head: head, Base: base, Store: st})
	res := set.Call(ctx, opts.Name, opts.Args)
	if err := ctx.Err(); err != nil {
		return err
	}
	out := res.Output
	if !res.Paged {
		// Stored as the agent stores it: under a run of its own, so gc
		// treats shell calls like any other.
		now := opts.Now()
		run := toolmem.Run{ID: toolmem.NewRunID(now), Repo: root, Head: opts.Head, HeadSHA: head, Base: opts.Base, BaseSHA: base,
			Model: "review tool", Status: "complete", Started: now, Ended: now}
		if err := st.PutRun(run); err != nil {
			return err
		}
		ref, err := st.Put(run.ID, 0, "cli", opts.Name, opts.Args, []byte(out))
		if err != nil {
			return err
		}
		fmt.Fprintf(opts.IO.ErrOut, "stored as ref %s (%d bytes, run %s): review memory show %s\n", ref, len(out), run.ID, ref)
		if !opts.Full {
			b := conversation.DefaultBudget(llm.Lookup("").Window)
			out = toolmem.Preview(ref, []byte(out), toolmem.Limits{Chars: b.PreviewChars, Lines: b.PreviewLines})
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
	if res.IsError {
		return fmt.Errorf("tool %s returned an error result (shown above)", opts.Name)
	}
	return nil
}

// checkToolArgs rejects arguments that are not a JSON object with the
// tool's own message, which shows an example of valid arguments. The model
// would get that message as a result; from the shell it is a usage error.
func checkToolArgs(ctx context.Context, name, args string) error {
	var obj map[string]json.RawMessage
	trimmed := strings.TrimSpace(args)
	if trimmed == "" || trimmed == "null" || (json.Unmarshal([]byte(trimmed), &obj) == nil && obj != nil) {
		return nil
	}
	// Arguments that are not an object fail the tool's first check, before
	// it reads the repository, so an empty environment is enough.
	res := tools.New(tools.Env{}).Call(ctx, name, args)
	return usageErrorf("%s; quote the JSON for the shell: review tool %s '{...}'", strings.TrimPrefix(res.Output, "error: "), name)
}

// gitOut runs git in dir and returns its trimmed output; errors carry git's
// own message.
func gitOut(ctx context.Context, dir string, args ...string) (string, error) {
	c := exec.CommandContext(ctx, "git", args...)
	c.Dir = dir
	out, err := c.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && len(ee.Stderr) > 0 {
			return "", fmt.Errorf("%s", strings.TrimSpace(string(ee.Stderr)))
		}
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	return strings.TrimSpace(string(out)), nil
}
