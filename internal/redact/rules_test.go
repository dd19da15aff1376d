package redact

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
)

// TestGeneratedRules holds rules_gen.go to gitleaks' default configuration
// as gitleaks itself reads it: every rule, in order, with its expression,
// path, keywords, secret group, entropy and allowlists, and the global
// allowlists. After updating gitleaks, run go generate ./internal/redact.
func TestGeneratedRules(t *testing.T) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		t.Fatal(err)
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		t.Fatal(err)
	}
	cfg, err := vc.Translate()
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.OrderedRules) != len(gitleaksRules) {
		t.Fatalf("%d rules generated, gitleaks has %d: run go generate ./internal/redact", len(gitleaksRules), len(cfg.OrderedRules))
	}
	for i, id := range cfg.OrderedRules {
		r, g := cfg.Rules[id], gitleaksRules[i]
		if g.ID != id || g.Desc != r.Description || g.Group != r.SecretGroup || g.Entropy != r.Entropy ||
			g.SkipReport != r.SkipReport || g.Required != len(r.RequiredRules) ||
			g.Regex != src(r.Regex) || g.Path != src(r.Path) || !slices.Equal(g.Keywords, r.Keywords) {
			t.Errorf("rule %d: generated %+v, gitleaks has %s", i, g, id)
			continue
		}
		sameAllow(t, id, g.Allow, r.Allowlists)
	}
	sameAllow(t, "global", gitleaksGlobal, cfg.Allowlists)
	if gitleaksTitle != cfg.Title {
		t.Errorf("title %q, gitleaks has %q", gitleaksTitle, cfg.Title)
	}
}

func sameAllow(t *testing.T, id string, gen []genAllow, want []*config.Allowlist) {
	t.Helper()
	if len(gen) != len(want) {
		t.Errorf("%s: %d allowlists generated, gitleaks has %d", id, len(gen), len(want))
		return
	}
	for i, a := range want {
		g := gen[i]
		stop := slices.Clone(a.StopWords)
		slices.Sort(stop)
		if g.And != (a.MatchCondition == config.AllowlistMatchAnd) || g.Commits != (len(a.Commits) > 0) || g.Target != a.RegexTarget ||
			!slices.Equal(g.Paths, srcs(a.Paths)) || !slices.Equal(g.Regexes, srcs(a.Regexes)) || !slices.Equal(g.StopWords, stop) {
			t.Errorf("%s: allowlist %d differs from gitleaks'", id, i)
		}
		// What review builds from it decides as gitleaks' own does.
		l := &allowlist{gen: &gen[i]}
		ours := l.get()
		probes := append(slices.Clone(a.StopWords), "nothing-like-it", "x", "AKIAIOSFODNN7EXAMPLE", "vendor/a.go", "go.sum", "EXAMPLE", "${SECRET}")
		for _, s := range probes {
			got := l.stopWord(s + "X")
			exp, _ := a.ContainsStopWord(s + "X")
			if got != exp {
				t.Errorf("%s: allowlist %d: stop word in %q: %v, gitleaks says %v", id, i, s+"X", got, exp)
			}
			if got, exp := ours.regexAllowed(s), a.RegexAllowed(s); got != exp {
				t.Errorf("%s: allowlist %d: expressions on %q: %v, gitleaks says %v", id, i, s, got, exp)
			}
			if got, exp := ours.pathAllowed(s), a.PathAllowed(s); got != exp {
				t.Errorf("%s: allowlist %d: paths on %q: %v, gitleaks says %v", id, i, s, got, exp)
			}
		}
	}
}

func src(r *regexp.Regexp) string {
	if r == nil {
		return ""
	}
	return r.String()
}

func srcs(rs []*regexp.Regexp) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.String())
	}
	return out
}

// The stop words of an allowlist too large to validate are found as
// gitleaks' ContainsStopWord finds them.
func TestStopWords(t *testing.T) {
	n := 0
	for _, rl := range loadRules().rules {
		for _, l := range rl.allow {
			if l.get(); l.stops == nil {
				continue
			}
			a := gitleaksAllow(l.gen)
			n++
			inputs := []string{"", "x", "zzzzzzzzzz", "9f8e7d6c5b4a3f2e1d0c", "ÄÖÜ-Straße", "\u212Aey"}
			for i, w := range a.StopWords {
				inputs = append(inputs, w, "X9"+strings.ToUpper(w)+"z", w[:len(w)-1])
				if i > 300 {
					break
				}
			}
			for _, s := range inputs {
				want, _ := a.ContainsStopWord(s)
				if got := l.stopWord(s); got != want {
					t.Errorf("rule %s: stop word in %q: %v, gitleaks says %v", rl.id, s, got, want)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no allowlist with more stop words than are validated")
	}
}

// gitleaksAllow is gen as gitleaks' own allowlist, validated, for
// comparing decisions.
func gitleaksAllow(g *genAllow) *config.Allowlist {
	a := &config.Allowlist{RegexTarget: g.Target, StopWords: slices.Clone(g.StopWords), MatchCondition: config.AllowlistMatchOr}
	if g.And {
		a.MatchCondition = config.AllowlistMatchAnd
	}
	for _, p := range g.Paths {
		a.Paths = append(a.Paths, regexp.MustCompile(p))
	}
	for _, r := range g.Regexes {
		a.Regexes = append(a.Regexes, regexp.MustCompile(r))
	}
	if err := a.Validate(); err != nil {
		panic(err)
	}
	return a
}
