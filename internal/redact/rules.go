package redact

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
)

//go:generate go run ./internal/rulegen

// rule is one detector: a gitleaks rule, or one of ours (extra.go).
type rule struct {
	id, desc string
	// src is the rule's expression, compiled into re (and ext and assign
	// worked out) by compile, on the first text holding a keyword of the
	// rule: most rules never meet one, and compiling all two hundred
	// took most of a small review's start.
	src  string
	once sync.Once
	re   *regexp.Regexp
	// group is the capture group holding the secret; 0 takes the first
	// non-empty group, or the whole match when there is none.
	group int
	// entropy is the Shannon entropy a secret must exceed; 0 is none.
	entropy float64
	// path, if set, limits the rule to files whose path it matches.
	path     *regexp.Regexp
	keywords []string // lower case; none means the rule always runs
	kw       []int    // the keywords' indexes in ruleSet.kw
	kwMax    int      // the length of the longest keyword
	// ext bounds the rule's matches, so it runs only around keywords.
	ext extent
	// assign marks rules built on gitleaks' template for name = value,
	// which need an operator soon after the keyword, as our rule for
	// Authorization headers does. anchored is such a rule's expression
	// from its keyword on, matched at a keyword of a long line (see
	// target.around).
	assign   bool
	anchored *regexp.Regexp
	anchor   anchorKind
	allow    []*allowlist
	// prio ranks rules finding overlapping text, lowest first: generic
	// rules give way to specific ones.
	prio int
	// conf is how sure the rule is that what it finds is a secret.
	conf Confidence
	// check, if set, is what a secret must also pass.
	check func(secret string) bool
	// extra, for this package's own detectors, finds the secrets' spans
	// in the text instead of re.
	extra func(t *target, rl *rule, windows []window) [][2]int
}

// ruleSet is every detector, compiled once per process.
type ruleSet struct {
	rules []*rule
	// global are gitleaks' allowlists for every rule.
	global []*allowlist
	kw     *keywords
	byID   map[string]*rule
}

// loadRules builds the rules from gitleaks' default configuration, as
// rulegen wrote it down (rules_gen.go): reading the configuration as
// gitleaks does (viper, then compiling every allowlist and building its
// stop-word tries) took most of a small review's start. Expressions and
// allowlists are compiled when first needed.
var loadRules = sync.OnceValue(func() *ruleSet {
	rs := &ruleSet{byID: map[string]*rule{}}
	for i := range gitleaksGlobal {
		rs.global = append(rs.global, &allowlist{gen: &gitleaksGlobal[i]})
	}
	for i := range gitleaksRules {
		g := &gitleaksRules[i]
		if g.Regex == "" || g.SkipReport || g.Required > 0 {
			// Path-only rules flag whole files (a .p12 keystore), which
			// has no text to redact; composite rules are reported only
			// with their parts, which are rules of their own.
			continue
		}
		rl := &rule{
			id: g.ID, desc: g.Desc, src: g.Regex, group: g.Group,
			entropy: g.Entropy, keywords: g.Keywords, prio: prioSpecific,
		}
		if g.Path != "" {
			rl.path = regexp.MustCompile(g.Path)
		}
		for j := range g.Allow {
			if !overridden(g.ID, &g.Allow[j]) {
				rl.allow = append(rl.allow, &allowlist{gen: &g.Allow[j]})
			}
		}
		if strings.Contains(strings.ToLower(g.ID), "generic") {
			rl.prio = prioGeneric
		}
		rl.conf = confidenceOf(g)
		rs.add(rl)
	}
	for i := range ourRules {
		g := &ourRules[i]
		rl := &rule{
			id: g.ID, desc: g.Desc, src: g.Regex, group: g.Group,
			entropy: g.Entropy, keywords: g.Keywords, prio: prioOurs, conf: confidenceOf(g),
		}
		if c, ok := ourConfidence[g.ID]; ok {
			rl.conf = c
		}
		rl.check = ourChecks[g.Regex]
		for j := range g.Allow {
			rl.allow = append(rl.allow, &allowlist{gen: &g.Allow[j]})
		}
		rs.add(rl)
	}
	for _, r := range extraRules() {
		rs.add(r)
	}
	var all []string
	for _, r := range rs.rules {
		all = append(all, r.keywords...)
	}
	rs.kw = newKeywords(all)
	for _, r := range rs.rules {
		for _, k := range r.keywords {
			r.kw = append(r.kw, rs.kw.index(strings.ToLower(k)))
			r.kwMax = max(r.kwMax, len(k))
		}
	}
	return rs
})

