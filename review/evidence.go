package review

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/internal/lazy"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/review/result"
)

// A finding is grounded when every line it cites was in front of the model:
// in the diff context it was given (the static layer's hunks, or its
// unit's) or in a tool output it was shown (the preview of a read, a diff
// or a search, or a page of one it read with read_tool_output). The run
// knows all of these: the conversation holds what each request carried and
// tool memory holds each output whole, so what a preview or a page showed
// maps back to the file lines it held.

// maxCited bounds the lines of one finding looked up: a range longer than
// this is not a citation of lines the model read.
const maxCited = 5000

// shownAt is where the model was shown a line.
type shownAt struct {
	source string // result.SourceDiff or a ref
	tool   string
	unit   int
}

// sight is what the model was shown of the files at head.
type sight struct {
	lines map[string]map[int]shownAt // by path, then head line: where first
	files map[string]bool            // paths with a line or a hunk shown
}

func newSight() *sight {
	return &sight{lines: map[string]map[int]shownAt{}, files: map[string]bool{}}
}

// add records line of path as shown at at. The diff context is the first
// place a line counts from; among tool outputs, the earliest.
func (v *sight) add(path string, line int, at shownAt) {
	if path == "" || line <= 0 {
		return
	}
	m := v.lines[path]
	if m == nil {
		m = map[int]shownAt{}
		v.lines[path] = m
	}
	if old, ok := m[line]; ok && (old.source == result.SourceDiff || at.source != result.SourceDiff) {
		return
	}
	m[line] = at
	v.files[path] = true
}

// ground sets the evidence of f, the lines it cites that the model was
// shown grouped by where, and whether every one was.
func (v *sight) ground(f *result.Finding) {
	f.Evidence = nil
	start, end := f.Cites()
	if start == 0 {
		f.Grounded = v.files[f.Path]
		return
	}
	if end-start >= maxCited {
		f.Grounded = false
		return
	}
	all := true
	seen := v.lines[f.Path]
	last := -1
	for l := start; l <= end; l++ {
		at, ok := seen[l]
		if !ok {
			all, last = false, -1
			continue
		}
		if last >= 0 {
			e := &f.Evidence[last]
			if e.Source == at.source && e.Unit == at.unit && e.EndLine == l-1 {
				e.EndLine = l
				continue
			}
		}
		f.Evidence = append(f.Evidence, result.Evidence{Source: at.source, Tool: at.tool, Unit: at.unit, Path: f.Path, StartLine: l, EndLine: l})
		last = len(f.Evidence) - 1
	}
	f.Grounded = all
}

// ground sets the evidence of each finding from what the running loop's
// requests carried: the loop's own messages and the history before them,
// as the model last had them in front of it.
func (s *Session) ground(fs []result.Finding) {
	msgs, err := s.History.Request()
	if err != nil {
		msgs = nil
		for _, m := range s.History.Messages() {
			if !m.Dropped {
				msgs = append(msgs, m)
			}
		}
	}
	v := s.sightOf(msgs)
	for i := range fs {
		v.ground(&fs[i])
	}
}

// sightOf reads what msgs showed the model.
func (s *Session) sightOf(msgs []conversation.Message) *sight {
	v := newSight()
	outs := map[string]*outputLines{}
	output := func(ref string) *outputLines {
		if o, ok := outs[ref]; ok {
			return o
		}
		o := s.outputLines(ref)
		outs[ref] = o
		return o
	}
	for _, m := range msgs {
		switch m.Role {
		case conversation.User, conversation.System:
			at := shownAt{source: result.SourceDiff}
			if m.Layer != conversation.Static {
				// A unit's hunks come in its own turn.
				switch {
				case s.lane != nil:
					at.unit = s.lane.unit
				case s.unitsAll > 1:
					at.unit = m.Turn
				}
			}
			v.diffContext(m.Content, at)
		case conversation.Tool:
			if m.Stubbed {
				continue
			}
			if m.Ref != "" {
				o := output(m.Ref)
				if o == nil {
					continue
				}
				for _, i := range shownLines(o.lines, m.Content) {
					if loc := o.locs[i]; loc.line > 0 {
						v.add(loc.path, loc.line, shownAt{source: o.ref, tool: o.tool})
					}
				}
				continue
			}
			if m.Name == toolname.ReadToolOutput {
				ref, nums := pageLines(m.Content)
				o := output(ref)
				if o == nil {
					continue
				}
				for _, n := range nums {
					if n >= 1 && n <= len(o.locs) {
						if loc := o.locs[n-1]; loc.line > 0 {
							v.add(loc.path, loc.line, shownAt{source: o.ref, tool: o.tool})
						}
					}
				}
			}
		}
	}
	return v
}

// outputLines is a stored tool output split in lines, with the file line
// each holds, if any.
type outputLines struct {
	ref, tool string
	lines     []string
	locs      []fileLine
}

