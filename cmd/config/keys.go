package config

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/toolmem"
)

// DefaultModel is used when neither --model, REVIEW_MODEL nor a
// configuration file names one.
const DefaultModel = "gpt-4o-mini"

// sourceDefault marks a value no flag, variable or file set.
const sourceDefault = "default"

// valueKind is the type of a setting's value.
type valueKind int

const (
	kindString     valueKind = iota
	kindInt                  // int
	kindFloat                // float64
	kindGlobs                // []string of doublestar globs
	kindSeverities           // map[string]result.Severity, by finding category
	kindPrice                // llm.Price
	kindBool                 // bool
	kindHeaders              // map[string]string of HTTP headers
	kindBody                 // map[string]any of JSON body fields
)

// Key is one setting: its name in configuration files and in
// `review config`, and where else it may come from.
type Key struct {
	Name string
	Flag string // the flag that sets it, or ""
	Env  string // the environment variable that sets it, or ""
	// File is whether configuration files may set it.
	File bool
	// negate marks a bool flag that says the opposite of its key:
	// --no-redact sets redact to false.
	negate bool

	kind valueKind
	// parse checks a decoded value and normalizes it. label names the
	// value in the error: "--max-steps", "$REVIEW_FAIL_ON" or "max_steps".
	parse func(label string, v any) (any, error)
}

// keys are every setting, in the order `review config` lists them.
// The table is never written to; Keys hands out copies.
var keys = []Key{
	{Name: "model", kind: kindString, Flag: "model", Env: "REVIEW_MODEL", File: true, parse: nonEmpty},
	{Name: "base_url", kind: kindString, Flag: "base-url", Env: "OPENAI_BASE_URL", File: true, parse: httpURL},
	{Name: "store", kind: kindString, Flag: "store", Env: "REVIEW_STORE", parse: nonEmpty},
	{Name: "tokenizer", kind: kindString, Flag: "tokenizer", File: true, parse: oneOf("tiktoken", "estimate", "server")},
	{Name: "off_diff", kind: kindString, Flag: "off-diff", File: true, parse: oneOf(string(result.KeepFileLevel), string(result.DropOffDiff))},
	{Name: "context_window", kind: kindInt, Flag: "context-window", File: true, parse: atLeast(1)},
	{Name: "answer_reserve", kind: kindInt, Flag: "answer-reserve", File: true, parse: atLeast(0)},
	{Name: "static_share", kind: kindFloat, Flag: "static-share", File: true, parse: share},
	{Name: "preview_chars", kind: kindInt, Flag: "preview-chars", File: true, parse: atLeast(toolmem.MinPreviewChars)},
	{Name: "max_steps", kind: kindInt, Flag: "max-steps", File: true, parse: atLeast(1)},
	{Name: "timeout", kind: kindString, Flag: "timeout", Env: "REVIEW_TIMEOUT", File: true, parse: duration(100*time.Millisecond, time.Hour)},
	{Name: "deadline", kind: kindString, Flag: "deadline", Env: "REVIEW_DEADLINE", File: true, parse: duration(0, 24*time.Hour)},
	{Name: "stream", kind: kindBool, Flag: "stream", File: true},
	{Name: "first_byte_timeout", kind: kindString, Flag: "first-byte-timeout", Env: "REVIEW_FIRST_BYTE_TIMEOUT", File: true, parse: duration(100*time.Millisecond, time.Hour)},
	{Name: "history_turns", kind: kindInt, Flag: "history-turns", File: true, parse: atLeast(0)},
	{Name: "history_chars", kind: kindInt, Flag: "history-chars", File: true, parse: atLeast(0)},
	{Name: "prune_target", kind: kindFloat, Flag: "prune-target", File: true, parse: pruneTarget},
	{Name: "history_select", kind: kindString, Flag: "history-select", File: true, parse: oneOf("relevance", "recency")},
	{Name: "max_units", kind: kindInt, Flag: "max-units", File: true, parse: atLeast(0)},
	{Name: "prompt_budget", kind: kindInt, Flag: "prompt-budget", File: true, parse: atLeast(0)},
	{Name: "jobs", kind: kindInt, Flag: "jobs", File: true, parse: atLeast(1)},
	{Name: "summarize_units", kind: kindBool, Flag: "summarize-units", File: true},
	{Name: "max_prompt_tokens", kind: kindInt, Flag: "max-prompt-tokens", File: true, parse: atLeast(0)},
	{Name: "max_cost", kind: kindFloat, Flag: "max-cost", File: true, parse: nonNegative},
	{Name: "find_copies", kind: kindBool, Flag: "find-copies", File: true},
	{Name: "navigation", kind: kindBool, Env: "REVIEW_NAVIGATION", File: true},
	{Name: "overview_symbols", kind: kindBool, Env: "REVIEW_OVERVIEW_SYMBOLS", File: true},
	{Name: "review_data", kind: kindBool, Flag: "review-data", File: true},
	{Name: "exact_counts", kind: kindBool, Flag: "exact-counts", File: true},
	{Name: "redact", kind: kindBool, Flag: "no-redact", negate: true, File: true},
	{Name: "allow_secrets", kind: kindGlobs, File: true},
	{Name: "allow_secret_rules", kind: kindGlobs, File: true},
	{Name: "report_all_secrets", kind: kindBool, File: true},
	{Name: "fail_on", kind: kindString, Flag: "fail-on", Env: "REVIEW_FAIL_ON", File: true, parse: failOnSeverity},
	{Name: "ungrounded", kind: kindString, Flag: "ungrounded", File: true, parse: oneOf(string(result.UngroundedSummary), string(result.UngroundedKeep), string(result.UngroundedDrop))},
	{Name: "min_severity", kind: kindString, Flag: "min-severity", File: true, parse: minSeverity},
	{Name: "max_findings", kind: kindInt, Flag: "max-findings", File: true, parse: atLeast(0)},
	{Name: "verify", kind: kindBool, Flag: "verify", File: true},
	{Name: "instructions", kind: kindString, File: true},
	{Name: "learnings", kind: kindString, Flag: "learnings", Env: "REVIEW_LEARNINGS", File: true},
	{Name: "ignore", kind: kindGlobs, File: true},
	{Name: "severity", kind: kindSeverities, File: true},
	{Name: "price", kind: kindPrice, File: true},
	{Name: "headers", kind: kindHeaders, File: true},
	{Name: "extra_body", kind: kindBody, File: true},
}

