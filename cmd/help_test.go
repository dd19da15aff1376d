package cmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/reviewdev/review/docs"
)

// helpOf runs review with args and returns what it printed.
func helpOf(t *testing.T, args ...string) string {
	t.Helper()
	var out, errs bytes.Buffer
	f := &Factory{
		IO:     &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errs},
		Getenv: func(string) string { return "" },
	}
	if code := run(context.Background(), f, args); code != ExitOK {
		t.Fatalf("review %s: exit %d: %s", strings.Join(args, " "), code, errs.String())
	}
	return out.String()
}

// groupedCommands are the commands whose help lists their flags by group:
// every one that takes the agent's flags.
func groupedCommands(t *testing.T) []*cobra.Command {
	t.Helper()
	root := NewCmdRoot(&Factory{IO: &IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}, Getenv: func(string) string { return "" }})
	var cs []*cobra.Command
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		c.InitDefaultHelpFlag()
		if c.Flags().Lookup("model") != nil && c.Flags().Lookup("max-steps") != nil {
			cs = append(cs, c)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for _, name := range []string{"review", "review ask", "review bench"} {
		found := false
		for _, c := range cs {
			found = found || c.CommandPath() == name
		}
		if !found {
			t.Fatalf("%s does not take the agent's flags any more: groupedCommands finds the commands whose help is grouped by them", name)
		}
	}
	return cs
}

// TestHelpGroups holds every flag of a command whose help is grouped
// (review, ask, bench, config, comment) to a group of flagGroups: a flag
// without one is listed under "Other flags", where nobody looks.
func TestHelpGroups(t *testing.T) {
	known := map[string]bool{}
	var ids []string
	for _, g := range flagGroups {
		known[g.id] = true
		ids = append(ids, "group"+strings.ToUpper(g.id[:1])+g.id[1:])
	}
	for _, c := range groupedCommands(t) {
		if !grouped(c) {
			t.Errorf("%s: its flags are not grouped", c.CommandPath())
		}
		check := func(f *pflag.Flag) {
			switch g := flagGroup(f); {
			case f.Hidden:
			case g == "":
				t.Errorf("%s --%s has no help group: name it where the flag is registered, as inGroup(fl, groupOutputs, %q), with one of the groups of cmd/help.go (%s), and add its row to that group's section of docs/configuration.md",
					c.CommandPath(), f.Name, f.Name, strings.Join(ids, ", "))
			case !known[g]:
				t.Errorf("%s --%s is in group %q, which flagGroups (cmd/help.go) does not list", c.CommandPath(), f.Name, g)
			}
		}
		c.LocalFlags().VisitAll(check)
		c.InheritedFlags().VisitAll(check)
	}
}

// TestHelpFits holds review --help to two screens: at most 100 lines, none
// wider than 80 columns, so each flag's description is one line. A long
// explanation belongs in docs/configuration.md, which review help TOPIC
// prints. bench's and ask's help share the groups and the width.
func TestHelpFits(t *testing.T) {
	const most = 100
	for _, args := range [][]string{{"--help"}, {"ask", "--help"}, {"bench", "--help"}} {
		out := helpOf(t, args...)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if args[0] == "--help" && len(lines) > most {
			t.Errorf("review --help is %d lines, more than %d (two screens): make each flag's description one line (this test names those that wrap) and move what it explains to its group's section of docs/configuration.md; if each is one line already, ask whether the new setting needs a flag (a key of .review.yaml may do), or shorten the command's Long text", len(lines), most)
		}
		for i, l := range lines {
			if len(l) > helpWidth {
				t.Errorf("review %s line %d is %d columns, more than %d: %q", strings.Join(args, " "), i+1, len(l), helpWidth, l)
			}
			// A flag's description that wraps continues on a line that
			// starts with white space and no dash.
			if i > 0 && strings.HasPrefix(l, "        ") && strings.HasPrefix(strings.TrimSpace(lines[i-1]), "-") {
				t.Errorf("review %s: %s takes two lines: shorten its description to one", strings.Join(args, " "), strings.Fields(lines[i-1])[0])
			}
		}
	}
}