// fileLine is a line of a file at head.
type fileLine struct {
	path string
	line int
}

// outputLines reads the output stored under ref and locates its lines;
// nil when it cannot be read or holds no file lines.
func (s *Session) outputLines(ref string) *outputLines {
	if s.Store == nil || ref == "" {
		return nil
	}
	meta, err := s.Store.Meta(ref)
	if err != nil {
		return nil
	}
	locate := locators[meta.Tool]
	if locate == nil {
		return nil
	}
	data, err := s.Store.Get(meta.Ref)
	if err != nil {
		return nil
	}
	body := strings.TrimSuffix(string(data), "\n")
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		lines[i] = strings.ToValidUTF8(strings.TrimSuffix(l, "\r"), "\uFFFD")
	}
	o := &outputLines{ref: meta.Ref, tool: meta.Tool, lines: lines, locs: make([]fileLine, len(lines))}
	locate(meta.Args, lines, o.locs)
	return o
}

// locators fill in the file line each line of a tool's output holds, for
// the tools whose outputs show lines of files at head.
var locators = map[string]func(args string, lines []string, locs []fileLine){
	toolname.ReadFileHunk:    readLocs,
	toolname.GetFileDiff:     diffLocs,
	toolname.SearchInProject: searchLocs,
}

// readHeader is the first line of a read_file_hunk output.
var readHeader = lazy.Regexp(`^("(?:[^"\\]|\\.)*")(?: \(symlink to "(?:[^"\\]|\\.)*"\))? at (head|base), lines \d+-\d+ of \d+:$`)

// readLocs locates the lines of a read: "42: text" under a header that
// names the file and the revision. A read at base shows no line at head.
func readLocs(_ string, lines []string, locs []fileLine) {
	if len(lines) == 0 {
		return
	}
	m := readHeader().FindStringSubmatch(lines[0])
	if m == nil || m[2] != "head" {
		return
	}
	path, err := strconv.Unquote(m[1])
	if err != nil {
		return
	}
	for i := 1; i < len(lines); i++ {
		if n, ok := lineNumber(lines[i]); ok {
			locs[i] = fileLine{path, n}
		}
	}
}

// lineNumber reads the "N: " a line starts with.
func lineNumber(l string) (int, bool) {
	j := 0
	for j < len(l) && l[j] >= '0' && l[j] <= '9' {
		j++
	}
	if j == 0 || j > 9 || !strings.HasPrefix(l[j:], ": ") && l[j:] != ":" {
		return 0, false
	}
	n, err := strconv.Atoi(l[:j])
	return n, err == nil && n > 0
}

// hunkNew reads the new start of an "@@ -a,b +c,d @@" line.
var hunkNew = lazy.Regexp(`^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@`)

// diffLocs locates the lines of a file's unified diff: context and added
// lines hold lines at head.
func diffLocs(args string, lines []string, locs []fileLine) {
	var a struct {
		Path string `json:"path"`
	}
	_ = json.Unmarshal([]byte(args), &a)
	path, next, in := "", 0, false
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			path, in = "", false
		case !in && strings.HasPrefix(l, "+++ "):
			path = gitPath(strings.TrimPrefix(l, "+++ "), "b/")
		case strings.HasPrefix(l, "@@ "):
			m := hunkNew().FindStringSubmatch(l)
			if m == nil {
				in = false
				continue
			}
			next, _ = strconv.Atoi(m[1])
			in = true
			if path == "" {
				path = text.UnquotePath(strings.TrimPrefix(a.Path, "./"))
			}
		case in && l != "" && (l[0] == ' ' || l[0] == '+'):
			locs[i] = fileLine{path, next}
			next++
		}
	}
}

// gitPath reads a path of a "+++ " line: without its prefix, unquoted;
// "" for /dev/null.
func gitPath(p, prefix string) string {
	p = strings.TrimSuffix(p, "\t")
	if p == "/dev/null" {
		return ""
	}
	if strings.HasPrefix(p, `"`) {
		if u, err := strconv.Unquote(p); err == nil {
			p = u
		}
	}
	return strings.TrimPrefix(p, prefix)
}

// searchHit is a line of a search: "path:42: text" for a match,
// "path-41- text" for context.
var searchHit = lazy.Regexp(`^(.+?)(?::(\d+): |-(\d+)- |:(\d+):$|-(\d+)-$)`)

// searchLocs locates the lines of a search, which is at head.
func searchLocs(_ string, lines []string, locs []fileLine) {
	for i, l := range lines {
		m := searchHit().FindStringSubmatch(l)
		if m == nil {
			continue
		}
		num := m[2] + m[3] + m[4] + m[5]
		n, err := strconv.Atoi(num)
		if err != nil {
			continue
		}
		locs[i] = fileLine{text.UnquotePath(m[1]), n}
	}
}

