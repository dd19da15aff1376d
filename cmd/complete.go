package cmd

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reviewdev/review/internal/git"
	"github.com/reviewdev/review/toolmem"
)

// completionTimeout bounds what a completion may wait for (the store, git):
// a shell waiting on a tab key is worse than no candidates.
const completionTimeout = 2 * time.Second

// addCompletions gives the shell completion its candidates: git branches
// and tags for every --base, --head and --since, run IDs for --run. The
// commands that take a run ID as an argument say so themselves
// (completeRunIDs).
func addCompletions(c *cobra.Command, f *Factory) {
	for _, sub := range c.Commands() {
		addCompletions(sub, f)
	}
	for _, name := range []string{"base", "head", "since"} {
		if c.LocalFlags().Lookup(name) != nil {
			_ = c.RegisterFlagCompletionFunc(name, completeRefs(f))
		}
	}
	if c.LocalFlags().Lookup("run") != nil {
		_ = c.RegisterFlagCompletionFunc("run", completeRuns(f, true))
	}
	if c.LocalFlags().Lookup("fail-on") != nil {
		_ = c.RegisterFlagCompletionFunc("fail-on", completeFailOn)
	}
}

// completeFailOn completes --fail-on's list: a severity (or none), and
// unreviewed, alone or after a comma (high,unreviewed).
func completeFailOn(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	words := []string{"none", "info", "low", "medium", "high", "critical"}
	prefix, _ := cutLast(toComplete, ",")
	if prefix == "" {
		return append(words, "unreviewed", "high,unreviewed"), cobra.ShellCompDirectiveNoFileComp
	}
	if strings.Contains(","+prefix, ",unreviewed,") {
		words = words[1:] // none stands alone
	} else {
		words = []string{"unreviewed"}
	}
	out := make([]string, 0, len(words))
	for _, w := range words {
		out = append(out, prefix+w)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// cutLast cuts s after the last sep: what comes before it, sep included,
// and what follows; "" and s when s has no sep.
func cutLast(s, sep string) (string, string) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return "", s
	}
	return s[:i+len(sep)], s[i+len(sep):]
}

// completeRunIDs completes a command's first argument with run IDs.
func completeRunIDs(f *Factory) cobra.CompletionFunc {
	runs := completeRuns(f, false)
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		// ask --base takes a question, not a run.
		if len(args) > 0 || c.Flags().Changed("base") {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return runs(c, args, toComplete)
	}
}

// completeRuns lists the recorded runs, newest first, each with its
// status and what it compared, from the store the command would read,
// opened read-only and never waited for. A run is offered by its whole ID
// or, when that is what was typed, by its random suffix. Runs of review
// tool calls are offered only when tools is set (memory list --run).
func completeRuns(f *Factory, tools bool) cobra.CompletionFunc {
	return func(c *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		const directive = cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
		flag := ""
		if fl := c.Flags().Lookup("store"); fl != nil {
			flag = fl.Value.String()
		}
		d, err := storeDir(flag, f.Getenv, f.Dir)
		if err != nil {
			return nil, directive
		}
		st, err := toolmem.Open(d, toolmem.Options{ReadOnly: true, LockWait: -1})
		if err != nil {
			return nil, directive
		}
		defer st.Close()
		runs, err := st.Runs()
		if err != nil {
			return nil, directive
		}
		var out []cobra.Completion
		for _, r := range slices.Backward(runs) {
			if r.Model == toolRunModel && !tools {
				continue
			}
			id := r.ID
			if !strings.HasPrefix(id, toComplete) {
				if id = runSuffix(r.ID); toComplete == "" || !strings.HasPrefix(id, toComplete) {
					continue
				}
			}
			revs := r.Head
			if r.Base != "" {
				revs = r.Base + ".." + r.Head
			}
			out = append(out, cobra.CompletionWithDesc(id, fmt.Sprintf("%s · %s · %s", runStatus(r), revs, r.Model)))
		}
		return out, directive
	}
}

// completeRefs lists the repository's branches and tags, local first.
func completeRefs(f *Factory) cobra.CompletionFunc {
	return func(c *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		ctx, cancel := context.WithTimeout(context.Background(), completionTimeout)
		defer cancel()
		out, err := git.Runner{Dir: f.Dir}.Output(ctx, "for-each-ref", "--format=%(refname:short)",
			"refs/heads", "refs/tags", "refs/remotes")
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var refs []cobra.Completion
		for _, r := range strings.Split(string(out), "\n") {
			if r != "" && strings.HasPrefix(r, toComplete) && !strings.HasSuffix(r, "/HEAD") {
				refs = append(refs, r)
			}
		}
		return refs, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
	}
}