// genRule is a gitleaks rule as rulegen writes it down: Translate's
// result, with expressions as their source.
type genRule struct {
	ID, Desc    string
	Regex, Path string
	Group       int
	Entropy     float64
	SkipReport  bool
	Required    int // rules it requires
	Keywords    []string
	Allow       []genAllow
}

// genAllow is a gitleaks allowlist as rulegen writes it down.
type genAllow struct {
	And     bool // every condition must hold
	Commits bool // it names commits, which are never known here
	Target  string
	Paths   []string
	Regexes []string
	// StopWords are in lower case, as gitleaks' Validate leaves them.
	StopWords []string
}

// maxValidated is the most stop words an allowlist tries one by one;
// past it they are found together (see get).
const maxValidated = 100

// allowlist is a gitleaks allowlist compiled on first use: most are never
// consulted in a run.
type allowlist struct {
	gen  *genAllow
	once sync.Once
	a    *allow
	// stops finds the stop words of an allowlist that has many: trying
	// each in turn would cost, for the generic rule's 1,500.
	stops *keywords
}

// allow is an allowlist compiled, deciding as gitleaks' own type decides
// (its config.Allowlist, which this package does not link: it brings a
// configuration framework to the binary).
type allow struct {
	// and says every condition must hold, not any one.
	and bool
	// commits says the allowlist names commits; none is known here.
	commits   bool
	target    string // what the expressions match: "" (the secret), "match" or "line"
	paths     []*regexp.Regexp
	regexes   []*regexp.Regexp
	stopWords []string // lower case
}

// pathAllowed reports whether one of the path expressions matches path.
func (a *allow) pathAllowed(path string) bool {
	if path == "" {
		return false
	}
	for _, re := range a.paths {
		if re.MatchString(path) {
			return true
		}
	}
	return false
}

