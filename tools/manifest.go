package tools

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/reviewdev/review/internal/lazy"
	"github.com/reviewdev/review/internal/toolname"
	"golang.org/x/mod/modfile"
)

// manifest is the declared dependencies of one manifest file.
type manifest struct {
	path   string
	title  string // what the manifest declares, e.g. "Go module example.com/m (go 1.22)"
	groups []depGroup
}

// depGroup is one kind of dependency, e.g. "require" or "devDependencies".
type depGroup struct {
	name string
	deps []string // "name version" or "name", in the manifest's order or sorted
}

func (m *manifest) add(group string, deps ...string) {
	if len(deps) == 0 {
		return
	}
	for i := range m.groups {
		if m.groups[i].name == group {
			m.groups[i].deps = append(m.groups[i].deps, deps...)
			return
		}
	}
	m.groups = append(m.groups, depGroup{name: group, deps: deps})
}

// manifestKind returns the parser for a manifest file name, or nil.
func manifestKind(name string) func(*manifest, []byte) error {
	switch name {
	case "go.mod":
		return parseGoMod
	case "package.json":
		return parsePackageJSON
	case "composer.json":
		return parseComposer
	case "pyproject.toml":
		return parsePyproject
	case "Pipfile":
		return parsePipfile
	case "Cargo.toml":
		return parseCargo
	case "Gemfile":
		return parseGemfile
	case "pom.xml":
		return parsePom
	case "build.gradle", "build.gradle.kts":
		return parseGradle
	}
	if strings.HasSuffix(name, ".txt") && strings.Contains(name, "requirements") {
		return parseRequirements
	}
	return nil
}

// manifestNames lists the manifests get_dependencies understands, for
// messages.
const manifestNames = "go.mod, package.json, requirements*.txt, pyproject.toml, Pipfile, Cargo.toml, Gemfile, pom.xml, build.gradle, composer.json"

func parseGoMod(m *manifest, data []byte) error {
	// Parse keeps replace and exclude, which ParseLax drops; ParseLax
	// still reads a file with a non-canonical version somewhere.
	f, err := modfile.Parse(m.path, data, nil)
	if err != nil {
		if f, err = modfile.ParseLax(m.path, data, nil); err != nil {
			return err
		}
	}
	if f.Module != nil {
		m.title = "Go module " + f.Module.Mod.Path
	}
	if f.Go != nil {
		m.title += " (go " + f.Go.Version + ")"
	}
	if f.Toolchain != nil {
		m.add("toolchain", f.Toolchain.Name)
	}
	for _, r := range f.Require {
		if r.Indirect {
			m.add("require (indirect)", r.Mod.Path+" "+r.Mod.Version)
		} else {
			m.add("require", r.Mod.Path+" "+r.Mod.Version)
		}
	}
	for _, t := range f.Tool {
		m.add("tool", t.Path)
	}
	for _, r := range f.Replace {
		old := r.Old.Path
		if r.Old.Version != "" {
			old += " " + r.Old.Version
		}
		m.add("replace", strings.TrimSpace(old+" => "+r.New.Path+" "+r.New.Version))
	}
	for _, e := range f.Exclude {
		m.add("exclude", e.Mod.Path+" "+e.Mod.Version)
	}
	return nil
}

