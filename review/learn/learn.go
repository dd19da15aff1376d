package learn

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/reviewdev/review/internal/glob"
)

// Path is where the learnings live, relative to the repository's top.
const Path = ".review/learnings.md"

// Limits on what is read: the file may come with a change under review
// (locally, or a hostile base), and every learning in force is sent.
const (
	MaxSize     = 256 << 10
	MaxRule     = 2000 // bytes of one rule
	MaxCount    = 500
	maxGlobs    = 20
	maxProvened = 300 // bytes of a from: line
)

// A Learning is one rule the team taught the reviewer.
type Learning struct {
	// N is its number: its place in the file, from 1. Findings it covers
	// are withheld "by learning N".
	N int `json:"n"`
	// Rule is what the team said, on one line.
	Rule string `json:"rule"`
	// Paths are the globs of the files it applies to (internal/glob's
	// rules); none: every file.
	Paths []string `json:"paths,omitempty"`
	// From says where it came from: pull request, thread, author, date.
	From string `json:"from,omitempty"`
	// Line is the line of the file it starts on.
	Line int `json:"line"`
}

// Applies reports whether the learning applies to a file at path.
func (l Learning) Applies(path string) bool {
	return len(l.Paths) == 0 || glob.Match(l.Paths, path)
}

// ParseError is a mistake in the learnings file, located to its line.
type ParseError struct {
	Line int
	Msg  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %s", Path, e.Line, e.Msg) }

// ErrTooLarge is a learnings file past MaxSize.
var ErrTooLarge = fmt.Errorf("%s is larger than %d KiB", Path, MaxSize>>10)

// Parse reads a learnings file. A learning is an item of a list at the
// start of a line ("1. rule" or "- rule"), its rule on that line and the
// indented lines after it; an indented "paths:" line gives its globs
// (separated by commas or spaces, backticks allowed), an indented "from:"
// line its provenance. A blank line or any other line ends it; headings
// and prose around the list are the team's and are left alone.
func Parse(data []byte) ([]Learning, error) {
	if len(data) > MaxSize {
		return nil, ErrTooLarge
	}
	if !utf8.Valid(data) {
		return nil, &ParseError{Line: 1, Msg: "is not UTF-8 text"}
	}
	var ls []Learning
	var cur *Learning
	end := func() error {
		if cur == nil {
			return nil
		}
		if len(cur.Rule) > MaxRule {
			return &ParseError{Line: cur.Line, Msg: fmt.Sprintf("learning %d is longer than %d bytes: keep a rule to a few sentences", cur.N, MaxRule)}
		}
		ls = append(ls, *cur)
		cur = nil
		return nil
	}
	for i, line := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		n := i + 1
		if rule, ok := item(line); ok {
			if err := end(); err != nil {
				return nil, err
			}
			if len(ls) == MaxCount {
				return nil, &ParseError{Line: n, Msg: fmt.Sprintf("more than %d learnings", MaxCount)}
			}
			cur = &Learning{N: len(ls) + 1, Rule: rule, Line: n}
			continue
		}
		t := strings.TrimSpace(line)
		if cur == nil || t == "" || line[0] != ' ' && line[0] != '\t' {
			if err := end(); err != nil {
				return nil, err
			}
			continue
		}
		if err := cur.field(t, n); err != nil {
			return nil, err
		}
	}
	if err := end(); err != nil {
		return nil, err
	}
	return ls, nil
}

// item returns the rule of a line that starts a list item.
func item(line string) (string, bool) {
	rest := line
	switch {
	case strings.HasPrefix(line, "- "), strings.HasPrefix(line, "* "), strings.HasPrefix(line, "+ "):
		rest = line[2:]
	default:
		d := 0
		for d < len(line) && d < 9 && line[d] >= '0' && line[d] <= '9' {
			d++
		}
		if d == 0 || d+1 >= len(line) || line[d] != '.' && line[d] != ')' || line[d+1] != ' ' && line[d+1] != '\t' {
			return "", false
		}
		rest = line[d+2:]
	}
	rest = strings.TrimSpace(rest)
	return rest, rest != ""
}

