package redact

import "strings"

// Values on the line after their name: a YAML block scalar (password: |
// or >, the value indented below), a YAML plain scalar alone on the next
// line (password: and nothing after it), and a shell or Python line
// continued with a backslash (API_TOKEN=\). Redaction reads a text whole,
// so the value is found wherever the text is one: a changed file's hunks
// (joined without their markers), read_file_hunk's numbered lines,
// get_file_diff's marked ones, search_in_project's lines after their path
// and number, a finding's body.

var (
	// blockStart is what follows a name that opens a YAML block scalar:
	// a colon, | or >, chomping and indentation indicators, a comment.
	blockStart = lazyRE(`^["']?[ \t]*:[ \t]*[|>][-+1-9]{0,2}[ \t]*(?:#.*)?\r?$`)
	// emptyValue is a YAML name with nothing after it: its value, if
	// not a mapping or a list, is on the next line.
	emptyValue = lazyRE(`^["']?[ \t]*:[ \t]*(?:#.*)?\r?$`)
	// continued is NAME=\ at the end of a line.
	continued = lazyRE(`^["']?[ \t]*=[ \t]*\\\r?$`)
	// searchPrefix is how search_in_project starts a line: the path, then
	// the line number between colons (a match) or dashes (context).
	searchPrefix = lazyRE(`^([^\s:]{1,1000}?)[:-]\d+[:-] `)
	lineNumber   = lazyRE(`^[:-]\d+[:-] `)
)

// nextLineValue finds the value that the name ending at e, on line l of
// t's text, is given on the lines below it; lead is the line before the
// name and rest the line after it.
func (t *target) nextLineValue(l int, lead, rest string) ([2]int, bool) {
	if !nextLineOpener(rest) || l+1 >= len(t.starts) {
		return [2]int{}, false
	}
	pre, lead := layoutPrefix(lead)
	if continued().MatchString(rest) {
		return t.continuedValue(l+1, pre)
	}
	keyIndent := indentOf(lead)
	if blockStart().MatchString(rest) {
		// "name: |" ends no line of code: in a sentence too ("see
		// password: |"), the value is the block below.
		return t.blockValue(l+1, pre, keyIndent)
	}
	if emptyValue().MatchString(rest) && bareLeadChars(lead) && bareLead().MatchString(lead) {
		return t.plainValue(l+1, pre, keyIndent)
	}
	return [2]int{}, false
}

// nextLineOpener reports whether rest, what follows a name, may end its
// line so that the value is on the next: the cheap look before the
// expressions.
func nextLineOpener(rest string) bool {
	if len(rest) > maxAssignRest {
		return false // a minified bundle's line, whose rest is not looked at
	}
	r := strings.TrimRight(rest, " \t\r")
	if i := strings.IndexByte(r, '#'); i > 0 && strings.ContainsAny(r[:i], "|>") {
		r = strings.TrimRight(r[:i], " \t") // a block's comment
	}
	r = strings.TrimRight(r, "-+123456789")
	return r != "" && strings.IndexByte(":|>\\", r[len(r)-1]) >= 0
}

// gutterPrefix stands for read_file_hunk's line number as a line's
// prefix; other prefixes are search_in_project's paths.
const gutterPrefix = "\x00"

// layoutPrefix splits what read_file_hunk (its line number) or
// search_in_project (a path and a line number) put before a line's text
// off lead: the prefix, which the value's line must start with too, and
// the rest.
func layoutPrefix(lead string) (string, string) {
	if n := gutterLen(lead); n > 0 {
		return gutterPrefix, lead[n:]
	}
	if m := searchPrefix().FindStringSubmatchIndex(lead); m != nil {
		return lead[:m[3]], lead[m[1]:]
	}
	return "", lead
}

// valueLine returns the text of line i after its layout (the prefix lead
// had, a diff's marker, indentation): its offset, its indentation and
// whether the line has the prefix.
func (t *target) valueLine(i int, pre string) (off, indent int, text string, ok bool) {
	s, e := t.lineStart(i), t.lineEnd(i)
	line := strings.TrimRight(t.text[s:e], "\r\n")
	n := 0
	switch pre {
	case "":
	case gutterPrefix:
		if n = gutterLen(line); n == 0 {
			return 0, 0, "", false
		}
	default:
		rest, found := strings.CutPrefix(line, pre)
		if !found {
			return 0, 0, "", false
		}
		m := lineNumber().FindStringIndex(rest)
		if m == nil {
			return 0, 0, "", false
		}
		n = len(pre) + m[1]
	}
	body := line[n:]
	if strings.HasPrefix(body, "+") || strings.HasPrefix(body, "-") && !strings.HasPrefix(body, "--") {
		body, n = body[1:], n+1
	}
	indent = indentOf(body)
	text = strings.TrimRight(body[indent:], " \t")
	return s + n + indent, indent, text, true
}

// indentOf counts the spaces and tabs lead starts with, after a diff's
// marker, with a list item's dash counted as one.
func indentOf(lead string) int {
	if strings.HasPrefix(lead, "+") || strings.HasPrefix(lead, "-") {
		lead = lead[1:]
	}
	return len(lead) - len(strings.TrimLeft(lead, " \t"))
}

// blockValue is a YAML block scalar's value: the lines from line i on
// indented further than its name, blank lines among them. It is a secret
// when one of its lines looks like one.
func (t *target) blockValue(i int, pre string, keyIndent int) ([2]int, bool) {
	start, end, secret := -1, -1, false
	for ; i < len(t.starts); i++ {
		off, indent, text, ok := t.valueLine(i, pre)
		if !ok {
			break
		}
		if text == "" {
			continue
		}
		if indent <= keyIndent {
			break
		}
		if start < 0 {
			start = off
		}
		end = off + len(text)
		secret = secret || secretValue(unquote(text), true)
	}
	return [2]int{start, end}, start >= 0 && secret
}

// plainValue is the value of a YAML name with nothing after it when the
// next line, indented further, is a scalar: not a mapping, a list, a
// comment or a flow collection.
func (t *target) plainValue(i int, pre string, keyIndent int) ([2]int, bool) {
	off, indent, text, ok := t.valueLine(i, pre)
	if !ok || indent <= keyIndent || text == "" || strings.IndexByte("-#{[|>&*!", text[0]) >= 0 ||
		strings.Contains(text, ": ") || strings.HasSuffix(text, ":") {
		return [2]int{}, false
	}
	v := strings.TrimRight(text, ",")
	u := unquote(v)
	if !secretValue(u, u != v) {
		return [2]int{}, false
	}
	if u != v {
		off++
	}
	return [2]int{off, off + len(u)}, true
}

// continuedValue is the value of NAME=\ on line i: its first word, or a
// quoted string.
func (t *target) continuedValue(i int, pre string) ([2]int, bool) {
	off, _, text, ok := t.valueLine(i, pre)
	if !ok || text == "" {
		return [2]int{}, false
	}
	v := text
	if j := strings.IndexAny(v, " \t"); j >= 0 {
		v = v[:j]
	}
	v = strings.TrimRight(v, ",;")
	u := unquote(v)
	if u == v && strings.ContainsAny(v, `"'`+"`") || !secretValue(u, u != v) {
		return [2]int{}, false
	}
	if u != v {
		off++
	}
	return [2]int{off, off + len(u)}, true
}

// unquote returns v without the quotes around it, if it has them.
func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}
