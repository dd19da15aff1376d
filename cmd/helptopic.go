package cmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reviewdev/review/docs"
	"github.com/reviewdev/review/internal/lazy"
	"github.com/reviewdev/review/internal/text"
)

// topic is a `review help` topic: a section of docs/configuration.md (a
// flag group's, by its title), or a text made from a table in code.
type topic struct {
	name string
	// section is the heading of docs/configuration.md the topic prints.
	section string
	// text makes the topic instead, from the table it explains.
	text func() string
}

// benchSection is the section of docs/configuration.md that explains
// the corpus group: bench's own flags.
const benchSection = "Flags of `review bench`"

// helpTopics are the topics `review help` knows: a topic for each flag
// group, named by its ID, then the tables in code and the reference's
// other sections.
func helpTopics() []topic {
	var ts []topic
	for _, g := range flagGroups {
		sec := g.title
		if g.id == groupCorpus {
			sec = benchSection
		}
		ts = append(ts, topic{name: g.id, section: sec})
	}
	return append(ts,
		topic{name: "hosts", text: hostsHelp},
		topic{name: "exit-codes", text: exitCodeHelp},
		topic{name: "settings", section: "Where settings come from"},
		topic{name: "environment", section: "Environment"},
	)
}

// topicNames are the names of helpTopics, in order.
func topicNames() []string {
	var names []string
	for _, t := range helpTopics() {
		names = append(names, t.name)
	}
	return names
}

// topicNamed is the topic called name.
func topicNamed(name string) (topic, bool) {
	for _, t := range helpTopics() {
		if t.name == name {
			return t, true
		}
	}
	return topic{}, false
}

// render is the topic as text helpWidth columns wide; an error if its
// section is not in the reference (TestHelpTopics).
func (t topic) render() (string, error) {
	if t.text != nil {
		return t.text(), nil
	}
	sec, ok := docSection(docs.Configuration, t.section)
	if !ok {
		return "", fmt.Errorf("docs/configuration.md has no section %q", t.section)
	}
	return mdText(sec, helpWidth) + "\n\nSee docs/configuration.md#" + anchor(t.section) + ".", nil
}

// newCmdHelp builds `review help`: a command's help, as cobra's own help
// command prints it, or a topic at length.
func newCmdHelp() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command | topic]",
		Short: "Help about any command, or a topic at length",
		Long: text.Wrap("help prints the help of a command, or a topic at length: "+text.JoinOr(topicNames())+
			". A flag group's topic is its section of docs/configuration.md.", helpWidth),
		ValidArgsFunction: func(c *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			names := topicNames()
			for _, sub := range c.Root().Commands() {
				if sub.IsAvailableCommand() {
					names = append(names, sub.Name())
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				if t, ok := topicNamed(args[0]); ok {
					s, err := t.render()
					if err != nil {
						return err
					}
					_, err = io.WriteString(c.OutOrStdout(), s+"\n")
					return err
				}
			}
			target, rest, err := c.Root().Find(args)
			if err != nil || len(rest) > 0 {
				return usageErrorf("unknown help topic %q: name a command or %s", strings.Join(args, " "), text.JoinOr(topicNames()))
			}
			target.InitDefaultHelpFlag()
			target.InitDefaultVersionFlag()
			return target.Help()
		},
	}
}

// hostsHelp is the hosts topic, from the table of hosts: what each posts
// for a review and for an answer, the thread --reply-to names, and its
// flags.
func hostsHelp() string {
	var b strings.Builder
	b.WriteString("Hosts\n\n")
	b.WriteString(text.Wrap("--post HOST posts a review's findings, or review ask's answer, to the change's conversation on a host; in the host's CI the change is found from its variables, elsewhere from the host's flags. review comment does what a comment there asks.", helpWidth))
	b.WriteString("\n")
	item := func(label, s string) {
		b.WriteString(indentWrap(label+s, "    ", "      "))
	}
	for _, h := range hosts {
		fmt.Fprintf(&b, "\n  %s\n", h.Name)
		item("review: ", h.About.Review)
		item("review ask: ", h.About.Answer)
		if h.About.Thread != "" {
			item("--reply-to: ", h.About.Thread)
		}
		for _, f := range h.Flags {
			name, usage := flagNameUsage(f.Name, f.Usage)
			item(name+": ", usage)
		}
	}
	b.WriteString("\nSee docs/ci.md for each host's CI.")
	return b.String()
}

// flagNameUsage is a flag's name with its value's name, and its usage
// with the value's name unquoted, as pflag reads a `NAME` in a usage.
func flagNameUsage(name, usage string) (string, string) {
	name = "--" + name
	if i := strings.IndexByte(usage, '`'); i >= 0 {
		if j := strings.IndexByte(usage[i+1:], '`'); j >= 0 {
			v := usage[i+1 : i+1+j]
			return name + " " + v, usage[:i] + v + usage[i+2+j:]
		}
	}
	return name, usage
}