// field reads an indented line of a learning: its paths, its provenance,
// or more of its rule.
func (l *Learning) field(t string, n int) error {
	key, val, ok := strings.Cut(t, ":")
	switch k := strings.ToLower(strings.TrimSpace(strings.TrimLeft(key, "-*+ "))); {
	case ok && k == "paths":
		for _, g := range strings.FieldsFunc(val, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '`' }) {
			if !doublestar.ValidatePattern(strings.Trim(g, "/")) {
				return &ParseError{Line: n, Msg: fmt.Sprintf("learning %d: %q is not a glob", l.N, g)}
			}
			l.Paths = append(l.Paths, g)
		}
		if len(l.Paths) > maxGlobs {
			return &ParseError{Line: n, Msg: fmt.Sprintf("learning %d has more than %d paths", l.N, maxGlobs)}
		}
	case ok && k == "from":
		l.From = truncate(strings.TrimSpace(val), maxProvened)
	default:
		l.Rule += " " + t
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Header starts a learnings file that did not exist.
const Header = `# Learnings

What this team has told the reviewer, one rule an item. ` + "`review`" + ` reads this file from
the base revision in CI, so a change to it steers reviews once it is merged. Each item may
have an indented ` + "`paths:`" + ` line (globs of the files it applies to) and ` + "`from:`" + `
line (where it came from). Propose one with ` + "`/review learn <rule>`" + ` in a pull
request, or ` + "`review learn add \"<rule>\"`" + `.
`

// Append returns the file data with l added as its last learning, and the
// number it takes: a new file starts with Header. The text of the file is
// kept as written.
func Append(data []byte, l Learning) ([]byte, int, error) {
	ls, err := Parse(data)
	if err != nil {
		return nil, 0, err
	}
	if err := l.check(); err != nil {
		return nil, 0, err
	}
	var b bytes.Buffer
	if len(bytes.TrimSpace(data)) == 0 {
		b.WriteString(Header)
	} else {
		b.Write(data)
	}
	out := bytes.TrimRight(b.Bytes(), "\n")
	b.Reset()
	b.Write(out)
	// After a blank line, which ends whatever came before: the item
	// starts a list, or goes on the one before it.
	b.WriteString("\n")
	l.N = len(ls) + 1
	b.WriteString("\n" + l.Markdown() + "\n")
	if len(b.Bytes()) > MaxSize {
		return nil, 0, ErrTooLarge
	}
	return b.Bytes(), l.N, nil
}

// check refuses a learning that cannot be written as one item.
func (l Learning) check() error {
	switch {
	case strings.TrimSpace(l.Rule) == "":
		return errors.New("the rule is empty: say what the reviewer should know")
	case len(l.Rule) > MaxRule:
		return fmt.Errorf("the rule is longer than %d bytes: keep it to a few sentences", MaxRule)
	case !utf8.ValidString(l.Rule) || !utf8.ValidString(l.From):
		return errors.New("the learning is not UTF-8 text")
	}
	for _, g := range l.Paths {
		if !utf8.ValidString(g) {
			return errors.New("the learning's paths are not UTF-8 text")
		}
		if strings.ContainsAny(g, " \t\n,`") || !doublestar.ValidatePattern(strings.Trim(g, "/")) {
			return fmt.Errorf("%q is not a glob: give one like internal/db/** or *.sql", g)
		}
	}
	return nil
}

// Markdown is the learning as an item of the file: its rule on one line,
// then its paths and provenance.
func (l Learning) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d. %s", l.N, strings.Join(strings.Fields(l.Rule), " "))
	if len(l.Paths) > 0 {
		b.WriteString("\n   paths: " + strings.Join(l.Paths, ", "))
	}
	if from := strings.Join(strings.Fields(l.From), " "); from != "" {
		b.WriteString("\n   from: " + truncate(from, maxProvened))
	}
	return b.String()
}