// regexAllowed reports whether one of the expressions matches s.
func (a *allow) regexAllowed(s string) bool {
	if s == "" {
		return false
	}
	for _, re := range a.regexes {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// get returns the allowlist compiled.
func (l *allowlist) get() *allow {
	l.once.Do(func() {
		g := l.gen
		a := &allow{and: g.And, commits: g.Commits, target: g.Target}
		for _, p := range g.Paths {
			a.paths = append(a.paths, regexp.MustCompile(p))
		}
		for _, r := range g.Regexes {
			a.regexes = append(a.regexes, regexp.MustCompile(r))
		}
		for _, w := range g.StopWords {
			a.stopWords = append(a.stopWords, strings.ToLower(w))
		}
		if len(g.StopWords) > maxValidated {
			l.stops = newKeywords(a.stopWords)
		}
		l.a = a
	})
	return l.a
}

// stopWord reports whether secret holds one of the allowlist's stop
// words, in any case, as gitleaks decides it.
func (l *allowlist) stopWord(secret string) bool {
	a := l.get()
	if secret == "" {
		return false
	}
	lower := strings.ToLower(secret)
	if l.stops != nil {
		return l.stops.any(lower)
	}
	for _, w := range a.stopWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// compile compiles a gitleaks rule's expression and works out how far
// its matches reach, once. gitleaks compiled the same expression when it
// read its configuration, so it cannot fail here; our own rules have no
// expression.
func (r *rule) compile() {
	r.once.Do(func() {
		if r.src == "" {
			return
		}
		r.src = strings.ReplaceAll(r.src, tokenEnd, tokenEndProse)
		r.re = regexp.MustCompile(r.src)
		r.assign = strings.Contains(r.src, assignTemplate) || strings.HasPrefix(r.src, authorizationLead)
		r.ext = unbounded()
		re, err := syntax.Parse(r.src, syntax.Perl)
		if err == nil {
			r.ext = extentOf(re.Simplify())
		}
		if rest, ok := strings.CutPrefix(r.src, assignLead); ok && r.assign {
			r.anchored, r.anchor = regexp.MustCompile(`(?i)^`+rest), anchorName
		} else if err == nil && startsWithKeyword(re, r.keywords) {
			// The byte before the keyword is matched too, so that a \b
			// at the start of the expression sees it.
			r.anchored, r.anchor = regexp.MustCompile(`^(?s:.)(?:`+r.src+`)`), anchorKeyword
		}
	})
}

// anchorKind says where the match of a rule's anchored expression starts.
type anchorKind int

const (
	// anchorName: a rule for name = value, matched from its keyword on;
	// the match starts at the name before the keyword.
	anchorName anchorKind = iota + 1
	// anchorKeyword: a rule whose every match starts with one of its
	// keywords (a token's prefix, as ghp_), matched from the byte before
	// the keyword; the match starts at the keyword.
	anchorKeyword
)

// startsWithKeyword reports whether every match of re starts with one of
// keywords (in lower case): re is a literal, or a choice of literals,
// each starting with a keyword, maybe inside groups and after \b or ^.
func startsWithKeyword(re *syntax.Regexp, keywords []string) bool {
	switch re.Op {
	case syntax.OpCapture:
		return startsWithKeyword(re.Sub[0], keywords)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			switch sub.Op {
			case syntax.OpWordBoundary, syntax.OpBeginLine, syntax.OpBeginText:
				continue
			}
			return startsWithKeyword(sub, keywords)
		}
		return false
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !startsWithKeyword(sub, keywords) {
				return false
			}
		}
		return len(re.Sub) > 0
	case syntax.OpLiteral:
		lit := strings.ToLower(string(re.Rune))
		for _, k := range keywords {
			if k != "" && strings.HasPrefix(lit, strings.ToLower(k)) {
				return true
			}
		}
	}
	return false
}

func (rs *ruleSet) add(r *rule) {
	rs.rules = append(rs.rules, r)
	if rs.byID[r.id] == nil {
		rs.byID[r.id] = r
	}
}

// tokenEnd is how gitleaks' rules end a value: at a backtick, a quote,
// whitespace, a semicolon, an escaped newline or the end of the text. A
// token in a sentence, in brackets or in a list ends at punctuation too
// ("the key is sk_live_….", "(sk_live_…)", "AKIA…, ok?"); not at ! or ?, which
// passwords hold, and a rule that
// stopped there would send it whole; tokenEndProse ends it there as well.
const (
	tokenEnd      = `(?:[\x60'"\s;]|\\[nr]|$`
	tokenEndProse = `(?:[\x60'"\s;,.:)\]}>]|\\[nr]|$`
)

// assignTemplate is what gitleaks' rules for name = value (its generic
// rule, and a hundred for services) put between the keyword and the value:
// at most 20 more characters of the name, 3 of space or quotes, then an
// operator.
const assignTemplate = `(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)`

// assignLead is how gitleaks' rules for name = value start: up to 50
// characters of the name before the keyword.
const (
	assignLead     = `(?i)[\w.-]{0,50}?`
	assignLeadSpan = 50
)

// overridden reports whether one published allowlist is left out. Only
// one is: gitleaks lets AWS access key IDs ending in EXAMPLE through, as
// AWS's documentation uses AKIAIOSFODNN7EXAMPLE; here a key of that shape
// is redacted like any other, since sending a real key that happens to end
// so costs far more than hiding a documentation one, and fixtures are
// allowed by path in .review.yaml.
func overridden(id string, a *genAllow) bool {
	return id == "aws-access-token" && slices.Contains(a.Regexes, ".+EXAMPLE$")
}

// Rule describes a detection rule.
type Rule struct {
	ID          string `json:"id"`
	Description string `json:"description"`
}

// Rules lists every rule a Redactor applies, in the order they are tried:
// gitleaks' default rules, then this package's own.
func Rules() []Rule {
	var out []Rule
	for _, r := range loadRules().rules {
		if r == loadRules().byID[r.id] { // the first of an ID describes it
			out = append(out, Rule{ID: r.id, Description: r.desc})
		}
	}
	return out
}

// Known reports whether id names a rule.
func Known(id string) bool {
	_, ok := loadRules().byID[id]
	return ok
}

// lazyRE compiles a regular expression on first use: most runs never meet
// the text it is for, and compiling them all took a few milliseconds of
// every start.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
