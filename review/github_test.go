package review

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// workflowCommand is a workflow command parsed the way the Actions runner
// parses one line: "::name k=v,k=v::message", values unescaped.
type workflowCommand struct {
	name    string
	props   map[string]string
	message string
}

func parseWorkflowCommand(line string) (workflowCommand, error) {
	rest, ok := strings.CutPrefix(line, "::")
	if !ok {
		return workflowCommand{}, fmt.Errorf("%q does not start with ::", line)
	}
	info, msg, ok := strings.Cut(rest, "::")
	if !ok {
		return workflowCommand{}, fmt.Errorf("%q has no second ::", line)
	}
	c := workflowCommand{props: map[string]string{}, message: unescapeData(msg)}
	name, props, _ := strings.Cut(info, " ")
	c.name = name
	if props != "" {
		for _, kv := range strings.Split(props, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return workflowCommand{}, fmt.Errorf("property %q of %q has no =", kv, line)
			}
			c.props[k] = unescapeProperty(v)
		}
	}
	return c, nil
}

// unescapeData and unescapeProperty undo the escapes as the runner does
// (ActionCommand.Unescape), in the reverse order of escaping.
func unescapeData(s string) string {
	return strings.NewReplacer("%0D", "\r", "%0A", "\n", "%25", "%").Replace(s)
}

func unescapeProperty(s string) string {
	return strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%").Replace(s)
}