func parsePackageJSON(m *manifest, data []byte) error {
	var p struct {
		Name                 string            `json:"name"`
		Version              string            `json:"version"`
		Workspaces           json.RawMessage   `json:"workspaces"`
		Dependencies         map[string]string `json:"dependencies"`
		DevDependencies      map[string]string `json:"devDependencies"`
		PeerDependencies     map[string]string `json:"peerDependencies"`
		OptionalDependencies map[string]string `json:"optionalDependencies"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	m.title = strings.TrimSpace("npm package " + p.Name + " " + p.Version)
	m.add("dependencies", sortedDeps(p.Dependencies)...)
	m.add("devDependencies", sortedDeps(p.DevDependencies)...)
	m.add("peerDependencies", sortedDeps(p.PeerDependencies)...)
	m.add("optionalDependencies", sortedDeps(p.OptionalDependencies)...)
	if len(p.Workspaces) > 0 && string(p.Workspaces) != "null" {
		m.add("workspaces", string(p.Workspaces))
	}
	return nil
}

func parseComposer(m *manifest, data []byte) error {
	var p struct {
		Name       string            `json:"name"`
		Require    map[string]string `json:"require"`
		RequireDev map[string]string `json:"require-dev"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	m.title = strings.TrimSpace("Composer package " + p.Name)
	m.add("require", sortedDeps(p.Require)...)
	m.add("require-dev", sortedDeps(p.RequireDev)...)
	return nil
}

// sortedDeps renders a name -> version map sorted by name.
func sortedDeps(deps map[string]string) []string {
	out := make([]string, 0, len(deps))
	for name, v := range deps {
		out = append(out, strings.TrimSpace(name+" "+v))
	}
	sort.Strings(out)
	return out
}

// tomlDeps renders a TOML dependency table, whose values are a version
// string or a table with a version, path or git source (Cargo, Poetry,
// Pipfile).
func tomlDeps(v any) []string {
	table, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	var out []string
	for name, spec := range table {
		out = append(out, strings.TrimSpace(name+" "+tomlSpec(spec)))
	}
	sort.Strings(out)
	return out
}

func tomlSpec(spec any) string {
	switch s := spec.(type) {
	case string:
		return s
	case map[string]any:
		var parts []string
		for _, k := range []string{"version", "path", "git", "branch", "tag", "rev", "workspace", "optional"} {
			if v, ok := s[k]; ok {
				if k == "version" {
					parts = append(parts, fmt.Sprint(v))
				} else {
					parts = append(parts, fmt.Sprintf("%s=%v", k, v))
				}
			}
		}
		return strings.Join(parts, " ")
	}
	return fmt.Sprint(spec)
}

// tomlStrings renders a TOML array of strings (PEP 508 requirements).
func tomlStrings(v any) []string {
	items, ok := v.([]any)
	if !ok {
		return nil
	}
	var out []string
	for _, it := range items {
		switch s := it.(type) {
		case string:
			out = append(out, s)
		case map[string]any: // {include-group = "x"} in dependency-groups
			if g, ok := s["include-group"]; ok {
				out = append(out, fmt.Sprintf("(group %v)", g))
			}
		}
	}
	return out
}

// table walks nested TOML tables.
func table(doc map[string]any, keys ...string) map[string]any {
	cur := doc
	for _, k := range keys {
		next, ok := cur[k].(map[string]any)
		if !ok {
			return nil
		}
		cur = next
	}
	return cur
}

func sortedKeys(t map[string]any) []string {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func parsePyproject(m *manifest, data []byte) error {
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		return err
	}
	if p := table(doc, "project"); p != nil {
		m.title = strings.TrimSpace(fmt.Sprintf("Python project %v", p["name"]))
		m.add("dependencies", tomlStrings(p["dependencies"])...)
		opt := table(p, "optional-dependencies")
		for _, k := range sortedKeys(opt) {
			m.add("optional-dependencies."+k, tomlStrings(opt[k])...)
		}
	}
	groups := table(doc, "dependency-groups")
	for _, k := range sortedKeys(groups) {
		m.add("dependency-groups."+k, tomlStrings(groups[k])...)
	}
	if poetry := table(doc, "tool", "poetry"); poetry != nil {
		if m.title == "" {
			m.title = strings.TrimSpace(fmt.Sprintf("Poetry project %v", poetry["name"]))
		}
		m.add("tool.poetry.dependencies", tomlDeps(poetry["dependencies"])...)
		m.add("tool.poetry.dev-dependencies", tomlDeps(poetry["dev-dependencies"])...)
		pg := table(poetry, "group")
		for _, k := range sortedKeys(pg) {
			m.add("tool.poetry.group."+k, tomlDeps(table(pg, k)["dependencies"])...)
		}
	}
	if bs := table(doc, "build-system"); bs != nil {
		m.add("build-system.requires", tomlStrings(bs["requires"])...)
	}
	return nil
}

func parsePipfile(m *manifest, data []byte) error {
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		return err
	}
	m.title = "Pipenv Pipfile"
	m.add("packages", tomlDeps(doc["packages"])...)
	m.add("dev-packages", tomlDeps(doc["dev-packages"])...)
	return nil
}

