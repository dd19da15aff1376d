package redact

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/reviewdev/review/internal/glob"
)

// Options tune a Redactor.
type Options struct {
	// AllowPaths are globs, matched as the ignore globs are, of files
	// whose secrets are known fixtures: they are neither redacted nor
	// reported. They apply where the path of a text is known (the diff's
	// hunks); a tool's output has no path and is redacted whole.
	AllowPaths []string `json:"allow_paths,omitempty"`
	// AllowRules are IDs of rules that are not applied at all.
	AllowRules []string `json:"allow_rules,omitempty"`
}

// Redactor replaces secrets in text with placeholders. A nil *Redactor
// redacts nothing, so a caller holds one whether or not redaction is on.
// It is safe for concurrent use.
type Redactor struct {
	allowPaths []string
	allowRules map[string]bool
	// rules caches, by path, the rules that apply to a file's text (nil
	// when the whole file is allowed): paths are checked against dozens
	// of patterns, and a diff asks for each file many times.
	rules sync.Map // string → []*rule
}

// New returns a Redactor. The rules are compiled once per process, which
// takes a tenth of a second; New starts that in the background, so it is
// mostly done by the time there is text to redact.
func New(opts Options) *Redactor {
	go loadRules()
	r := &Redactor{allowPaths: slices.Clone(opts.AllowPaths), allowRules: map[string]bool{}}
	for _, id := range opts.AllowRules {
		r.allowRules[id] = true
	}
	return r
}

// Match is one redacted secret.
type Match struct {
	// Rule is the ID of the rule that found it, such as
	// "aws-access-token", and Description says what that rule looks for.
	Rule        string `json:"rule"`
	Description string `json:"description"`
	// Placeholder is the text that replaced the secret.
	Placeholder string `json:"placeholder"`
	// Start and End are the byte offsets of the secret in the text given;
	// Line and EndLine the 1-based lines of its first and last byte.
	Start   int `json:"start"`
	End     int `json:"end"`
	Line    int `json:"line"`
	EndLine int `json:"end_line"`
	// Guard marks text redacted only because it may be key material (PEM
	// lines whose header is not in the text): it is hidden but not
	// reported as a secret.
	Guard bool `json:"guard,omitempty"`
	// Confidence is the rule's: high for a token of a known format, low
	// for a generic match.
	Confidence Confidence `json:"confidence"`
	// Setting says whether the secret sits in documentation, a test
	// fixture or minified code, where a low-confidence match is mostly
	// an example or noise; "" elsewhere. See Setting.
	Setting string `json:"setting,omitempty"`
}

// Redact replaces the secrets in text, whose file is unknown (a tool's
// output, a message), and returns the new text and what was replaced, in
// order. Path-specific rules apply, as the text may come from any file.
func (r *Redactor) Redact(text string) (string, []Match) {
	return r.RedactFile("", text)
}

// RedactFile is Redact for text from the file at path (repository-relative,
// slash-separated): the allowlists of paths apply, and rules for some
// kinds of files only run on those.
func (r *Redactor) RedactFile(path, text string) (string, []Match) {
	if r == nil || text == "" {
		return text, nil
	}
	ms := r.find(path, text)
	if len(ms) == 0 {
		return text, nil
	}
	for i := range ms {
		ms[i].Setting = Setting(path, lineAround(text, ms[i].Start))
	}
	return rewrite(text, ms), ms
}

// candidate is a secret one rule found, before overlaps are resolved.
type candidate struct {
	r          *rule
	start, end int // the secret
	prio       int
}

// Priorities among rules finding overlapping text, lowest first:
// specific rules name the secret best; gitleaks' own before ours (see
// ourRules), which widen some of its rules.
const (
	prioSpecific = iota
	prioOurs
	prioKeyBlock
	prioURL
	prioGeneric
	prioAssignment
	prioGuard
)

// forPath returns the rules that apply to text of the file at path.
func (r *Redactor) forPath(path string) []*rule {
	if v, ok := r.rules.Load(path); ok {
		return v.([]*rule)
	}
	rs := loadRules()
	var out []*rule
	if path == "" || !(glob.Match(r.allowPaths, path) || pathAllowed(rs.global, path)) {
		out = make([]*rule, 0, len(rs.rules))
		for _, rl := range rs.rules {
			if !r.allowRules[rl.id] && rl.applies(path) {
				out = append(out, rl)
			}
		}
		if len(out) == len(rs.rules) {
			out = rs.rules // most paths: every rule, one list for all
		}
	}
	r.rules.Store(path, out)
	return out
}

func (r *Redactor) find(path, text string) []Match {
	ms, _ := r.scan(path, text)
	return ms
}

