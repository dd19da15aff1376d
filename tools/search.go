package tools

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/toolmem"
)

// Limits of search_in_project.
const (
	// searchMax is a safety limit on matching lines, not a page: every
	// match up to it is returned and stored, and the output says so when
	// it is hit. A review's searches stay far below it.
	searchMax        = 20000
	searchMaxContext = 10
	// searchMaxFile skips larger files: they are generated data, not code,
	// and one of them could use up a call's time.
	searchMaxFile = 1 << 20
	// searchMaxLine cuts long result lines (minified code).
	searchMaxLine = 400
	// searchMaxPattern bounds the regexp the model may send.
	searchMaxPattern = 1000
)

type searchArgs struct {
	Pattern      string  `json:"pattern"`
	PathGlob     *string `json:"path_glob"`
	MaxResults   int     `json:"max_results"`
	ContextLines int     `json:"context_lines"`
}

func (s *Set) searchTool() Tool {
	return s.repoTool(Spec{
		Name:        toolname.SearchInProject,
		Description: "Search tracked files at head for an RE2 expression per line ((?i) ignores case): every match as \"path:line: text\"; the preview counts matches per file. Skips binary files and files over 1 MiB.",
		Preview:     toolmem.Matches,
		Params: []Param{
			String("pattern", `E.g. "func (New|Open)\\(" or "(?i)todo"; escape ( [ . * + ? { | \ ^ $ to match them.`).Required().Example(`func New\(`),
			String("path_glob", `Glob of the files to search ("*.go", "src/**/*.ts"). Null for all.`).Example("*.go"),
			Integer("max_results", "Most matching lines.").Min(1).Max(searchMax).Default(searchMax).Example(nil),
			Integer("context_lines", "Context lines around each match.").Min(0).Max(searchMaxContext).Default(0).Example(0),
		},
	}, func(ctx context.Context, args Args) (Result, error) {
		var a searchArgs
		if err := args.Decode(&a); err != nil {
			return Result{}, err
		}
		return s.search(ctx, a, args.Notes())
	})
}

// matcher finds the lines of a file that match a pattern, with grep's
// per-line semantics.
type matcher struct {
	line *regexp.Regexp // the pattern, applied to one line without its newline
	// literal is a string every match contains, found with bytes.Index,
	// which is many times faster than any regexp scan: only lines holding
	// it are matched. Empty when the pattern has no literal long enough.
	literal []byte
	// whole is the pattern in multi-line mode and unable to match a
	// newline, applied to a whole file to jump to candidate lines instead of
	// running the regexp once per line, which is several times slower. It
	// is nil for patterns whose meaning would change (\A, \z), which are
	// then matched line by line.
	whole *regexp.Regexp
}

func newMatcher(pattern string) (*matcher, error) {
	if len(pattern) > searchMaxPattern {
		return nil, fmt.Errorf("pattern is %d bytes; send at most %d", len(pattern), searchMaxPattern)
	}
	line, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("pattern is not a valid RE2 (Go) regular expression: %v; escape literal ( [ . * + ? { | \\ with a backslash", stripRegexpPrefix(err))
	}
	m := &matcher{line: line}
	if re, err := syntax.Parse(pattern, syntax.Perl); err == nil {
		if lit := requiredLiteral(re); len(lit) >= minLiteral && !strings.Contains(lit, "\n") {
			m.literal = []byte(lit)
			return m, nil
		}
	}
	if re, err := syntax.Parse("(?m:"+pattern+")", syntax.Perl); err == nil && !textAnchored(re) {
		lineOnly(re)
		m.whole, _ = regexp.Compile(re.String())
	}
	return m, nil
}

// minLiteral is the shortest required literal worth a prefilter; shorter
// ones are too common to skip much.
const minLiteral = 3

// requiredLiteral returns the longest case-sensitive literal that every
// match of re contains, or "".
func requiredLiteral(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return ""
		}
		return string(re.Rune)
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		best := ""
		for _, sub := range re.Sub {
			if lit := requiredLiteral(sub); len(lit) > len(best) {
				best = lit
			}
		}
		return best
	}
	return ""
}

// lineOnly rewrites a parsed regexp so that it cannot match a newline:
// classes lose '\n', "." under (?s) stops at it, and a literal holding one
// matches nothing (no line holds one). Matches of the result stay within a
// line, so a search of a whole file never scans past the end of the line
// it matched in, which keeps patterns like "[^x]*" linear on big files.
func lineOnly(re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	case syntax.OpCharClass:
		re.Rune = withoutNewline(re.Rune)
		if len(re.Rune) == 0 {
			re.Op = syntax.OpNoMatch
		}
	case syntax.OpLiteral:
		if slices.Contains(re.Rune, '\n') {
			re.Op, re.Rune = syntax.OpNoMatch, nil
		}
	}
	for _, sub := range re.Sub {
		lineOnly(sub)
	}
}

