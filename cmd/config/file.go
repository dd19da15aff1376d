package config

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"go.yaml.in/yaml/v3"

	"github.com/reviewdev/review/internal/git"
	"github.com/reviewdev/review/internal/lazy"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
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

// value is a setting's value and where it came from: "flag --model",
// "env REVIEW_MODEL", "<file>:<line>" or "default".
type value struct {
	v   any
	src string
}

// layer holds the values one source sets, by key.
type layer map[string]value

// configFile is a configuration file that was looked for.
type configFile struct {
	// path is where it is; display is how messages and sources name it.
	path, display string
	// within, if set, is the directory the file must stay in once
	// symbolic links are followed.
	within string
	// rev, if set, is the revision the file is read from, with git.
	rev   string
	found bool
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
	top, err := git.Runner{Dir: dir}.TopLevel(context.Background())
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
func loadConfig(f *configFile) (layer, error) {
	if f.path == "" {
		return layer{}, nil
	}
	st, err := os.Stat(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return layer{}, nil
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
	return f.parse(data)
}

// parse parses the file's bytes, once read, and marks it found.
func (f *configFile) parse(data []byte) (layer, error) {
	if len(data) > maxConfigSize {
		return nil, &fileError{file: f.display, msg: fmt.Sprintf("larger than %d bytes; a configuration file is a few lines", maxConfigSize)}
	}
	f.found = true
	return parseConfig(f.display, data)
}

// loadConfigAt reads the repository file as committed at f.rev, for the
// repository holding dir. A revision without the file is an empty layer.
func loadConfigAt(f *configFile, dir string) (layer, error) {
	r := git.Runner{Dir: dir}
	ctx := context.Background()
	// An unknown revision reads as no file: loading the diff fails on it
	// next, with the advice that fits (a fetch, a deeper clone).
	kind, err := r.Text(ctx, "cat-file", "-t", f.rev+":"+repoConfigName)
	if err != nil || kind != "blob" {
		return layer{}, nil // no file at that revision (or not a file)
	}
	data, err := r.Output(ctx, "cat-file", "blob", f.rev+":"+repoConfigName)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", f.display, err)
	}
	return f.parse(data)
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
func parseConfig(file string, data []byte) (layer, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return layer{}, nil
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
			return layer{}, nil
		}
		root = root.Content[0]
	}
	root = deref(root)
	if isNull(root) {
		return layer{}, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, &fileError{file: file, line: root.Line, msg: `must be a mapping of keys to values, such as "model: gpt-4o"`}
	}
	l := layer{}
	lines := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		kn, vn := deref(root.Content[i]), deref(root.Content[i+1])
		if kn.Kind != yaml.ScalarNode {
			return nil, &fileError{file: file, line: kn.Line, msg: `keys must be names, such as "model"`}
		}
		name := kn.Value
		k, ok := lookupKey(name)
		switch {
		case !ok:
			msg := fmt.Sprintf("unknown key %q", name)
			if s := suggest(name, FileKeys()); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return nil, &fileError{file: file, line: kn.Line, msg: msg}
		case !k.File:
			return nil, &fileError{file: file, line: kn.Line, msg: fmt.Sprintf("%s cannot be set in a configuration file: use --%s or %s", name, k.Flag, k.Env)}
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
		l[name] = value{v: v, src: fmt.Sprintf("%s:%d", file, kn.Line)}
	}
	return l, nil
}

// yamlLine matches the line yaml.v3 puts in its syntax errors.
var yamlLine = lazy.Regexp(`^yaml: line (\d+): (.*)$`)