// scan finds the secrets in text, and says how many bytes the rules'
// expressions were run over. The rules of a large text run on every core.
func (r *Redactor) scan(path, text string) ([]Match, int) {
	rules := r.forPath(path)
	if len(rules) == 0 {
		return nil, 0
	}
	rs := loadRules()
	lower := asciiLower(text)
	t := &target{text: text, lower: lower, hits: rs.kw.scan(lower)}
	workers := 1
	if len(text) >= parallelScan {
		workers = min(runtime.GOMAXPROCS(0), maxScanWorkers)
	}
	if workers == 1 {
		var cands []candidate
		for _, rl := range rules {
			cands = rs.run(cands, rl, path, t)
		}
		return resolve(text, dropPublic(text, cands)), t.work
	}
	// Each rule's candidates are kept apart and joined in the rules'
	// order, so that overlapping candidates resolve as on one core.
	t.line(0) // the lines are indexed once, before the workers share them
	found := make([][]candidate, len(rules))
	work := make([]int, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for i := range workers {
		wg.Go(func() {
			tw := &target{text: t.text, lower: t.lower, hits: t.hits, starts: t.starts}
			for {
				j := int(next.Add(1)) - 1
				if j >= len(rules) {
					break
				}
				found[j] = rs.run(nil, rules[j], path, tw)
			}
			work[i] = tw.work
		})
	}
	wg.Wait()
	var cands []candidate
	for _, c := range found {
		cands = append(cands, c...)
	}
	total := 0
	for _, w := range work {
		total += w
	}
	return resolve(text, dropPublic(text, cands)), total
}

// dropPublic drops the candidates of low-confidence rules that are public
// text (see public). A token of a known format stays a secret wherever
// it is.
func dropPublic(text string, cands []candidate) []candidate {
	if len(cands) == 0 {
		return cands
	}
	spans := publicSpans(text)
	return slices.DeleteFunc(cands, func(c candidate) bool {
		return c.r.conf == Low && public(text, c.start, c.end, spans)
	})
}

// A text of parallelScan bytes or more (a minified bundle, a large
// generated file) has its rules run on up to maxScanWorkers cores.
const (
	parallelScan   = 128 << 10
	maxScanWorkers = 4
)

// run runs one rule over t and appends its candidates to cands.
func (rs *ruleSet) run(cands []candidate, rl *rule, path string, t *target) []candidate {
	text := t.text
	var win []window
	if len(rl.kw) == 0 {
		win = []window{whole(text)}
	} else if win = t.windows(rl); len(win) == 0 {
		return cands
	}
	if rl.extra != nil {
		for _, s := range rl.extra(t, rl, win) {
			secret := text[s[0]:s[1]]
			if !allowedFinding(rs.global, path, secret, secret, lineOf(text, s[0], s[1])) {
				cands = append(cands, candidate{r: rl, start: s[0], end: s[1], prio: rl.prio})
			}
		}
		return cands
	}
	t.matched = 0
	for _, w := range win {
		cands = rs.detect(cands, rl, path, t, w)
	}
	return cands
}

// applies reports whether rl runs on text of the file at path. Rules for
// some kinds of files do not run on text of an unknown file, as in
// gitleaks; the assignments rule covers most of what they find.
func (rl *rule) applies(path string) bool {
	if rl.path != nil && !rl.path.MatchString(path) {
		return false
	}
	return path == "" || !pathAllowed(rl.allow, path)
}

// detect runs a gitleaks rule over the window w of text as gitleaks'
// detector runs it over a whole file: the match without surrounding
// newlines, its secret group, the entropy threshold, then the global
// allowlists and the rule's own. It appends what it finds to cands.
func (rs *ruleSet) detect(cands []candidate, rl *rule, path string, t *target, w window) []candidate {
	text := t.text
	// Groups are found in each match afterwards, as gitleaks does: the
	// search itself is faster without them. A match at a keyword comes
	// with its groups.
	for _, m := range t.spans(rl, w) {
		ms, me := m[0], m[1]
		for ms < me && text[ms] == '\n' {
			ms++
		}
		for me > ms && text[me-1] == '\n' {
			me--
		}
		ss, se, ok := ms, me, ms < me
		if len(m) > 2 && me == m[1] {
			ss, se, ok = secretSpan(rl.group, m, ms, me)
		} else if g := rl.re.FindStringSubmatchIndex(text[ms:me]); g != nil {
			// Without its line breaks, or the text around it, the
			// match may no longer match; gitleaks then takes the whole
			// as the secret.
			for i := range g {
				if g[i] >= 0 {
					g[i] += ms
				}
			}
			ss, se, ok = secretSpan(rl.group, g, ms, me)
		}
		if !ok {
			continue
		}
		secret := text[ss:se]
		if rl.entropy != 0 && entropy(secret) <= rl.entropy || rl.check != nil && !rl.check(secret) {
			continue
		}
		match, line := text[ms:me], lineOf(text, ms, me)
		t.work += len(line)
		if allowedFinding(rs.global, path, secret, match, line) || allowedFinding(rl.allow, path, secret, match, line) {
			continue
		}
		cands = append(cands, candidate{r: rl, start: ss, end: se, prio: rl.prio})
	}
	return cands
}

// secretSpan picks the secret out of a match m (as FindSubmatchIndex gives
// it) trimmed to [ms, me): the rule's secret group, else the first
// non-empty group, else the whole match.
func secretSpan(group int, m []int, ms, me int) (int, int, bool) {
	s, e := ms, me
	switch {
	case group > 0:
		if 2*group+1 >= len(m) || m[2*group] < 0 {
			return 0, 0, false
		}
		s, e = m[2*group], m[2*group+1]
	case len(m) > 2:
		for i := 2; i+1 < len(m); i += 2 {
			if m[i] >= 0 && m[i+1] > m[i] {
				s, e = m[i], m[i+1]
				break
			}
		}
	}
	s, e = max(s, ms), min(e, me)
	return s, e, s < e
}

// lineOf returns the lines of text holding [s, e), which allowlists for
// lines are matched against. Of a line longer than longLine, it returns
// the lineReach bytes either side: matching the expressions of every
// secret found on a minified bundle's one line against all of it took
// seconds, and the line of such code is no unit of meaning.
func lineOf(text string, s, e int) string {
	from, to := max(0, s-longLine), min(len(text), e+longLine)
	ls := strings.LastIndexByte(text[from:s], '\n') + 1 + from
	le := strings.IndexByte(text[e:to], '\n') + e
	if ls == from && from > 0 || le < e && to < len(text) {
		ls, le = max(0, s-lineReach), min(len(text), e+lineReach)
		for ls < s && !utf8.RuneStart(text[ls]) {
			ls++
		}
		for le > e && le < len(text) && !utf8.RuneStart(text[le]) {
			le--
		}
		return text[ls:le]
	}
	if le < e {
		le = to
	}
	return text[ls:le]
}

// lineReach is how much of a long line lineOf gives either side of a
// match.
const lineReach = 256

// pathAllowed reports whether an allowlist lets every secret of the file at
// path through, as gitleaks checks before scanning a file. No commit is
// known here, so an allowlist that needs one never applies.
func pathAllowed(allow []*allowlist, path string) bool {
	if path == "" {
		return false
	}
	for _, l := range allow {
		if len(l.gen.Paths) == 0 {
			continue // nothing to compile: it cannot allow a path
		}
		a := l.get()
		if a.and {
			if a.commits || len(a.regexes) > 0 || len(a.stopWords) > 0 {
				continue
			}
			if len(a.paths) > 0 && a.pathAllowed(path) {
				return true
			}
			continue
		}
		if a.pathAllowed(path) {
			return true
		}
	}
	return false
}

// allowedFinding reports whether an allowlist lets one secret through, as
// gitleaks decides it: by a regular expression on the secret, the match or
// the line, by a stop word in the secret, or, for an allowlist whose
// conditions must all hold, by those and the path.
func allowedFinding(allow []*allowlist, path, secret, match, line string) bool {
	// Stop words first: they are found in one pass over the secret, where
	// an allowlist's expressions (gitleaks' generic rule has one of a
	// hundred alternatives for the match) cost far more. Any allowlist
	// that lets the secret through decides it, in whatever order.
	for _, l := range allow {
		if !l.get().and && l.stopWord(secret) {
			return true
		}
	}
	for _, l := range allow {
		a := l.get()
		target := secret
		switch a.target {
		case "match":
			target = match
		case "line":
			target = line
		}
		if !a.and {
			if a.regexAllowed(target) {
				return true
			}
			continue
		}
		// The cheap conditions first: no commit is known here, and a
		// path rules out most files before an expression runs over a
		// line (of a minified bundle: hundreds of kilobytes).
		if a.commits || (len(a.paths) > 0 && !a.pathAllowed(path)) {
			continue
		}
		if len(a.regexes) > 0 && !a.regexAllowed(target) {
			continue
		}
		if len(a.stopWords) > 0 && !l.stopWord(secret) {
			continue
		}
		return true
	}
	return false
}

// entropy is the Shannon entropy of s in bits per character, as gitleaks
// computes it (per rune, over the length in bytes).
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, c := range s {
		counts[c]++
	}
	inv := 1.0 / float64(len(s))
	h := 0.0
	for _, n := range counts {
		f := float64(n) * inv
		h -= f * math.Log2(f)
	}
	return h
}