// withoutNewline removes '\n' from a class's [lo, hi] rune ranges.
func withoutNewline(ranges []rune) []rune {
	out := make([]rune, 0, len(ranges)+2)
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if lo > '\n' || hi < '\n' {
			out = append(out, lo, hi)
			continue
		}
		if lo < '\n' {
			out = append(out, lo, '\n'-1)
		}
		if hi > '\n' {
			out = append(out, '\n'+1, hi)
		}
	}
	return out
}

func stripRegexpPrefix(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}

// textAnchored reports whether a parsed regexp anchors to the beginning or
// end of the whole text, which a line and a file do not share.
func textAnchored(re *syntax.Regexp) bool {
	if re.Op == syntax.OpBeginText || re.Op == syntax.OpEndText {
		return true
	}
	for _, sub := range re.Sub {
		if textAnchored(sub) {
			return true
		}
	}
	return false
}

// find returns the numbers (from 1) of the first max lines of data that
// match, and whether more lines match.
func (m *matcher) find(data []byte, max int) (lines []int, more bool) {
	if m.literal != nil {
		return m.scan(data, max, func(b []byte) int { return bytes.Index(b, m.literal) })
	}
	if m.whole != nil {
		return m.scan(data, max, func(b []byte) int {
			if loc := m.whole.FindIndex(b); loc != nil {
				return loc[0]
			}
			return -1
		})
	}
	n := 0
	for line := range bytes.Lines(data) {
		n++
		if m.line.Match(bytes.TrimSuffix(line, []byte{'\n'})) {
			if len(lines) == max {
				return lines, true
			}
			lines = append(lines, n)
		}
	}
	return lines, false
}

// scan matches the lines that next, a finder of candidate positions,
// points into: a line holding no candidate cannot match.
func (m *matcher) scan(data []byte, max int, next func([]byte) int) (lines []int, more bool) {
	n, counted := 1, 0
	for pos := 0; pos < len(data); {
		i := next(data[pos:])
		if i < 0 {
			break
		}
		start := pos + i
		ls := pos + bytes.LastIndexByte(data[pos:start], '\n') + 1
		if ls == len(data) && len(data) > 0 {
			break // the empty "line" after a final newline is no line
		}
		le := len(data)
		if i := bytes.IndexByte(data[start:], '\n'); i >= 0 {
			le = start + i
		}
		n += bytes.Count(data[counted:ls], []byte{'\n'})
		counted = ls
		// The line's own match decides; next only points at candidates.
		if m.line.Match(data[ls:le]) {
			if len(lines) == max {
				return lines, true
			}
			lines = append(lines, n)
		}
		if le == len(data) {
			break
		}
		pos = le + 1
	}
	return lines, false
}

// fileHits is what a worker found in one file.
type fileHits struct {
	i      int
	data   []byte // kept only when lines matched, to print them
	lines  []int
	more   bool
	binary bool
}

// searchStats counts what a search read and skipped.
type searchStats struct {
	files, matchedFiles, shown, binary, large int
	// more: matches were left out; full: because of the size budget.
	more, full bool
	stoppedAt  string
}

func (s *Set) search(ctx context.Context, a searchArgs, notes []string) (Result, error) {
	if a.Pattern == "" {
		return Result{}, fmt.Errorf("pattern is empty; send a regular expression such as \"func New\"")
	}
	m, err := newMatcher(a.Pattern)
	if err != nil {
		return Result{}, err
	}
	glob := ""
	if a.PathGlob != nil && *a.PathGlob != "" {
		glob = *a.PathGlob
		if err := checkGlob("path_glob", glob); err != nil {
			return Result{}, err
		}
	}
	maxResults, contextLines := a.MaxResults, a.ContextLines
	// From the work tree, the files' sizes are read there: the listing
	// without them is the cheaper one (see names).
	list := s.tree
	if s.worktree(ctx) {
		list = s.sizedNames
	}
	t, err := list(ctx, revHead)
	if err != nil {
		return Result{}, err
	}
	var st searchStats
	var files []entry
	for _, e := range t.entries {
		if e.regular() && (glob == "" || globMatch(glob, e.path)) && !s.hidden(e.path) {
			files = append(files, e)
		}
	}
	files = slices.DeleteFunc(files, func(e entry) bool {
		if e.size > searchMaxFile {
			st.large++
			return true
		}
		return false
	})
	st.files = len(files)
	// Stop before the result outgrows Env.MaxBytes, leaving room for the
	// header and footer, rather than have the result cut mid-line.
	budget := max(s.env.MaxBytes-2048, 1024)
	var out strings.Builder
	err = s.scanMatches(ctx, files, m, maxResults, func(h fileHits) bool {
		if files[h.i].size > searchMaxFile {
			// A modified work-tree copy stood for a larger blob, which
			// was not read.
			st.large++
			st.files--
			return true
		}
		if h.binary {
			st.binary++
			return true
		}
		if len(h.lines) == 0 {
			return true
		}
		if st.shown == maxResults {
			st.more = true
			return false
		}
		st.matchedFiles++
		take := h.lines
		if room := maxResults - st.shown; len(take) > room {
			take = take[:room]
		}
		written := writeHits(&out, files[h.i].path, h.data, take, contextLines, budget)
		if written > 0 {
			st.shown += written
			st.stoppedAt = fmt.Sprintf("%s:%d", files[h.i].path, take[written-1])
		}
		if written < len(take) {
			st.more, st.full = true, true
			return false
		}
		if len(take) < len(h.lines) || h.more {
			st.more = true
			return false
		}
		return true
	})
	if err != nil {
		return Result{}, fmt.Errorf("searching: %w", err)
	}
	return Result{Output: searchReport(a.Pattern, glob, st, notes, out.String(), maxResults)}, nil
}

