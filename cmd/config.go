package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"go.yaml.in/yaml/v3"

	"github.com/reviewdev/review/diffctx/git"
	"github.com/reviewdev/review/review"
)

// Configuration files. The repository file is read from the working tree at
// the repository's top level; the user file lives under the XDG config
// directory.
const (
	repoConfigName = ".review.yaml"
	userConfigPath = "review/config.yaml" // under $XDG_CONFIG_HOME or ~/.config
	// maxConfigSize bounds what is read of a configuration file: the
	// repository file comes with the change under review and may be hostile.
	maxConfigSize = 1 << 20
)

// sourceDefault marks a value no flag, variable or file set.
const sourceDefault = "default"

// valueKind is the type of a setting's value.
type valueKind int

const (
	kindString     valueKind = iota
	kindInt                  // int
	kindFloat                // float64
	kindGlobs                // []string of doublestar globs
	kindSeverities           // map[string]review.Severity, by finding category
	kindPrice                // review.Price
)

// configKey is one setting: its name in configuration files and in
// `review config`, and where else it may come from.
type configKey struct {
	name string
	kind valueKind
	flag string // the flag that sets it, or ""
	env  string // the environment variable that sets it, or ""
	// file is whether configuration files may set it.
	file bool
	// parse checks a decoded value and normalizes it. label names the
	// value in the error: "--max-steps", "$REVIEW_FAIL_ON" or "max_steps".
	parse func(label string, v any) (any, error)
}

// configKeys are every setting, in the order `review config` lists them.
// The table is never written to.
var configKeys = []configKey{
	{name: "model", kind: kindString, flag: "model", env: "REVIEW_MODEL", file: true, parse: nonEmpty},
	{name: "base_url", kind: kindString, flag: "base-url", env: "OPENAI_BASE_URL", file: true, parse: httpURL},
	{name: "store", kind: kindString, flag: "store", env: "REVIEW_STORE", parse: nonEmpty},
	{name: "tokenizer", kind: kindString, flag: "tokenizer", file: true, parse: oneOf("tiktoken", "estimate")},
	{name: "off_diff", kind: kindString, flag: "off-diff", file: true, parse: oneOf(string(review.KeepFileLevel), string(review.DropOffDiff))},
	{name: "context_window", kind: kindInt, flag: "context-window", file: true, parse: atLeast(1)},
	{name: "answer_reserve", kind: kindInt, flag: "answer-reserve", file: true, parse: atLeast(0)},
	{name: "static_share", kind: kindFloat, flag: "static-share", file: true, parse: share},
	{name: "preview_chars", kind: kindInt, flag: "preview-chars", file: true, parse: atLeast(200)},
	{name: "max_steps", kind: kindInt, flag: "max-steps", file: true, parse: atLeast(1)},
	{name: "history_turns", kind: kindInt, flag: "history-turns", file: true, parse: atLeast(0)},
	{name: "history_chars", kind: kindInt, flag: "history-chars", file: true, parse: atLeast(0)},
	{name: "fail_on", kind: kindString, flag: "fail-on", env: "REVIEW_FAIL_ON", file: true, parse: failOnSeverity},
	{name: "instructions", kind: kindString, file: true},
	{name: "ignore", kind: kindGlobs, file: true},
	{name: "severity", kind: kindSeverities, file: true},
	{name: "price", kind: kindPrice, file: true},
}

// lookupConfigKey finds a setting by its configuration name.
func lookupConfigKey(name string) (configKey, bool) {
	for _, k := range configKeys {
		if k.name == name {
			return k, true
		}
	}
	return configKey{}, false
}

// configValue is a setting's value and where it came from: "flag --model",
// "env REVIEW_MODEL", "<file>:<line>" or "default".
type configValue struct {
	v   any
	src string
}

// configLayer holds the values one source sets, by key.
type configLayer map[string]configValue

// configFile is a configuration file that was looked for.
type configFile struct {
	// path is where it is; display is how messages and sources name it.
	path, display string
	// within, if set, is the directory the file must stay in once
	// symbolic links are followed.
	within string
	found  bool
}