// shownLines returns the indexes of the lines of out that content, a
// preview of it or the whole of it, shows: its lines matched in order,
// a line cut by the preview matched by what it kept.
func shownLines(out []string, content string) []int {
	var shown []int
	j := 0
	for _, c := range strings.Split(content, "\n") {
		c = strings.TrimSuffix(c, "\r")
		if c == "" {
			continue
		}
		if m := omittedLines().FindStringSubmatch(c); m != nil && j > 0 {
			// The lines a preview leaves out between its head and its
			// tail: the tail is matched after them, not against a line
			// of the gap that happens to read the same.
			n, _ := strconv.Atoi(m[1])
			j = min(j+n, len(out))
			continue
		}
		for k := j; k < len(out); k++ {
			if sameLine(out[k], c) {
				shown = append(shown, k)
				j = k + 1
				break
			}
		}
	}
	return shown
}

// omittedLines is how a preview says how many lines it leaves out.
var omittedLines = lazy.Regexp(`^\[\.\.\. (\d+) lines? omitted \.\.\.\]$`)

// cutMore and cutEarlier are how a preview marks a line it cut.
var (
	cutMore    = lazy.Regexp(` \[\.\.\. \d+ more bytes\]$`)
	cutEarlier = lazy.Regexp(`^\[\.\.\. \d+ earlier bytes\] `)
)

// sameLine reports whether c, a line of a preview, shows o, a line of the
// output.
func sameLine(o, c string) bool {
	if o == c {
		return true
	}
	if loc := cutMore().FindStringIndex(c); loc != nil && loc[0] > 0 {
		return strings.HasPrefix(o, c[:loc[0]])
	}
	if loc := cutEarlier().FindStringIndex(c); loc != nil && loc[1] < len(c) {
		return strings.HasSuffix(o, c[loc[1]:])
	}
	return false
}

// pageHeader opens a read_tool_output result.
var pageHeader = lazy.Regexp(`^output (\S+) \(`)

// pageLines reads a read_tool_output result: the ref it pages and the
// numbers of the output's lines it shows ("N: text").
func pageLines(content string) (string, []int) {
	lines := strings.Split(content, "\n")
	m := pageHeader().FindStringSubmatch(lines[0])
	if m == nil {
		return "", nil
	}
	var nums []int
	for _, l := range lines[1:] {
		if n, ok := lineNumber(l); ok {
			nums = append(nums, n)
		}
	}
	return m[1], nums
}

// diffContext records the hunks a diff context in Markdown shows: under a
// "### `path`" heading, fenced hunks whose lines carry their number at
// head ("  42 +text"); deleted lines carry none.
func (v *sight) diffContext(md string, at shownAt) {
	if !strings.Contains(md, "\n@@ ") {
		return
	}
	path, fence, hunk := "", "", false
	for _, l := range strings.Split(md, "\n") {
		l = strings.TrimSuffix(l, "\r")
		if fence == "" {
			switch {
			case strings.HasPrefix(l, "### "):
				path = headingPath(l[len("### "):])
			case path != "" && len(l) >= 3 && strings.Trim(l, "`") == "":
				fence, hunk = l, false
			}
			continue
		}
		if l == fence {
			fence, path = "", ""
			continue
		}
		if strings.HasPrefix(l, "@@ ") {
			hunk = true
			v.files[path] = true
			continue
		}
		if !hunk {
			continue
		}
		t := strings.TrimLeft(l, " ")
		j := 0
		for j < len(t) && t[j] >= '0' && t[j] <= '9' {
			j++
		}
		if j == 0 || j > 9 || j+1 >= len(t) || t[j] != ' ' || (t[j+1] != ' ' && t[j+1] != '+') {
			continue
		}
		n, _ := strconv.Atoi(t[:j])
		v.add(path, n, at)
	}
}

// headingPath reads the path of a diff context's file heading: a code
// span, then perhaps a note in parentheses.
func headingPath(h string) string {
	n := 0
	for n < len(h) && h[n] == '`' {
		n++
	}
	if n == 0 {
		return ""
	}
	rest := h[n:]
	end := strings.Index(rest, strings.Repeat("`", n))
	if end < 0 {
		return ""
	}
	inner := rest[:end]
	if n > 1 && strings.HasPrefix(inner, " ") && strings.HasSuffix(inner, " ") && len(inner) >= 2 {
		inner = inner[1 : len(inner)-1]
	}
	return text.UnquotePath(inner)
}

// groundLocal marks the findings review makes itself (the secrets the
// change adds, text in it that speaks to the reviewer) as grounded by the
// diff: their lines, or their file's path, are what the change adds.
func groundLocal(fs []result.Finding) {
	for i := range fs {
		f := &fs[i]
		if start, end := f.Cites(); start > 0 {
			f.Evidence = []result.Evidence{{Source: result.SourceDiff, Path: f.Path, StartLine: start, EndLine: end}}
		}
		f.Grounded = true
	}
}
