package redact

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
)

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
	// ext bounds the rule's matches, so it runs only around keywords.
	ext extent
	// assign marks rules built on gitleaks' template for name = value,
	// which need an operator soon after the keyword.
	assign bool
	allow  []*config.Allowlist
	// prio ranks rules finding overlapping text, lowest first: generic
	// rules give way to specific ones.
	prio int
	// extra, for this package's own detectors, finds the secrets' spans
	// in the text instead of re.
	extra func(t *target, rl *rule, windows []window) [][2]int
}

// ruleSet is every detector, compiled once per process.
type ruleSet struct {
	rules []*rule
	// global are gitleaks' allowlists for every rule.
	global []*config.Allowlist
	kw     *keywords
	byID   map[string]*rule
}

// loadRules compiles gitleaks' default configuration. It cannot fail on
// the configuration the module ships; a panic here is caught by the tests.
var loadRules = sync.OnceValue(func() *ruleSet {
	cfg, src, err := gitleaksConfig()
	if err != nil {
		panic(fmt.Sprintf("redact: gitleaks' default configuration: %v", err))
	}
	rs := &ruleSet{global: cfg.Allowlists, byID: map[string]*rule{}}
	for _, id := range cfg.OrderedRules {
		r := cfg.Rules[id]
		if r.Regex == nil || r.SkipReport || len(r.RequiredRules) > 0 {
			// Path-only rules flag whole files (a .p12 keystore), which
			// has no text to redact; composite rules are reported only
			// with their parts, which are rules of their own.
			continue
		}
		rl := &rule{
			id: r.RuleID, desc: r.Description, src: src[r.RuleID], group: r.SecretGroup,
			entropy: r.Entropy, path: r.Path, keywords: r.Keywords,
			allow: override(r.RuleID, r.Allowlists), prio: prioSpecific,
		}
		if strings.Contains(strings.ToLower(r.RuleID), "generic") {
			rl.prio = prioGeneric
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
		}
	}
	return rs
})

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
		if re, err := syntax.Parse(r.src, syntax.Perl); err == nil {
			r.ext = extentOf(re.Simplify())
		}
	})
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

// assignReach is how far after a keyword those rules' operator can start.
const assignReach = 23

// gitleaksConfig reads the default configuration the way gitleaks' own
// detector does, with a viper instance of its own rather than viper's
// global one.
func gitleaksConfig() (config.Config, map[string]string, error) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		return config.Config{}, nil, err
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return config.Config{}, nil, err
	}
	// Translate compiles every rule's expression; the rules' expressions
	// are kept aside, and compiled only when needed (rule.compile). A
	// test checks that every one compiles.
	src := map[string]string{}
	for i := range vc.Rules {
		if vc.Rules[i].Regex != "" {
			src[vc.Rules[i].ID] = vc.Rules[i].Regex
			// Matches nothing, with as many groups as the rule's
			// secret group needs to pass Translate's check.
			vc.Rules[i].Regex = "$^" + strings.Repeat("()", vc.Rules[i].SecretGroup)
		}
	}
	cfg, err := vc.Translate()
	return cfg, src, err
}

// override adjusts the allowlists of one published rule. Only one is
// changed: gitleaks lets AWS access key IDs ending in EXAMPLE through, as
// AWS's documentation uses AKIAIOSFODNN7EXAMPLE; here a key of that shape
// is redacted like any other, since sending a real key that happens to end
// so costs far more than hiding a documentation one, and fixtures are
// allowed by path in .review.yaml.
func override(id string, allow []*config.Allowlist) []*config.Allowlist {
	if id != "aws-access-token" {
		return allow
	}
	return slices.DeleteFunc(slices.Clone(allow), func(a *config.Allowlist) bool {
		return slices.ContainsFunc(a.Regexes, func(re *regexp.Regexp) bool { return re.String() == ".+EXAMPLE$" })
	})
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