// fileError is a mistake in a configuration file, located to its line.
type fileError struct {
	file string
	line int
	msg  string
}

func (e *fileError) Error() string {
	if e.line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.file, e.line, e.msg)
	}
	return fmt.Sprintf("%s: %s", e.file, e.msg)
}

// repoTop returns the top-level directory of the work tree holding dir, or
// "" when dir is not inside one. Asking git rather than looking for .git
// keeps worktrees, submodules and GIT_DIR right.
func repoTop(dir string) string {
	top, err := git.Runner{Dir: dir}.Text(context.Background(), "rev-parse", "--show-toplevel")
	if err != nil {
		// Not a repository, a bare one, or no git: there is no repository
		// file to read, and the command that needs the repository says why.
		return ""
	}
	return top
}

// userConfig returns the path of the user's configuration file:
// $XDG_CONFIG_HOME/review/config.yaml, else ~/.config/review/config.yaml, or
// "" when neither variable says where that is. A relative XDG_CONFIG_HOME is
// ignored, as the XDG specification asks.
func userConfig(getenv func(string) string) string {
	if d := getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, filepath.FromSlash(userConfigPath))
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", filepath.FromSlash(userConfigPath))
	}
	return ""
}

// loadConfig reads and parses a configuration file. A missing file is an
// empty layer.
func loadConfig(f *configFile) (configLayer, error) {
	if f.path == "" {
		return configLayer{}, nil
	}
	st, err := os.Stat(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return configLayer{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", f.display, err)
	}
	// The repository's file comes with the change under review: a link to
	// a device or a pipe would hang the run, and one leading out of the
	// repository would read a file of the machine's.
	if !st.Mode().IsRegular() {
		return nil, &fileError{file: f.display, msg: "is not a regular file"}
	}
	if f.within != "" && !inside(f.within, f.path) {
		return nil, &fileError{file: f.display, msg: "is a link to a file outside the repository; commit the file itself"}
	}
	fh, err := os.Open(f.path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", f.display, err)
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxConfigSize+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", f.display, err)
	}
	if len(data) > maxConfigSize {
		return nil, &fileError{file: f.display, msg: fmt.Sprintf("larger than %d bytes; a configuration file is a few lines", maxConfigSize)}
	}
	f.found = true
	return parseConfig(f.display, data)
}

// inside reports whether path, with symbolic links followed, is in dir.
func inside(dir, path string) bool {
	d, err1 := filepath.EvalSymlinks(dir)
	p, err2 := filepath.EvalSymlinks(path)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(d, p)
	return err == nil && filepath.IsLocal(rel)
}

// parseConfig parses a configuration file named file. Unknown keys, values
// of the wrong type and values out of range are errors naming the file, the
// line and the key: a setting silently ignored is worse than one refused.
// A key with an empty (null) value counts as not set.
func parseConfig(file string, data []byte) (configLayer, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return configLayer{}, nil
		}
		return nil, yamlError(file, err)
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		return nil, &fileError{file: file, line: next.Line, msg: "holds a second YAML document; keep the settings in one"}
	case !errors.Is(err, io.EOF):
		return nil, yamlError(file, err)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return configLayer{}, nil
		}
		root = root.Content[0]
	}
	root = deref(root)
	if isNull(root) {
		return configLayer{}, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, &fileError{file: file, line: root.Line, msg: `must be a mapping of keys to values, such as "model: gpt-4o"`}
	}
	l := configLayer{}
	lines := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		kn, vn := deref(root.Content[i]), deref(root.Content[i+1])
		if kn.Kind != yaml.ScalarNode {
			return nil, &fileError{file: file, line: kn.Line, msg: `keys must be names, such as "model"`}
		}
		name := kn.Value
		k, ok := lookupConfigKey(name)
		switch {
		case !ok:
			msg := fmt.Sprintf("unknown key %q", name)
			if s := suggest(name, fileKeys()); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return nil, &fileError{file: file, line: kn.Line, msg: msg}
		case !k.file:
			return nil, &fileError{file: file, line: kn.Line, msg: fmt.Sprintf("%s cannot be set in a configuration file: use --%s or %s", name, k.flag, k.env)}
		}
		if first, dup := lines[name]; dup {
			return nil, &fileError{file: file, line: kn.Line, msg: fmt.Sprintf("%s is set twice (first on line %d); keep one", name, first)}
		}
		lines[name] = kn.Line
		if isNull(vn) {
			continue
		}
		v, err := decodeNode(file, k, vn)
		if err != nil {
			return nil, err
		}
		l[name] = configValue{v: v, src: fmt.Sprintf("%s:%d", file, kn.Line)}
	}
	return l, nil
}