// docSection is the section of md under the heading title (any level),
// its heading included, up to the next heading of its level or above; a
// line of a code block is never a heading.
func docSection(md, title string) (string, bool) {
	lines := strings.Split(md, "\n")
	start, level, fence := -1, 0, false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			fence = !fence
		}
		n := len(l) - len(strings.TrimLeft(l, "#"))
		if fence || n == 0 || !strings.HasPrefix(l[n:], " ") {
			continue
		}
		switch {
		case start < 0 && strings.TrimSpace(l[n:]) == title:
			start, level = i, n
		case start >= 0 && n <= level:
			return strings.TrimSpace(strings.Join(lines[start:i], "\n")), true
		}
	}
	if start < 0 {
		return "", false
	}
	return strings.TrimSpace(strings.Join(lines[start:], "\n")), true
}

// anchor is the fragment GitHub gives a heading: lower case, spaces as
// hyphens, other punctuation dropped.
func anchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

var (
	mdLink     = lazy.Regexp(`\[([^\]]+)\]\([^)]*\)`)
	mdEmphasis = lazy.Regexp(`\*\*([^*]+)\*\*`)
)

// mdInline is a line of Markdown as plain text: code spans, links and
// strong emphasis without their marks, escaped pipes as pipes.
func mdInline(s string) string {
	s = mdLink().ReplaceAllString(s, "$1")
	s = mdEmphasis().ReplaceAllString(s, "$1")
	s = strings.ReplaceAll(s, "`", "")
	return strings.ReplaceAll(s, `\|`, "|")
}

// mdText renders a section of the reference as plain text width columns
// wide: headings as they are, paragraphs and list items wrapped, code
// blocks indented as they are, and each table row as its first cell with
// the others beneath it (tableRow).
func mdText(md string, width int) string {
	var out []string
	var para []string
	var header []string
	indent := ""
	flush := func() {
		if len(para) > 0 {
			rest := indent
			if indent != "" {
				rest = strings.Repeat(" ", len(indent))
			}
			out = append(out, strings.TrimSuffix(indentWrap(strings.Join(para, " "), indent, rest), "\n"))
		}
		para, indent = nil, ""
	}
	fence := false
	for _, line := range strings.Split(md, "\n") {
		trim := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trim, "```"):
			flush()
			fence = !fence
		case fence:
			out = append(out, "    "+line)
		case trim == "":
			flush()
			header = nil
			if len(out) > 0 && out[len(out)-1] != "" {
				out = append(out, "")
			}
		case strings.HasPrefix(trim, "#"):
			flush()
			out = append(out, mdInline(strings.TrimSpace(strings.TrimLeft(trim, "#"))))
		case strings.HasPrefix(trim, "|"):
			flush()
			cells := tableCells(trim)
			switch {
			case header == nil:
				header = cells
			case strings.Trim(trim, "|-: ") == "":
			default:
				out = append(out, tableRow(header, cells))
			}
		case strings.HasPrefix(trim, "- ") || strings.HasPrefix(trim, "* ") || listNumber().MatchString(trim):
			flush()
			marker := trim[:strings.IndexByte(trim, ' ')+1]
			indent = "  " + marker
			para = append(para, mdInline(strings.TrimSpace(trim[len(marker):])))
		default:
			para = append(para, mdInline(trim))
		}
	}
	flush()
	return strings.TrimSpace(strings.Join(out, "\n"))
}

var listNumber = lazy.Regexp(`^\d+\. `)

// tableCells splits a Markdown table row on its unescaped pipes.
func tableCells(row string) []string {
	row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
	var cells []string
	start := 0
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\':
			i++
		case row[i] == '|':
			cells = append(cells, strings.TrimSpace(row[start:i]))
			start = i + 1
		}
	}
	return append(cells, strings.TrimSpace(row[start:]))
}

// tableRow is a row as a term and its description: the first cell, then
// the last (a flag's meaning), then the others after their column's name
// (default: 8192), the empty ones left out.
func tableRow(header, cells []string) string {
	s := "  " + mdInline(cells[0]) + "\n"
	last := len(cells) - 1
	var desc []string
	if last > 0 && cells[last] != "" {
		desc = append(desc, mdInline(cells[last]))
	}
	for i := 1; i < last; i++ {
		if cells[i] == "" {
			continue
		}
		label := ""
		if i < len(header) {
			label = mdInline(header[i]) + ": "
		}
		desc = append(desc, label+mdInline(cells[i]))
	}
	for _, d := range desc {
		s += indentWrap(d, "      ", "      ")
	}
	return strings.TrimSuffix(s, "\n")
}

// indentWrap wraps s to helpWidth columns, its first line after first and
// the others after rest, each line ending in a newline.
func indentWrap(s, first, rest string) string {
	lines := strings.Split(text.Wrap(s, helpWidth-len(rest)), "\n")
	var b strings.Builder
	for i, l := range lines {
		if i == 0 {
			b.WriteString(first)
		} else {
			b.WriteString(rest)
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}