// Keys returns every setting, in the order `review config` lists them.
func Keys() []Key { return slices.Clone(keys) }

// lookupKey finds a setting by its configuration name.
func lookupKey(name string) (Key, bool) {
	for _, k := range keys {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

// FileKeys are the names configuration files accept.
func FileKeys() []string {
	var names []string
	for _, k := range keys {
		if k.File {
			names = append(names, k.Name)
		}
	}
	return names
}

// parseString reads a key's value from a flag or an environment variable,
// named label in errors.
func parseString(k Key, label, s string) (any, error) {
	var v any = s
	switch k.kind {
	case kindInt:
		i, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("%s must be a whole number, got %q", label, s)
		}
		v = i
	case kindFloat:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, fmt.Errorf("%s must be a number, got %q", label, s)
		}
		v = f
	case kindBool:
		b, err := strconv.ParseBool(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("%s must be true or false, got %q", label, s)
		}
		v = b
	case kindString:
	default:
		return nil, fmt.Errorf("%s can only be set in a configuration file", label)
	}
	if k.parse == nil {
		return v, nil
	}
	return k.parse(label, v)
}

func nonEmpty(label string, v any) (any, error) {
	s := strings.TrimSpace(v.(string))
	if s == "" {
		return nil, fmt.Errorf("%s must not be empty", label)
	}
	return s, nil
}

// httpURL accepts an http or https URL with a host: go-openai would
// otherwise fail later with a message about a request, not the setting.
func httpURL(label string, v any) (any, error) {
	s := strings.TrimSpace(v.(string))
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// Shown as DisplayURL shows it: the credentials of a gateway
		// (user:password@, ?api-key=) are no part of what is wrong.
		return nil, fmt.Errorf("%s must be an http or https URL, such as https://api.openai.com/v1, got %q", label, llm.DisplayURL(s))
	}
	return s, nil
}

func oneOf(allowed ...string) func(string, any) (any, error) {
	return func(label string, v any) (any, error) {
		s := strings.TrimSpace(v.(string))
		for _, a := range allowed {
			if s == a {
				return s, nil
			}
		}
		return nil, fmt.Errorf("unknown %s %q: use %s", label, s, text.JoinOr(allowed))
	}
}

func atLeast(n int) func(string, any) (any, error) {
	return func(label string, v any) (any, error) {
		if i := v.(int); i < n {
			return nil, fmt.Errorf("%s must be at least %d, got %d", label, n, i)
		}
		return v, nil
	}
}