// searchReport puts a header and footer around the matches.
func searchReport(pattern, glob string, st searchStats, notes []string, matches string, maxResults int) string {
	var b strings.Builder
	scope := "tracked files"
	if glob != "" {
		scope = fmt.Sprintf("files matching %q", glob)
	}
	switch {
	case st.shown == 0:
		fmt.Fprintf(&b, "no matches for %s in %d %s at head\n", text.QuoteJSON(pattern), st.files, scope)
	case st.more:
		fmt.Fprintf(&b, "first %s for %s in %d %s at head (more exist)\n", plural(st.shown, "matching line"), text.QuoteJSON(pattern), st.files, scope)
	default:
		fmt.Fprintf(&b, "%s in %s for %s in %d %s at head\n", plural(st.shown, "matching line"), plural(st.matchedFiles, "file"), text.QuoteJSON(pattern), st.files, scope)
	}
	for _, n := range notes {
		fmt.Fprintf(&b, "(%s)\n", n)
	}
	b.WriteString(matches)
	switch {
	case st.full:
		fmt.Fprintf(&b, "[stopped after %s: the result reached its size limit; more matches follow: narrow pattern or path_glob, or use fewer context_lines]\n", st.stoppedAt)
	case st.more:
		if maxResults >= searchMax {
			fmt.Fprintf(&b, "[stopped after %s at the safety limit of %d matching lines; more matches follow: narrow pattern or path_glob]\n", st.stoppedAt, searchMax)
			break
		}
		fmt.Fprintf(&b, "[stopped after %s at max_results=%d; more matches follow: narrow pattern or path_glob, or raise max_results (up to %d)]\n", st.stoppedAt, maxResults, searchMax)
	}
	if st.binary > 0 || st.large > 0 {
		fmt.Fprintf(&b, "[skipped %s and %s over %d bytes]\n", plural(st.binary, "binary file"), plural(st.large, "file"), searchMaxFile)
	}
	return b.String()
}

// writeHits prints a file's matching lines, grep style: "path:n: text" for
// matches, "path-n- text" for context, "--" between separate groups. It
// stops once b holds limit bytes and returns how many matches it wrote.
func writeHits(b *strings.Builder, path string, data []byte, lines []int, c, limit int) int {
	if c == 0 {
		n, next := 0, 0
		for line := range bytes.Lines(data) {
			n++
			if n == lines[next] {
				if b.Len() >= limit {
					return next
				}
				fmt.Fprintf(b, "%s:%d: %s\n", text.QuotePath(path), n, displayLine(line))
				if next++; next == len(lines) {
					break
				}
			}
		}
		return next
	}
	all := bytes.SplitAfter(data, []byte{'\n'})
	if len(all) > 0 && len(all[len(all)-1]) == 0 {
		all = all[:len(all)-1]
	}
	isMatch := make(map[int]bool, len(lines))
	for _, n := range lines {
		isMatch[n] = true
	}
	last := 0 // last line printed
	for i, n := range lines {
		if b.Len() >= limit {
			return i
		}
		from, to := max(n-c, last+1, 1), min(n+c, len(all))
		if from > to {
			continue
		}
		if b.Len() > 0 && (last == 0 || from > last+1) {
			b.WriteString("--\n")
		}
		for k := from; k <= to; k++ {
			sep := "-"
			if isMatch[k] {
				sep = ":"
			}
			fmt.Fprintf(b, "%s%s%d%s %s\n", text.QuotePath(path), sep, k, sep, displayLine(all[k-1]))
		}
		last = to
	}
	return len(lines)
}

// displayLine readies a line of a file for a result line.
func displayLine(line []byte) string {
	return cutLine(strings.TrimRight(string(line), "\r\n"), searchMaxLine)
}

// scanMatches reads files (see scanFiles), matches them on all cores, and
// hands the results to emit in file order. emit returns false to stop the
// search early; files are then no longer read.
func (s *Set) scanMatches(ctx context.Context, files []entry, m *matcher, maxResults int, emit func(fileHits) bool) error {
	return scanFiles(ctx, s, files, func(data []byte) fileHits {
		var h fileHits
		if isBinary(data) {
			h.binary = true
		} else if h.lines, h.more = m.find(data, maxResults); len(h.lines) > 0 {
			h.data = bytes.Clone(data)
		}
		return h
	}, func(i int, h fileHits) bool {
		h.i = i
		return emit(h)
	})
}