// yamlError rewrites a YAML syntax error as file:line: message.
func yamlError(file string, err error) error {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if m := yamlLine().FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &fileError{file: file, line: line, msg: "invalid YAML: " + m[2]}
	}
	return &fileError{file: file, msg: "invalid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
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
func decodeNode(file string, k Key, n *yaml.Node) (any, error) {
	bad := func(n *yaml.Node, format string, args ...any) error {
		return &fileError{file: file, line: n.Line, msg: k.Name + " " + fmt.Sprintf(format, args...)}
	}
	switch k.kind {
	case kindGlobs:
		return decodeGlobs(n, bad)
	case kindSeverities:
		return decodeSeverities(n, bad)
	case kindPrice:
		return decodePrice(n, bad)
	case kindHeaders:
		return decodeHeaders(n, bad)
	case kindBody:
		return decodeBody(n, bad)
	}
	v, err := decodeScalar(k.kind, n, bad)
	if err != nil || k.parse == nil {
		return v, err
	}
	v, err = k.parse(k.Name, v)
	if err != nil {
		return nil, &fileError{file: file, line: n.Line, msg: err.Error()}
	}
	return v, nil
}

// decodeScalar reads a value of one of the scalar kinds: text, a whole
// number, a number, true or false.
func decodeScalar(kind valueKind, n *yaml.Node, bad func(*yaml.Node, string, ...any) error) (any, error) {
	var (
		dst  any
		tags []string
		want string
	)
	switch kind {
	case kindString:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
			return nil, bad(n, "must be text, got %s", describe(n))
		}
		return n.Value, nil
	case kindInt:
		dst, tags, want = new(int), []string{"!!int"}, "a whole number"
	case kindFloat:
		dst, tags, want = new(float64), []string{"!!int", "!!float"}, "a number"
	case kindBool:
		dst, tags, want = new(bool), []string{"!!bool"}, "true or false"
	default:
		return nil, nil
	}
	if n.Kind != yaml.ScalarNode || !slices.Contains(tags, n.Tag) || n.Decode(dst) != nil {
		return nil, bad(n, "must be %s, got %s", want, describe(n))
	}
	switch d := dst.(type) {
	case *int:
		return *d, nil
	case *float64:
		return *d, nil
	}
	return *dst.(*bool), nil
}

// decodeGlobs reads a list of globs.
func decodeGlobs(n *yaml.Node, bad func(*yaml.Node, string, ...any) error) ([]string, error) {
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
}

// decodeBody reads fields added to each request's body: a mapping that
// can be sent as JSON.
func decodeBody(n *yaml.Node, bad func(*yaml.Node, string, ...any) error) (map[string]any, error) {
	if n.Kind != yaml.MappingNode {
		return nil, bad(n, "must map request body fields to values, such as {options: {num_ctx: 32768}}, got %s", describe(n))
	}
	var m map[string]any
	if err := n.Decode(&m); err != nil {
		return nil, bad(n, "cannot be read: %v", err)
	}
	if _, err := json.Marshal(m); err != nil {
		return nil, bad(n, "cannot be sent as JSON: %v", err)
	}
	return m, nil
}

// headerName is an HTTP header name (an RFC 9110 token).
var headerName = lazy.Regexp("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

// decodeHeaders reads extra HTTP headers: name → value. Values may name
// environment variables as ${VAR}, expanded when the request is made, so a
// gateway's key need not be written in the file.
func decodeHeaders(n *yaml.Node, bad func(*yaml.Node, string, ...any) error) (map[string]string, error) {
	if n.Kind != yaml.MappingNode {
		return nil, bad(n, "must map header names to values, such as {X-Org: team}, got %s", describe(n))
	}
	m := make(map[string]string, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := deref(n.Content[i]), deref(n.Content[i+1])
		name := strings.TrimSpace(kn.Value)
		if kn.Kind != yaml.ScalarNode || !headerName().MatchString(name) {
			return nil, bad(kn, "keys must be HTTP header names, such as X-Org, got %s", describe(kn))
		}
		if vn.Kind != yaml.ScalarNode || strings.ContainsAny(vn.Value, "\r\n\x00") {
			return nil, bad(vn, "header %s must be a one-line text value, got %s", name, describe(vn))
		}
		m[name] = vn.Value
	}
	return m, nil
}

// decodeSeverities reads severity overrides: finding category → severity.
func decodeSeverities(n *yaml.Node, bad func(*yaml.Node, string, ...any) error) (map[string]result.Severity, error) {
	if n.Kind != yaml.MappingNode {
		return nil, bad(n, "must map finding categories to severities, such as {style: info, security: high}, got %s", describe(n))
	}
	m := make(map[string]result.Severity, len(n.Content)/2)
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
		sev, err := result.ParseSeverity(vn.Value)
		if vn.Kind != yaml.ScalarNode || vn.Tag != "!!str" || err != nil {
			return nil, bad(vn, "%q must be info, low, medium, high or critical, got %s", cat, describe(vn))
		}
		m[cat] = sev
	}
	return m, nil
}

// decodePrice reads a price in USD per million tokens.
func decodePrice(n *yaml.Node, bad func(*yaml.Node, string, ...any) error) (llm.Price, error) {
	var p llm.Price
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
