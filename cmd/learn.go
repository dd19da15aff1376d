package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reviewdev/review/internal/git"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/learn"
	"github.com/reviewdev/review/review/report"
)

// LearnOptions are the settings of `review learn add` and `review learn
// list`.
type LearnOptions struct {
	IO  *IOStreams
	Dir string
	Now func() time.Time
	// Rule, Paths and From are what `add` writes.
	Rule  string
	Paths []string
	From  string
	// Rev, for `list`, reads the file at a revision; JSON prints it as
	// JSON.
	Rev  string
	JSON bool
}

// NewCmdLearn builds `review learn`, with `add` and `list`.
func NewCmdLearn(f *Factory, runF func(string, *LearnOptions) error) *cobra.Command {
	run := func(sub string, opts *LearnOptions) error {
		if runF != nil {
			return runF(sub, opts)
		}
		if sub == "add" {
			return runLearnAdd(opts)
		}
		return runLearnList(opts)
	}
	c := &cobra.Command{
		Use:   "learn",
		Short: "Read or add to the team's learnings, " + learn.Path,
		Long: `The team's learnings are short rules in the team's words, kept in the
repository as ` + learn.Path + `: what a reviewer should know about this code
("the query builder escapes its arguments"). Each review gives the model those
that apply to the files it changes, in a section of the static layer, and a
finding the model ties to one is withheld by it rather than posted. In CI the
file is read from the base revision, like .review.yaml, so a pull request
cannot teach the reviewer to pass it. A learning is added by a change to the
file: review learn add here, or /review learn in a pull request, which opens
one for a maintainer to merge.`,
		Args: usageArgs(cobra.NoArgs),
	}
	add := &LearnOptions{IO: f.IO, Dir: f.Dir, Now: f.Now}
	addCmd := &cobra.Command{
		Use:     "add RULE",
		Short:   "Add a learning to " + learn.Path + " in the work tree",
		Example: "  review learn add \"The query builder escapes its arguments: concatenation into db.Q is not SQL injection.\" --path 'internal/db/**'",
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE: func(_ *cobra.Command, args []string) error {
			add.Rule = args[0]
			return run("add", add)
		},
	}
	addCmd.Flags().StringArrayVar(&add.Paths, "path", nil, "a glob of the files it applies to (repeatable; default: every file)")
	addCmd.Flags().StringVar(&add.From, "from", "", "where it came from: pull request, thread, author, date (default: the git user and today)")
	list := &LearnOptions{IO: f.IO, Dir: f.Dir}
	listCmd := &cobra.Command{
		Use:     "list",
		Short:   "Print the learnings, numbered as reviews cite them",
		Example: "  review learn list\n  review learn list --rev origin/main --json",
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			return run("list", list)
		},
	}
	listCmd.Flags().StringVar(&list.Rev, "rev", "", "read the file as committed at this revision (as CI does at the base) instead of the work tree")
	listCmd.Flags().BoolVar(&list.JSON, "json", false, "print the learnings as JSON")
	c.AddCommand(addCmd, listCmd)
	return c
}

// learnFile is the learnings file of the work tree holding dir.
func learnFile(dir string) (string, error) {
	top, err := git.Runner{Dir: dir}.TopLevel(context.Background())
	if err != nil || top == "" {
		return "", errors.New("not in a git work tree: run review learn in the repository whose learnings it keeps")
	}
	return filepath.Join(top, filepath.FromSlash(learn.Path)), nil
}

func runLearnAdd(opts *LearnOptions) error {
	path, err := learnFile(opts.Dir)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("cannot read %s: %w", learn.Path, err)
	}
	from := opts.From
	if from == "" {
		from = defaultFrom(opts.Dir, opts.Now())
	}
	out, n, err := learn.Append(data, learn.Learning{Rule: opts.Rule, Paths: opts.Paths, From: from})
	if err != nil {
		var pe *learn.ParseError
		if errors.As(err, &pe) {
			return fmt.Errorf("%w: mend the file, then add again", err)
		}
		return &UsageError{Err: fmt.Errorf("cannot add the learning: %w", err)}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := replaceFile(path, out); err != nil {
		return fmt.Errorf("cannot write %s: %w", learn.Path, err)
	}
	fmt.Fprintf(opts.IO.Out, "added learning %d to %s; commit it, and reviews read it once it is on the base branch\n", n, learn.Path)
	return nil
}

// defaultFrom is a learning's provenance when none is given: the git
// user and today.
func defaultFrom(dir string, now time.Time) string {
	who, _ := git.Runner{Dir: dir}.Text(context.Background(), "config", "user.name")
	parts := []string{"review learn add"}
	if who = strings.TrimSpace(who); who != "" {
		parts = append(parts, who)
	}
	return strings.Join(append(parts, now.Format("2006-01-02")), ", ")
}

func runLearnList(opts *LearnOptions) error {
	var data []byte
	name := learn.Path
	if opts.Rev != "" {
		name += "@" + opts.Rev
		b, err := git.Runner{Dir: opts.Dir}.Output(context.Background(), "cat-file", "blob", opts.Rev+":"+learn.Path)
		if err != nil {
			return fmt.Errorf("cannot read %s: %s", name, text.OneLine(err.Error(), 200))
		}
		data = b
	} else {
		path, err := learnFile(opts.Dir)
		if err != nil {
			return err
		}
		if data, err = os.ReadFile(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("cannot read %s: %w", learn.Path, err)
		}
	}
	ls, err := learn.Parse(data)
	if err != nil {
		return err
	}
	if opts.JSON {
		if ls == nil {
			ls = []learn.Learning{}
		}
		return report.WriteJSON(opts.IO.Out, ls)
	}
	return writeLearnings(opts.IO.Out, name, ls)
}

// writeLearnings prints learnings as `review learn list` does.
func writeLearnings(w io.Writer, name string, ls []learn.Learning) error {
	if len(ls) == 0 {
		_, err := fmt.Fprintf(w, "no learnings in %s; add one with review learn add \"<rule>\"\n", name)
		return err
	}
	for _, l := range ls {
		fmt.Fprintf(w, "%s\n", text.Safe(learn.Line(l)))
		if l.From != "" {
			fmt.Fprintf(w, "   from: %s\n", text.Safe(l.From))
		}
	}
	return nil
}

// replaceFile writes data to path through a file beside it renamed over
// it: an interrupted write leaves the old file whole.
func replaceFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".learnings-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