func TestWriteGitHub(t *testing.T) {
	r := hostileResult()
	var b bytes.Buffer
	if err := WriteGitHub(&b, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != len(r.Findings)+1 {
		t.Fatalf("%d lines for %d findings; a finding's text broke a command:\n%s", len(lines), len(r.Findings), b.String())
	}
	tests := []struct {
		name, line, endLine string
	}{
		{"error", "42", "45"},
		{"error", "7", ""},
		{"warning", "3", ""},
		{"notice", "", ""},
		{"notice", "1", ""},
	}
	for i, tt := range tests {
		f := r.Findings[i]
		c, err := parseWorkflowCommand(lines[i])
		if err != nil {
			t.Fatal(err)
		}
		if c.name != tt.name || c.props["line"] != tt.line || c.props["endLine"] != tt.endLine {
			t.Errorf("finding %d: %s line=%q endLine=%q, want %s line=%q endLine=%q", i, c.name, c.props["line"], c.props["endLine"], tt.name, tt.line, tt.endLine)
		}
		if c.props["file"] != f.Path {
			t.Errorf("finding %d: file %q, want %q", i, c.props["file"], f.Path)
		}
		if want := annotationTitle(f); c.props["title"] != want {
			t.Errorf("finding %d: title %q, want %q", i, c.props["title"], want)
		}
		if want := plainMessage(f, false); c.message != want {
			t.Errorf("finding %d: message %q, want %q", i, c.message, want)
		}
		wantKeys := 2 // file and title
		for _, v := range []string{tt.line, tt.endLine} {
			if v != "" {
				wantKeys++
			}
		}
		if len(c.props) != wantKeys {
			t.Errorf("finding %d: properties %v", i, c.props)
		}
	}
	if last := lines[len(lines)-1]; strings.HasPrefix(last, "::") || !strings.Contains(last, "review replay r7k2m9") {
		t.Errorf("last line = %q, want a plain line with the replay command", last)
	}

	b.Reset()
	if err := WriteGitHub(&b, &Result{RunID: "none"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "::") || !strings.Contains(b.String(), "no findings") {
		t.Errorf("no findings: %q", b.String())
	}
}

func TestEscapeRoundTrip(t *testing.T) {
	for _, s := range []string{
		"", "plain", "100%", "%25", "%0A", "a\nb", "a\r\nb", "\r", "key: value, more", "::error::x",
		"%%3A%2C", "日本語 ✓ 🚀", "trailing %", "%0D%0A\r\n%",
	} {
		d := escapeData(s)
		p := escapeProperty(s)
		if strings.ContainsAny(d, "\r\n") || strings.ContainsAny(p, "\r\n:,") {
			t.Errorf("%q escapes to data %q, property %q", s, d, p)
		}
		if got := unescapeData(d); got != s {
			t.Errorf("data %q → %q → %q", s, d, got)
		}
		if got := unescapeProperty(p); got != s {
			t.Errorf("property %q → %q → %q", s, p, got)
		}
	}
}

// FuzzWorkflowCommand checks that no finding can break out of its command:
// one line per command, and the runner's parse gives back the text.
func FuzzWorkflowCommand(f *testing.F) {
	f.Add("a.go", "title", "body", "fix", 3, 5)
	f.Add("dir:x,y.go", "::error::x", "l1\r\nl2\n::warning::y", "%0A%25", 0, 0)
	f.Add("p\n.go", "t\r", "%", "", -1, 2)
	f.Add("ü.go", "✓ 🚀", "\x00\xff", "```suggestion\nx\n```", 1, 1)
	f.Fuzz(func(t *testing.T, path, title, body, suggestion string, line, end int) {
		fd := Finding{Path: path, Line: line, EndLine: end, Severity: High, Category: "c,d:e", Title: title, Body: body, Suggestion: suggestion}
		var b bytes.Buffer
		if err := WriteGitHub(&b, &Result{RunID: "run", Findings: []Finding{fd}}); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if len(lines) != 2 {
			t.Fatalf("%d lines, want the command and the replay line:\n%q", len(lines), b.String())
		}
		if strings.Contains(lines[0], "\r") {
			t.Fatalf("raw carriage return in %q", lines[0])
		}
		c, err := parseWorkflowCommand(lines[0])
		if err != nil {
			t.Fatal(err)
		}
		if c.props["file"] != path || c.props["title"] != annotationTitle(fd) || c.message != plainMessage(fd, false) {
			t.Fatalf("round trip lost text: %+v", c)
		}
		if line > 0 && c.props["line"] != strconv.Itoa(line) {
			t.Fatalf("line = %q, want %d", c.props["line"], line)
		}
	})
}

func TestWriteStepSummary(t *testing.T) {
	r := hostileResult()
	r.Dropped = []Dropped{{Finding: Finding{Path: "z.go", Line: 9, Title: "gone <!--"}, Reason: "merged\ninto another"}}
	var b bytes.Buffer
	if err := WriteStepSummary(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"## review: 5 findings (1 critical, 1 high, 1 medium, 1 low, 1 info)",
		"| Severity | Location | Category | Finding |",
		"| critical | `cache/lru.go:42-45` | concurrency | Data race on map at line 42 |",
		"`src/ünï/日本.go:3` | error-handling | Ignored error \\| pipe &lt;!-- hidden --> `a < b` |",
		"| low | `README.md` | docs | File-level &lt;b>note&lt;/b> |",
		"| info | `x.go:1` | general | Trailing newline |",
		"<summary>2. ::error::injected, title: yes</summary>",
		"<summary>4. File-level &lt;b&gt;note&lt;/b&gt;</summary>",
		"| 3 | 12000 | 4000 | 800 | 11800 | $0.0020 |",
		"<details><summary>1 left out</summary>\n\n- gone &lt;!-- (`z.go:9`): merged into another\n",
		"`review replay r7k2m9`",
		"Reviewed `feature|x` against `main`.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	// Every table row has its five cell borders: no text split a row.
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| ") && strings.Count(strings.ReplaceAll(l, `\|`, ""), "|") != 5 && !strings.HasPrefix(l, "| Requests") && !strings.HasPrefix(l, "| 3 |") {
			t.Errorf("table row broken: %q", l)
		}
	}
	// The summary's open fence is closed before the table.
	before, _, _ := strings.Cut(out, "| Severity")
	if strings.Count(before, "```")%2 != 0 {
		t.Errorf("an open fence swallows the table:\n%s", before)
	}

	b.Reset()
	if err := WriteStepSummary(&b, &Result{RunID: "e", Model: "local"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "## review: no findings") || !strings.Contains(b.String(), "unknown price") ||
		!strings.Contains(b.String(), "did not submit") {
		t.Errorf("empty summary:\n%s", b.String())
	}
}

func TestStepSummaryCapsBodies(t *testing.T) {
	r := &Result{RunID: "big", Findings: []Finding{{Path: "a.go", Line: 1, Severity: Low, Title: "t", Body: strings.Repeat("é", 10*maxSummaryBody)}}}
	var b bytes.Buffer
	if err := WriteStepSummary(&b, r); err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCountInString(b.String()); n > 2*maxSummaryBody {
		t.Errorf("summary has %d runes for one long body", n)
	}
	if !utf8.ValidString(b.String()) {
		t.Error("cutting the body split a character")
	}
}

func TestMarkdownHelpers(t *testing.T) {
	for in, want := range map[string]string{
		"a.go":    "`a.go`",
		"a`b":     "``a`b``",
		"`x":      "`` `x ``",
		"a``b`c":  "```a``b`c```",
		"":        "``",
		"pipe|x":  "`pipe|x`",
		"ü 日本.go": "`ü 日本.go`",
	} {
		if got := mdCode(in); got != want {
			t.Errorf("mdCode(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"a < b":            "a &lt; b",
		"`a < b` < c":      "`a < b` &lt; c",
		"``a ` < b`` <":    "``a ` < b`` &lt;",
		"`unclosed < b":    "`unclosed &lt; b",
		"<!-- x -->":       "&lt;!-- x -->",
		"no angles at all": "no angles at all",
	} {
		if got := escapeAngles(in); got != want {
			t.Errorf("escapeAngles(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"text":                          "text",
		"```go\ncode":                   "```go\ncode\n```",
		"```go\ncode\n```":              "```go\ncode\n```",
		"````\n```\nstill code":         "````\n```\nstill code\n````",
		"~~~\ncode\n~~~\n```x\nopen":    "~~~\ncode\n~~~\n```x\nopen\n```",
		"inline ```a``` is not a fence": "inline ```a``` is not a fence",
		"```a```":                       "```a```",
		"```\n``` x\n":                  "```\n``` x\n\n```",
		"a <!-- hide\nrest":             "a &lt;!-- hide\nrest",
		"```html\n<!-- code -->\n```":   "```html\n<!-- code -->\n```",
	} {
		if got := tidyMarkdown(in); got != want {
			t.Errorf("tidyMarkdown(%q) = %q, want %q", in, got, want)
		}
	}
	if got := CountFindings([]Finding{{Severity: High}}); got != "1 finding (1 high)" {
		t.Errorf("countFindings = %q", got)
	}
}

// TestActionYAML checks the composite action at the repository root: its
// inputs and defaults, that the API key reaches review only through the
// environment, that no script expands an expression (the injection GitHub
// warns about), and that every script is valid bash.
func TestActionYAML(t *testing.T) {
	path := ""
	for dir, _ := os.Getwd(); ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			path = filepath.Join(dir, "action.yml")
			break
		}
		if filepath.Dir(dir) == dir {
			t.Fatal("no go.mod above the package")
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Inputs map[string]struct {
			Default *string `yaml:"default"`
		} `yaml:"inputs"`
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				ID    string            `yaml:"id"`
				If    string            `yaml:"if"`
				Uses  string            `yaml:"uses"`
				Run   string            `yaml:"run"`
				Shell string            `yaml:"shell"`
				Env   map[string]string `yaml:"env"`
				With  map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(raw, &action); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if action.Runs.Using != "composite" {
		t.Errorf("runs.using = %q", action.Runs.Using)
	}
	for name, want := range map[string]string{
		"model": "", "base-url": "", "api-key": "", "fail-on": "none", "format": "github",
		"sarif": "false", "post": "false", "version": "",
	} {
		in, ok := action.Inputs[name]
		if !ok || in.Default == nil || *in.Default != want {
			t.Errorf("input %s: default %v, want %q", name, in.Default, want)
		}
	}
	var uses []string
	var keyEnv, reviewRun, uploadIf string
	for i, s := range action.Runs.Steps {
		if s.Uses != "" {
			uses = append(uses, s.Uses)
		}
		if strings.HasPrefix(s.Uses, "github/codeql-action/upload-sarif@") {
			uploadIf = s.If
		}
		for k, v := range s.Env {
			if strings.Contains(v, "inputs.api-key") {
				keyEnv = k
			}
		}
		if s.Run == "" {
			continue
		}
		if s.Shell != "bash" {
			t.Errorf("step %d: shell %q, want bash", i, s.Shell)
		}
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %d expands an expression inside its script; pass it through env:\n%s", i, s.Run)
		}
		if strings.Contains(s.Run, "set -x") || strings.Contains(s.Run, "OPENAI_API_KEY") {
			t.Errorf("step %d could print the API key", i)
		}
		if strings.Contains(s.Run, "review \"${args[@]}\"") {
			reviewRun = s.Run
		}
		cmd := exec.Command("bash", "-n")
		cmd.Stdin = strings.NewReader(s.Run)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("step %d is not valid bash: %v\n%s", i, err, out)
		}
	}
	if keyEnv != "OPENAI_API_KEY" {
		t.Errorf("api-key goes to %q, want the environment variable OPENAI_API_KEY", keyEnv)
	}
	for _, want := range []string{`--base "origin/$BASE_REF"`, `--fail-on "$FAIL_ON"`, `--format "$FORMAT"`, `"sarif=$sarif"`, "--post github", `--head "$HEAD_SHA"`} {
		if !strings.Contains(reviewRun, want) {
			t.Errorf("the review step does not pass %s", want)
		}
	}
	if !strings.Contains(uploadIf, "always()") {
		t.Errorf("SARIF upload runs only when review passed: if: %q", uploadIf)
	}
	if len(uses) != 2 || !strings.HasPrefix(uses[0], "actions/setup-go@") {
		t.Errorf("actions used: %v", uses)
	}
}
