package cmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/reviewdev/review/internal/text"
)

// A flag group is the part of a command's help a flag is listed in, by
// purpose, and the `review help` topic that explains its flags at length.
// A flag names its group once, where it is registered (inGroup); a
// command with one grouped flag lists every flag by group, in the order
// of flagGroups and, within a group, in the order they were registered:
// the common ones first. TestHelpGroups fails on a flag with no group.
const (
	groupChange   = "change"
	groupModel    = "model"
	groupOutputs  = "outputs"
	groupFindings = "findings"
	groupCost     = "cost"
	groupBudget   = "budget"
	groupFollowUp = "follow-ups"
	groupCorpus   = "corpus"
	groupGeneral  = "general"
)

// flagGroups are the groups in the order a command's help lists them,
// with their titles.
var flagGroups = []struct{ id, title string }{
	{groupCorpus, "The corpus"},
	{groupChange, "The change"},
	{groupModel, "Model and server"},
	{groupOutputs, "Outputs and posting"},
	{groupFindings, "Findings and the gate"},
	{groupCost, "Cost and coverage"},
	{groupBudget, "Context budget"},
	{groupFollowUp, "Follow-up questions"},
	{groupGeneral, "General"},
}

// groupKey is the pflag annotation that holds a flag's group.
const groupKey = "review_help_group"

// helpWidth is the width the grouped help is written for: flags'
// descriptions wrap to it.
const helpWidth = 80

// inGroup puts the flags of fl named in group. A name fl does not hold is
// left alone: bench takes the review's flags but some.
func inGroup(fl *pflag.FlagSet, group string, names ...string) {
	for _, n := range names {
		_ = fl.SetAnnotation(n, groupKey, []string{group})
	}
}

// flagGroup is the group of f; "" for none. Cobra's own --help is
// general.
func flagGroup(f *pflag.Flag) string {
	if g := f.Annotations[groupKey]; len(g) == 1 {
		return g[0]
	}
	if f.Name == "help" {
		return groupGeneral
	}
	return ""
}

// grouped reports whether c lists its flags by group: whether any of its
// own flags, but --help, has a group.
func grouped(c *cobra.Command) bool {
	found := false
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if f.Name != "help" && flagGroup(f) != "" {
			found = true
		}
	})
	return found
}

// cobraUsage is cobra's own usage function, for the commands whose flags
// are not grouped: a command without a usage function of its own or of
// a parent's falls back to it.
var cobraUsage = (&cobra.Command{}).UsageFunc()

// usage is the usage function of every command: cobra's layout, with the
// flags of a grouped command listed by group. It writes no template:
// text/template would make the linker keep every exported method
// (internal/policy's TestBinary).
func usage(c *cobra.Command) error {
	if !grouped(c) {
		return cobraUsage(c)
	}
	var b strings.Builder
	b.WriteString("Usage:")
	if c.Runnable() {
		b.WriteString("\n  " + c.UseLine())
	}
	if c.HasAvailableSubCommands() {
		b.WriteString("\n  " + c.CommandPath() + " [command]")
	}
	if c.HasExample() {
		b.WriteString("\n\nExamples:\n" + c.Example)
	}
	if c.HasAvailableSubCommands() {
		b.WriteString("\n\nAvailable Commands:")
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				fmt.Fprintf(&b, "\n  %-*s %s", sub.NamePadding(), sub.Name(), sub.Short)
			}
		}
	}
	b.WriteString("\n\n")
	writeGroups(&b, c)
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "\nUse \"%s [command] --help\" for more information about a command.\n", c.CommandPath())
	}
	_, err := io.WriteString(c.OutOrStderr(), b.String())
	return err
}

// writeGroups writes the flags of c, its own and those it inherits, by
// group, each flag on one line where its description fits.
func writeGroups(b *strings.Builder, c *cobra.Command) {
	byGroup := map[string][]*pflag.Flag{}
	add := func(f *pflag.Flag) {
		if !f.Hidden {
			g := flagGroup(f)
			byGroup[g] = append(byGroup[g], f)
		}
	}
	// c.Flags holds the inherited flags too, after its own, each in the
	// order it was registered (listInOrder).
	c.Flags().VisitAll(add)
	for _, g := range flagGroups {
		if fs := byGroup[g.id]; len(fs) > 0 {
			fmt.Fprintf(b, "%s (%s help %s):\n", g.title, c.Root().Name(), g.id)
			writeFlags(b, fs)
		}
	}
	// A flag with no group is still listed: TestHelpGroups names it.
	if fs := byGroup[""]; len(fs) > 0 {
		b.WriteString("Other flags:\n")
		writeFlags(b, fs)
	}
}

// writeFlags writes one group's flags: the names in a column as wide as
// the group's longest (up to maxNameColumn), each description wrapped to
// helpWidth beside it.
func writeFlags(b *strings.Builder, fs []*pflag.Flag) {
	const maxNameColumn = 30
	pad := false
	for _, f := range fs {
		pad = pad || f.Shorthand != ""
	}
	names := make([]string, len(fs))
	col := 0
	for i, f := range fs {
		names[i] = flagName(f, pad)
		if n := len(names[i]); n <= maxNameColumn {
			col = max(col, n)
		}
	}
	for i, f := range fs {
		name := names[i]
		lead := "  " + name + strings.Repeat(" ", max(col-len(name), 0)) + "  "
		lines := strings.Split(text.Wrap(flagHelp(f), helpWidth-len(lead)), "\n")
		b.WriteString(lead + lines[0] + "\n")
		for _, l := range lines[1:] {
			b.WriteString(strings.Repeat(" ", len(lead)) + l + "\n")
		}
	}
}

// flagName is a flag as its help line starts: "-o, --output FILE" or
// "--model string" ("    --model string" in a group with a shorthand,
// pad), the value's name from the usage's `NAME` or its type, as pflag
// names it.
func flagName(f *pflag.Flag, pad bool) string {
	varname, _ := pflag.UnquoteUsage(f)
	s := "--" + f.Name
	switch {
	case pad && f.Shorthand == "":
		s = "    " + s
	case f.Shorthand != "":
		s = "-" + f.Shorthand + ", --" + f.Name
	}
	if varname != "" {
		s += " " + varname
	}
	return s
}

// flagHelp is a flag's description with its default, unless the default
// is the zero value (the description says what none means).
func flagHelp(f *pflag.Flag) string {
	_, u := pflag.UnquoteUsage(f)
	switch f.DefValue {
	case "", "0", "false", "[]", "0s":
	default:
		u += " (default " + f.DefValue + ")"
	}
	return u
}
