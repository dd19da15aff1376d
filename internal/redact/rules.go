package redact

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"

	"github.com/zricethezav/gitleaks/v8/config"
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
	// which need an operator soon after the keyword. anchored is such a
	// rule's expression from its keyword on, matched at a keyword of a
	// long line (see target.around).
	assign   bool
	anchored *regexp.Regexp
	anchor   anchorKind
	allow    []*allowlist
	// prio ranks rules finding overlapping text, lowest first: generic
	// rules give way to specific ones.
	prio int
	// conf is how sure the rule is that what it finds is a secret.
	conf Confidence
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

// maxValidated is the most stop words an allowlist may have to be
// validated (see get).
const maxValidated = 100

// allowlist is a gitleaks allowlist compiled on first use: most are never
// consulted in a run.
type allowlist struct {
	gen  *genAllow
	once sync.Once
	a    *config.Allowlist
	// stops finds the stop words of an allowlist that has too many to be
	// validated: gitleaks' own check would try each in turn.
	stops *keywords
}

// get returns the allowlist as gitleaks' type. It is not validated, so
// its methods test each expression and stop word in turn rather than
// building combined matchers first; they decide the same.
func (l *allowlist) get() *config.Allowlist {
	l.once.Do(func() {
		g := l.gen
		a := &config.Allowlist{RegexTarget: g.Target, StopWords: g.StopWords, MatchCondition: config.AllowlistMatchOr}
		if g.And {
			a.MatchCondition = config.AllowlistMatchAnd
		}
		if g.Commits {
			// Only whether there are any matters: no commit is known.
			a.Commits = []string{"-"}
		}
		for _, p := range g.Paths {
			a.Paths = append(a.Paths, regexp.MustCompile(p))
		}
		for _, r := range g.Regexes {
			a.Regexes = append(a.Regexes, regexp.MustCompile(r))
		}
		if len(g.StopWords) <= maxValidated {
			// Validate joins the paths and the expressions into one
			// expression each, which every file's path is matched
			// against; the stop words' trie is what costs, for the
			// generic rule's 1,500.
			if err := a.Validate(); err != nil {
				panic(fmt.Sprintf("redact: allowlist of gitleaks' configuration: %v", err))
			}
		} else {
			l.stops = newKeywords(g.StopWords)
		}
		l.a = a
	})
	return l.a
}

// stopWord reports whether secret holds one of the allowlist's stop
// words, as gitleaks' ContainsStopWord decides it.
func (l *allowlist) stopWord(secret string) bool {
	a := l.get()
	if l.stops == nil || secret == "" {
		stop, _ := a.ContainsStopWord(secret)
		return stop
	}
	return l.stops.any(strings.ToLower(secret))
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
		r.re = regexp.MustCompile(r.src)
		r.assign = strings.Contains(r.src, assignTemplate)
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
