package redact

import (
	"path"
	"strings"
)

// Confidence is how sure a rule is that what it finds is a secret.
type Confidence string

const (
	// High: a token of a provider's own format, with its prefix or
	// checksum (ghp_, AKIA, xoxb-, sk_live_), or a private key block.
	High Confidence = "high"
	// Low: a value that looks random enough next to a name such as
	// password, key or token, a password in a URL, or a header or
	// command line carrying a credential of no particular format. Such
	// a finding is often an example or a public value.
	Low Confidence = "low"
)

// lowRules are gitleaks' rules with a specific name that still find
// credentials of no particular format: a bearer header or a user and
// password on a curl command line, the data of a Kubernetes secret, a
// password in a NuGet configuration.
var lowRules = map[string]bool{
	"curl-auth-header":       true,
	"curl-auth-user":         true,
	"kubernetes-secret-yaml": true,
	"nuget-config-password":  true,
}

// confidenceOf rates a gitleaks rule: its generic rules, and its rules
// built on the template for name = value (a service's name, then any value
// of a length), which gitleaks' generator makes for services whose tokens
// have no format of their own, are low; rules for a token's own format
// are high.
func confidenceOf(g *genRule) Confidence {
	if strings.Contains(g.ID, "generic") || strings.Contains(g.Regex, assignTemplate) || lowRules[g.ID] {
		return Low
	}
	return High
}

// Settings of a secret where a low-confidence finding is mostly an
// example, a fixture or noise: it is redacted, and not reported unless
// asked for.
const (
	SettingDocs     = "documentation"
	SettingFixture  = "test fixture"
	SettingMinified = "minified code"
)

// minifiedLine is the length of a line, in bytes, past which it is taken
// for minified or generated code.
const minifiedLine = 3000

// lineAround returns the line of text holding offset at, or, of a line
// longer than minifiedLine, a longer part of it than that.
func lineAround(text string, at int) string {
	from, to := max(0, at-minifiedLine-1), min(len(text), at+minifiedLine+1)
	s := strings.LastIndexByte(text[from:at], '\n') + 1 + from
	e := strings.IndexByte(text[at:to], '\n')
	if e < 0 {
		return text[s:to]
	}
	return text[s : at+e]
}

// Setting says where a secret on line (its whole line) of the file at
// path sits: in documentation (Markdown and other markup, a docs or
// examples directory, an OpenAPI description), a test fixture (testdata,
// fixtures, a test file), minified code (*.min.js, or a line over 3,000
// bytes), or "" for code and configuration. path may be "" (a tool's
// output): then only the line decides.
func Setting(path, line string) string {
	switch {
	case docsPath(path):
		return SettingDocs
	case fixturePath(path):
		return SettingFixture
	case minifiedPath(path) || len(line) > minifiedLine:
		return SettingMinified
	}
	return ""
}

var (
	docsExts = []string{".md", ".markdown", ".mdx", ".rst", ".adoc", ".asciidoc", ".textile", ".rdoc", ".pod"}
	docsDirs = map[string]bool{"docs": true, "doc": true, "documentation": true, "examples": true, "example": true,
		"_examples": true, "samples": true, "website": true}
	// apiDocs are names of OpenAPI and Swagger descriptions, whose
	// examples are documentation.
	apiDocs     = []string{"swagger", "openapi"}
	fixtureDirs = map[string]bool{"testdata": true, "test-data": true, "test_data": true, "fixtures": true,
		"fixture": true, "__fixtures__": true, "__mocks__": true, "__snapshots__": true}
	minifiedExts = []string{".min.js", ".min.mjs", ".min.cjs", ".min.css", ".min.map", ".bundle.js", ".chunk.js"}
)

func docsPath(p string) bool {
	if p == "" {
		return false
	}
	lower := strings.ToLower(p)
	for _, ext := range docsExts {
		if strings.HasSuffix(lower, ext) {
			return true
		}
	}
	base := path.Base(lower)
	if ext := path.Ext(base); ext == ".json" || ext == ".yaml" || ext == ".yml" {
		for _, name := range apiDocs {
			if strings.HasPrefix(base, name) {
				return true
			}
		}
	}
	return inDir(lower, docsDirs)
}

func fixturePath(p string) bool {
	if p == "" {
		return false
	}
	lower := strings.ToLower(p)
	if inDir(lower, fixtureDirs) {
		return true
	}
	base := path.Base(lower)
	stem := strings.TrimSuffix(base, path.Ext(base))
	return strings.HasSuffix(stem, "_test") || strings.HasSuffix(stem, ".test") || strings.HasSuffix(stem, ".spec") ||
		strings.HasPrefix(base, "test_") && strings.HasSuffix(base, ".py")
}

func minifiedPath(p string) bool {
	lower := strings.ToLower(p)
	for _, ext := range minifiedExts {
		if strings.HasSuffix(lower, ext) {
			return true
		}
	}
	return false
}

// inDir reports whether a directory of p (not its base name) is one of
// dirs.
func inDir(p string, dirs map[string]bool) bool {
	parts := strings.Split(p, "/")
	for _, d := range parts[:len(parts)-1] {
		if dirs[d] {
			return true
		}
	}
	return false
}