func parseCargo(m *manifest, data []byte) error {
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		return err
	}
	if p := table(doc, "package"); p != nil {
		m.title = strings.TrimSpace(fmt.Sprintf("Rust crate %v %v", p["name"], p["version"]))
	}
	for _, k := range []string{"dependencies", "dev-dependencies", "build-dependencies"} {
		m.add(k, tomlDeps(doc[k])...)
	}
	targets := table(doc, "target")
	for _, t := range sortedKeys(targets) {
		for _, k := range []string{"dependencies", "dev-dependencies", "build-dependencies"} {
			m.add("target."+t+"."+k, tomlDeps(table(targets, t)[k])...)
		}
	}
	if ws := table(doc, "workspace"); ws != nil {
		if m.title == "" {
			m.title = "Rust workspace"
		}
		m.add("workspace.members", tomlStrings(ws["members"])...)
		m.add("workspace.dependencies", tomlDeps(ws["dependencies"])...)
	}
	return nil
}

// requirementOption matches pip options that take the rest of the line.
var requirementOption = lazy.Regexp(`^(-r|--requirement|-c|--constraint)\s*=?\s*(\S+)`)

func parseRequirements(m *manifest, data []byte) error {
	m.title = "pip requirements"
	var joined strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		// A trailing backslash continues the line.
		if strings.HasSuffix(line, `\`) {
			joined.WriteString(strings.TrimSuffix(line, `\`))
			continue
		}
		joined.WriteString(line)
		line = joined.String()
		joined.Reset()
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case requirementOption().MatchString(line):
			sub := requirementOption().FindStringSubmatch(line)
			m.add("includes", sub[1]+" "+sub[2])
		case strings.HasPrefix(line, "-e ") || strings.HasPrefix(line, "--editable"):
			m.add("editable", strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(line, "--editable"), "-e ")))
		case strings.HasPrefix(line, "-"):
			// Index URLs and other pip options declare no dependency.
		default:
			m.add("requirements", line)
		}
	}
	return sc.Err()
}

var (
	gemLine   = lazy.Regexp(`^\s*gem\s+["']([^"']+)["']((?:\s*,\s*["'][^"']*["'])*)`)
	gemGroup  = lazy.Regexp(`^\s*group\s+(.+?)\s+do\b`)
	gemSource = lazy.Regexp(`^\s*(gemspec|ruby\s+["'][^"']+["'])`)
	quoted    = lazy.Regexp(`["']([^"']*)["']`)
)

func parseGemfile(m *manifest, data []byte) error {
	m.title = "Ruby Gemfile"
	var groups []string // a stack; "" for non-group blocks
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case gemGroup().MatchString(line):
			groups = append(groups, gemGroup().FindStringSubmatch(line)[1])
		case strings.HasSuffix(trimmed, " do") || strings.Contains(trimmed, " do |"):
			groups = append(groups, "")
		case trimmed == "end":
			if len(groups) > 0 {
				groups = groups[:len(groups)-1]
			}
		case gemLine().MatchString(line):
			sub := gemLine().FindStringSubmatch(line)
			dep := sub[1]
			for _, v := range quoted().FindAllStringSubmatch(sub[2], -1) {
				dep += " " + v[1]
			}
			group := "gems"
			for i := len(groups) - 1; i >= 0; i-- {
				if groups[i] != "" {
					group = "group " + groups[i]
					break
				}
			}
			m.add(group, dep)
		case gemSource().MatchString(line):
			m.add("other", trimmed)
		}
	}
	return sc.Err()
}

type pomDep struct {
	GroupID    string `xml:"groupId"`
	ArtifactID string `xml:"artifactId"`
	Version    string `xml:"version"`
	Scope      string `xml:"scope"`
}

func (d pomDep) String() string {
	s := d.GroupID + ":" + d.ArtifactID
	if d.Version != "" {
		s += " " + d.Version
	}
	return s
}

func parsePom(m *manifest, data []byte) error {
	var p struct {
		GroupID      string   `xml:"groupId"`
		ArtifactID   string   `xml:"artifactId"`
		Version      string   `xml:"version"`
		Parent       pomDep   `xml:"parent"`
		Modules      []string `xml:"modules>module"`
		Dependencies []pomDep `xml:"dependencies>dependency"`
		Managed      []pomDep `xml:"dependencyManagement>dependencies>dependency"`
		Plugins      []pomDep `xml:"build>plugins>plugin"`
	}
	if err := xml.Unmarshal(data, &p); err != nil {
		return err
	}
	group := p.GroupID
	if group == "" {
		group = p.Parent.GroupID
	}
	m.title = strings.TrimSpace(fmt.Sprintf("Maven project %s:%s %s", group, p.ArtifactID, p.Version))
	if p.Parent.ArtifactID != "" {
		m.add("parent", p.Parent.String())
	}
	for _, d := range p.Dependencies {
		scope := d.Scope
		if scope == "" {
			scope = "compile"
		}
		m.add("dependencies ("+scope+")", d.String())
	}
	for _, d := range p.Managed {
		m.add("dependencyManagement", d.String())
	}
	for _, d := range p.Plugins {
		m.add("plugins", d.String())
	}
	m.add("modules", p.Modules...)
	return nil
}

var gradleDep = lazy.Regexp(`(?m)^\s*(implementation|api|compileOnly|runtimeOnly|annotationProcessor|kapt|ksp|testImplementation|testCompileOnly|testRuntimeOnly|androidTestImplementation|classpath|compile|testCompile)\s*\(?\s*(?:platform\s*\(\s*)?["']([^"']+)["']`)

func parseGradle(m *manifest, data []byte) error {
	m.title = "Gradle build"
	for _, sub := range gradleDep().FindAllSubmatch(data, -1) {
		m.add(string(sub[1]), string(sub[2]))
	}
	return nil
}

// render writes a manifest for the model.
func (m *manifest) render(b *strings.Builder, maxPerGroup int) {
	title := m.title
	if title == "" {
		title = "manifest"
	}
	fmt.Fprintf(b, "%s: %s\n", m.path, title)
	if len(m.groups) == 0 {
		b.WriteString("  (no dependencies declared)\n")
	}
	for _, g := range m.groups {
		fmt.Fprintf(b, "  %s (%d):\n", g.name, len(g.deps))
		for i, d := range g.deps {
			if i == maxPerGroup {
				fmt.Fprintf(b, "    … %d more; ask for this manifest alone with "+toolname.GetDependencies+" %s\n", len(g.deps)-maxPerGroup, jsonArgs("path", m.path))
				break
			}
			fmt.Fprintf(b, "    %s\n", d)
		}
	}
}

// skipManifestDir reports whether manifests under a directory belong to
// vendored or generated code, not to the project.
func skipManifestDir(p string) bool {
	for elem := range strings.SplitSeq(path.Dir(p), "/") {
		if slices.Contains([]string{"node_modules", "vendor", "third_party", "testdata", "bower_components", ".venv", "site-packages"}, elem) {
			return true
		}
	}
	return false
}