// placeholderRE matches the placeholders this package writes.
var placeholderRE = lazyRE(`\[secret:[a-z0-9._-]+#[0-9a-f]{4}\]`)

// Placeholder is the text that stands for secret, found by rule.
func Placeholder(rule, secret string) string {
	h := sha256.Sum256([]byte("review/redact\x00" + secret))
	return "[secret:" + rule + "#" + hex.EncodeToString(h[:2]) + "]"
}

// resolve turns the candidates into matches: overlapping candidates become
// one match over all of their text, named by the best of them (the most
// specific rule, then a token's format over a generic match, then the
// longer); candidates over a placeholder are dropped, so redacting twice
// changes nothing.
func resolve(text string, cands []candidate) []Match {
	if len(cands) == 0 {
		return nil
	}
	var held [][]int
	if strings.Contains(text, "[secret:") {
		held = placeholderRE().FindAllStringIndex(text, -1)
	}
	cands = slices.DeleteFunc(cands, func(c candidate) bool {
		return slices.ContainsFunc(held, func(h []int) bool { return c.start < h[1] && h[0] < c.end })
	})
	slices.SortFunc(cands, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end))
	})
	var out []Match
	line, at := 1, 0 // the line of offset at
	lineAt := func(off int) int {
		line += strings.Count(text[at:off], "\n")
		at = off
		return line
	}
	for i := 0; i < len(cands); {
		best, start, end := cands[i], cands[i].start, cands[i].end
		j := i + 1
		for ; j < len(cands) && cands[j].start < end; j++ {
			c := cands[j]
			end = max(end, c.end)
			if c.prio < best.prio || c.prio == best.prio && (c.r.conf == High && best.r.conf != High ||
				c.r.conf == best.r.conf && c.end-c.start > best.end-best.start) {
				best = c
			}
		}
		m := Match{
			Rule: best.r.id, Description: best.r.desc,
			Placeholder: Placeholder(best.r.id, text[best.start:best.end]),
			Start:       start, End: end, Guard: best.prio == prioGuard, Confidence: best.r.conf,
		}
		m.Line = lineAt(start)
		m.EndLine = lineAt(end - 1)
		out = append(out, m)
		i = j
	}
	return out
}