// yamlLine matches the line yaml.v3 puts in its syntax errors.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlError rewrites a YAML syntax error as file:line: message.
func yamlError(file string, err error) error {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &fileError{file: file, line: line, msg: "invalid YAML: " + m[2]}
	}
	return &fileError{file: file, msg: "invalid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}

// fileKeys are the names configuration files accept.
func fileKeys() []string {
	var names []string
	for _, k := range configKeys {
		if k.file {
			names = append(names, k.name)
		}
	}
	return names
}

// deref follows YAML aliases to the node they name.
func deref(n *yaml.Node) *yaml.Node {
	// The parser rejects an anchor on an alias, so one step is all there
	// is; the bound only guards against a hand-built cycle.
	for i := 0; i < 8 && n.Kind == yaml.AliasNode && n.Alias != nil; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// decodeNode reads a key's value from its node, checking its type and range.
func decodeNode(file string, k configKey, n *yaml.Node) (any, error) {
	bad := func(n *yaml.Node, format string, args ...any) error {
		return &fileError{file: file, line: n.Line, msg: k.name + " " + fmt.Sprintf(format, args...)}
	}
	var v any
	switch k.kind {
	case kindString:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
			return nil, bad(n, "must be text, got %s", describe(n))
		}
		v = n.Value
	case kindInt:
		var i int
		if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || n.Decode(&i) != nil {
			return nil, bad(n, "must be a whole number, got %s", describe(n))
		}
		v = i
	case kindFloat:
		var f float64
		if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") || n.Decode(&f) != nil {
			return nil, bad(n, "must be a number, got %s", describe(n))
		}
		v = f
	case kindGlobs:
		if n.Kind != yaml.SequenceNode {
			return nil, bad(n, `must be a list of globs, such as ["gen/**", "*.pb.go"], got %s`, describe(n))
		}
		globs := make([]string, 0, len(n.Content))
		for _, item := range n.Content {
			item = deref(item)
			if item.Kind != yaml.ScalarNode || item.Tag != "!!str" || strings.TrimSpace(item.Value) == "" {
				return nil, bad(item, "entries must be globs, got %s", describe(item))
			}
			if !doublestar.ValidatePattern(item.Value) {
				return nil, bad(item, "entry %q is not a valid glob (check its brackets and braces)", item.Value)
			}
			globs = append(globs, item.Value)
		}
		return globs, nil
	case kindSeverities:
		return decodeSeverities(n, bad)
	case kindPrice:
		return decodePrice(n, bad)
	}
	if k.parse == nil {
		return v, nil
	}
	v, err := k.parse(k.name, v)
	if err != nil {
		return nil, &fileError{file: file, line: n.Line, msg: err.Error()}
	}
	return v, nil
}