// duration accepts a Go duration ("90s", "5m", "1h30m") from lo to hi;
// 0 is accepted when lo is 0 and means no limit.
func duration(lo, hi time.Duration) func(string, any) (any, error) {
	return func(label string, v any) (any, error) {
		s := strings.TrimSpace(v.(string))
		d, err := time.ParseDuration(s)
		if err != nil {
			if _, nerr := strconv.Atoi(s); nerr == nil {
				return nil, fmt.Errorf("%s needs a unit, got %q: write it as %ss or %sm", label, s, s, s)
			}
			return nil, fmt.Errorf("%s must be a duration such as 90s, 5m or 1h30m, got %q", label, s)
		}
		if d < lo || d > hi || (d == 0 && lo > 0) {
			return nil, fmt.Errorf("%s must be between %s and %s, got %s", label, lo, hi, d)
		}
		return d, nil
	}
}

// nonNegative accepts a number of zero or more; zero means no limit.
// Written so NaN fails too.
func nonNegative(label string, v any) (any, error) {
	if f := v.(float64); !(f >= 0) || math.IsInf(f, 1) {
		return nil, fmt.Errorf("%s must be 0 (no limit) or more, got %g", label, f)
	}
	return v, nil
}

// share accepts a fraction in (0, 1]; written so NaN fails too.
func share(label string, v any) (any, error) {
	if f := v.(float64); !(f > 0 && f <= 1) {
		return nil, fmt.Errorf("%s must be more than 0 and at most 1, got %g (it is the static share of the input budget)", label, f)
	}
	return v, nil
}

// pruneTarget accepts a share of the input budget up to the stop line.
func pruneTarget(label string, v any) (any, error) {
	if f := v.(float64); !(f > 0 && f <= conversation.StopShare) {
		return nil, fmt.Errorf("%s must be more than 0 and at most %g, got %g (it is the share of the input budget the history is pruned to)", label, conversation.StopShare, f)
	}
	return v, nil
}

// failOnSeverity reads a --fail-on threshold; "none" is the empty severity.
// A value with "unreviewed" ("high,unreviewed", or "unreviewed" alone) is
// a FailOn: the review also fails when it left part of the change out.
// minSeverity is a severity, or none for every one.
func minSeverity(label string, v any) (any, error) {
	raw := strings.TrimSpace(v.(string))
	if strings.EqualFold(raw, "none") || raw == "" {
		return result.Severity(""), nil
	}
	sev, err := result.ParseSeverity(raw)
	if err != nil {
		return nil, fmt.Errorf("unknown %s %q: use none, info, low, medium, high or critical", label, raw)
	}
	return sev, nil
}

func failOnSeverity(label string, v any) (any, error) {
	raw := strings.TrimSpace(v.(string))
	var fo FailOn
	for _, s := range strings.Split(raw, ",") {
		s = strings.TrimSpace(s)
		switch {
		case strings.EqualFold(s, "none") && !strings.Contains(raw, ","):
			return result.Severity(""), nil
		case strings.EqualFold(s, "unreviewed") && !fo.Unreviewed:
			fo.Unreviewed = true
		default:
			sev, err := result.ParseSeverity(s)
			if err != nil || fo.Severity != "" {
				return nil, fmt.Errorf("unknown %s %q: use none, info, low, medium, high or critical, and unreviewed (high,unreviewed)", label, raw)
			}
			fo.Severity = sev
		}
	}
	if !fo.Unreviewed {
		return fo.Severity, nil
	}
	return fo, nil
}

// FailOn is a --fail-on that names unreviewed: a severity (or none), and
// whether a review that left part of the change out fails too.
type FailOn struct {
	Severity   result.Severity
	Unreviewed bool
}

// String is the value as it is written.
func (f FailOn) String() string {
	if f.Severity == "" {
		return "unreviewed"
	}
	return string(f.Severity) + ",unreviewed"
}

// suggest returns the known name a mistyped one most likely meant, or "".
// Case and - for _ do not count as differences; otherwise the closest name
// within two edits wins (a transposition is one edit).
func suggest(name string, known []string) string {
	norm := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "-", "_") }
	n := norm(name)
	best, bestD := "", 3
	if len([]rune(n)) < 4 {
		bestD = 2
	}
	for _, k := range known {
		if d := editDistance(n, norm(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and transpositions of adjacent runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows suffice: a transposition looks two rows back.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