// TestHelpOrder holds the grouped help to the order of flagGroups, each
// flag once, the common ones first in their group: --base leads the
// change, --model the model.
func TestHelpOrder(t *testing.T) {
	out := helpOf(t, "--help")
	last := -1
	for _, g := range flagGroups {
		i := strings.Index(out, "\n"+g.title+" (review help "+g.id+"):\n")
		if g.id == groupCorpus {
			continue
		}
		if i < 0 || i < last {
			t.Errorf("group %q is not in its place in review --help", g.title)
		}
		last = i
	}
	for _, first := range []string{"The change (review help change):\n  --base ", "Model and server (review help model):\n  --model ", "Findings and the gate (review help findings):\n  --fail-on "} {
		if !strings.Contains(out, first) {
			t.Errorf("review --help does not list %q", first)
		}
	}
	if n := strings.Count(out, "--max-cost "); n != 1 {
		t.Errorf("review --help lists --max-cost %d times", n)
	}
	if strings.Contains(out, "Other flags:") {
		t.Errorf("review --help lists flags with no group:\n%s", out)
	}
}

// TestHelpDocs holds docs/configuration.md, which review help TOPIC
// prints, to the flags: each flag of review, ask and bench has a row in
// its group's section, or, for ask's and bench's own, in the command's.
func TestHelpDocs(t *testing.T) {
	titles := map[string]string{}
	for _, g := range flagGroups {
		titles[g.id] = g.title
		if g.id == groupCorpus {
			titles[g.id] = benchSection
		}
	}
	for _, c := range groupedCommands(t) {
		path := c.CommandPath()
		if path != "review" && path != "review ask" && path != "review bench" {
			continue
		}
		own, _ := docSection(docs.Configuration, "Flags of `"+path+"`")
		check := func(f *pflag.Flag) {
			g := flagGroup(f)
			if f.Hidden || f.Name == "help" || g == "" {
				return
			}
			sec, ok := docSection(docs.Configuration, titles[g])
			if !ok {
				t.Fatalf("docs/configuration.md has no section %q for the group %s", titles[g], g)
			}
			name := "`--" + f.Name
			if f.Shorthand != "" {
				name = "`-" + f.Shorthand + ", --" + f.Name
			}
			if path != "review" && strings.Contains(own, "| "+name) {
				return
			}
			if !strings.Contains(sec, "| "+name) {
				where := fmt.Sprintf("the section %q", titles[g])
				if path != "review" {
					where += fmt.Sprintf(" or %q", "Flags of `"+path+"`")
				}
				t.Errorf("docs/configuration.md: %s %s has no row in %s: add | %s …` | default | meaning |", path, name[1:], where, name)
			}
		}
		c.LocalFlags().VisitAll(check)
	}
}

// TestHelpTopics renders every topic review help knows, and holds the
// reference's sections to what the help says of them.
func TestHelpTopics(t *testing.T) {
	for _, name := range topicNames() {
		out := helpOf(t, "help", name)
		if len(strings.TrimSpace(out)) < 100 {
			t.Errorf("review help %s printed %q", name, out)
		}
	}
	out := helpOf(t, "help", "budget")
	for _, want := range []string{"Context budget\n", "  --answer-reserve N\n      tokens kept free for the answer\n      default: 8192", "See docs/configuration.md#context-budget."} {
		if !strings.Contains(out, want) {
			t.Errorf("review help budget does not hold %q:\n%s", want, out)
		}
	}
	// The hosts come from the table of hosts, each with its flags.
	hostsOut := helpOf(t, "help", "hosts")
	for _, h := range hosts {
		if !strings.Contains(hostsOut, "\n  "+h.Name+"\n") {
			t.Errorf("review help hosts does not name %s", h.Name)
		}
		for _, f := range h.Flags {
			if !strings.Contains(hostsOut, "--"+f.Name) {
				t.Errorf("review help hosts does not name --%s", f.Name)
			}
		}
	}
	// A command's help, as before.
	if out := helpOf(t, "help", "ask"); !strings.Contains(out, "Usage:\n  review ask") {
		t.Errorf("review help ask:\n%s", out)
	}
}

func TestMdText(t *testing.T) {
	md := "### Title\n\nA [link](x.md) and `code`, **strong**.\n\n| flag | default | meaning |\n|---|---|---|\n| `--a N` | 3 | what a\\|b does |\n| `--b` | | b |\n\n- one\n  two\n\n```yaml\n# not a heading\n```\n"
	want := "Title\n\nA link and code, strong.\n\n  --a N\n      what a|b does\n      default: 3\n  --b\n      b\n\n  - one two\n\n    # not a heading"
	if got := mdText(md, 80); got != want {
		t.Errorf("mdText =\n%s\nwant\n%s", got, want)
	}
	if s, ok := docSection("# A\n```\n## B\n```\n## C\nc\n# D\n", "C"); !ok || s != "## C\nc" {
		t.Errorf("docSection = %q, %v", s, ok)
	}
	if a := anchor("Flags of `review bench`"); a != "flags-of-review-bench" {
		t.Errorf("anchor = %q", a)
	}
}