// decodeSeverities reads severity overrides: finding category → severity.
func decodeSeverities(n *yaml.Node, bad func(*yaml.Node, string, ...any) error) (map[string]review.Severity, error) {
	if n.Kind != yaml.MappingNode {
		return nil, bad(n, "must map finding categories to severities, such as {style: info, security: high}, got %s", describe(n))
	}
	m := make(map[string]review.Severity, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := deref(n.Content[i]), deref(n.Content[i+1])
		// Findings carry their category in lower case.
		cat := strings.ToLower(strings.TrimSpace(kn.Value))
		if kn.Kind != yaml.ScalarNode || cat == "" {
			return nil, bad(kn, "keys must be finding categories, such as style or security")
		}
		if _, dup := m[cat]; dup {
			return nil, bad(kn, "sets category %q twice", cat)
		}
		sev, err := review.ParseSeverity(vn.Value)
		if vn.Kind != yaml.ScalarNode || vn.Tag != "!!str" || err != nil {
			return nil, bad(vn, "%q must be info, low, medium, high or critical, got %s", cat, describe(vn))
		}
		m[cat] = sev
	}
	return m, nil
}

// decodePrice reads a price in USD per million tokens.
func decodePrice(n *yaml.Node, bad func(*yaml.Node, string, ...any) error) (review.Price, error) {
	var p review.Price
	if n.Kind != yaml.MappingNode {
		return p, bad(n, "must give USD per million tokens, such as {prompt: 2.5, cached: 1.25, completion: 10}, got %s", describe(n))
	}
	fields := map[string]*float64{"prompt": &p.Prompt, "cached": &p.Cached, "completion": &p.Completion}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := deref(n.Content[i]), deref(n.Content[i+1])
		dst, ok := fields[kn.Value]
		if kn.Kind != yaml.ScalarNode || !ok {
			msg := fmt.Sprintf("has unknown key %q: use prompt, cached and completion", kn.Value)
			if s := suggest(kn.Value, []string{"prompt", "cached", "completion"}); s != "" {
				msg = fmt.Sprintf("has unknown key %q (did you mean %q?)", kn.Value, s)
			}
			return p, bad(kn, "%s", msg)
		}
		if seen[kn.Value] {
			return p, bad(kn, "sets %s twice", kn.Value)
		}
		seen[kn.Value] = true
		var f float64
		if vn.Kind != yaml.ScalarNode || (vn.Tag != "!!int" && vn.Tag != "!!float") || vn.Decode(&f) != nil ||
			math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			return p, bad(vn, "%s must be a number of USD per million tokens, 0 or more, got %s", kn.Value, describe(vn))
		}
		*dst = f
	}
	if !seen["prompt"] || !seen["completion"] {
		return p, bad(n, "needs prompt and completion, such as {prompt: 2.5, completion: 10}")
	}
	if !seen["cached"] {
		// A provider without a prompt cache bills every input token at
		// the prompt price.
		p.Cached = p.Prompt
	}
	return p, nil
}

// describe names what a node holds, for type errors.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	if isNull(n) {
		return "nothing"
	}
	s := n.Value
	if r := []rune(s); len(r) > 40 {
		s = string(r[:40]) + "…"
	}
	return strconv.Quote(s)
}

// parseString reads a key's value from a flag or an environment variable,
// named label in errors.
func parseString(k configKey, label, s string) (any, error) {
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
		return nil, fmt.Errorf("%s must be an http or https URL, such as https://api.openai.com/v1, got %q", label, s)
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
		return nil, fmt.Errorf("unknown %s %q: use %s", label, s, joinOr(allowed))
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

// share accepts a fraction in (0, 1]; written so NaN fails too.
func share(label string, v any) (any, error) {
	if f := v.(float64); !(f > 0 && f <= 1) {
		return nil, fmt.Errorf("%s must be more than 0 and at most 1, got %g (it is the static share of the input budget)", label, f)
	}
	return v, nil
}

// failOnSeverity reads a --fail-on threshold; "none" is the empty severity.
func failOnSeverity(label string, v any) (any, error) {
	s := strings.TrimSpace(v.(string))
	if strings.EqualFold(s, "none") {
		return review.Severity(""), nil
	}
	sev, err := review.ParseSeverity(s)
	if err != nil {
		return nil, fmt.Errorf("unknown %s %q: use none, info, low, medium, high or critical", label, s)
	}
	return sev, nil
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