// gutterLen is the length of the line number read_file_hunk and
// read_tool_output put before each line ("12: "), or 0.
func gutterLen(line string) int {
	i := 0
	for i < len(line) && '0' <= line[i] && line[i] <= '9' {
		i++
	}
	if i > 0 && strings.HasPrefix(line[i:], ": ") {
		return i + 2
	}
	return 0
}

// layoutBefore returns the text of the line before offset at, which may
// lay its lines out: a gutter, indentation and a diff marker. Far into a
// long line it is code, and "" is returned without looking back to the
// line's start.
func layoutBefore(text string, at int) string {
	from := max(0, at-longLine)
	i := strings.LastIndexByte(text[from:at], '\n')
	if i < 0 && from > 0 {
		return ""
	}
	return text[from+i+1 : at]
}

// rewrite replaces each match of ms (in order, not overlapping) in text
// with its placeholder, line by line: a secret over several lines leaves a
// placeholder on each, and what lays out those lines (indentation, a line
// number gutter, a diff's + or -, when the first line has the same) stays.
func rewrite(text string, ms []Match) string {
	var b strings.Builder
	b.Grow(len(text))
	prev := 0
	for _, m := range ms {
		b.WriteString(text[prev:m.Start])
		lead := layoutBefore(text, m.Start)
		hasGutter := gutterLen(lead) > 0
		marker := strings.TrimLeft(lead[gutterLen(lead):], " \t")
		for i, part := range strings.Split(text[m.Start:m.End], "\n") {
			if i > 0 {
				b.WriteByte('\n')
				keep := 0
				if hasGutter {
					keep = gutterLen(part)
				}
				if (marker == "+" || marker == "-") && strings.HasPrefix(part[keep:], marker) {
					keep++
				}
				keep += len(part[keep:]) - len(strings.TrimLeft(part[keep:], " \t"))
				b.WriteString(part[:keep])
				part = part[keep:]
			}
			cr := strings.HasSuffix(part, "\r")
			part = strings.TrimSuffix(part, "\r")
			if strings.TrimSpace(part) == "" {
				b.WriteString(part)
			} else {
				b.WriteString(m.Placeholder)
			}
			if cr {
				b.WriteByte('\r')
			}
		}
		prev = m.End
	}
	b.WriteString(text[prev:])
	return b.String()
}
