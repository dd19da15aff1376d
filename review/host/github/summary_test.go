package github

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reviewdev/review/review/resulttest"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/review/result"
	"go.yaml.in/yaml/v3"
)

func hostileResult() *result.Result { return resulttest.Hostile() }

func TestWriteStepSummary(t *testing.T) {
	r := hostileResult()
	r.Dropped = []result.Dropped{{Finding: result.Finding{Path: "z.go", Line: 9, Title: "gone <!--"}, Reason: "merged\ninto another"}}
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
	if err := WriteStepSummary(&b, &result.Result{RunID: "e", Model: "local"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "## review: no findings") || !strings.Contains(b.String(), "unknown price") ||
		!strings.Contains(b.String(), "did not submit") {
		t.Errorf("empty summary:\n%s", b.String())
	}
}

func TestStepSummaryCapsBodies(t *testing.T) {
	r := &result.Result{RunID: "big", Findings: []result.Finding{{Path: "a.go", Line: 1, Severity: result.Low, Title: "t", Body: strings.Repeat("é", 10*maxSummaryBody)}}}
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

// TestStepSummaryNotUTF8: a file whose name is not UTF-8 is named quoted,
// as the diff context showed it, and not as U+FFFD.
func TestStepSummaryNotUTF8(t *testing.T) {
	f := result.Finding{Path: "caf\xe9.txt", Line: 1, Severity: result.Info, Category: "docs", Title: "Greeting"}
	r := &result.Result{RunID: "q", Findings: []result.Finding{f}, Dropped: []result.Dropped{{Finding: f, Reason: "merged"}}}
	var b bytes.Buffer
	if err := WriteStepSummary(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "| info | `\"caf\\xe9.txt\":1` | docs | Greeting |") || !strings.Contains(out, "- Greeting (`\"caf\\xe9.txt\":1`): merged") {
		t.Errorf("the file is not named quoted:\n%s", out)
	}
	if strings.ContainsRune(out, utf8.RuneError) || !utf8.ValidString(out) {
		t.Errorf("U+FFFD or bytes that are not UTF-8:\n%s", out)
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
		"model": "", "base-url": "", "api-key": "", "fail-on": "", "format": "github",
		"sarif": "false", "post": "false", "version": "latest", "build-from-source": "false", "download-url": "",
	} {
		in, ok := action.Inputs[name]
		if !ok || in.Default == nil || *in.Default != want {
			t.Errorf("input %s: default %v, want %q", name, in.Default, want)
		}
	}
	var uses []string
	var keyEnv, reviewRun, uploadIf, setupGoIf, installRun string
	for i, s := range action.Runs.Steps {
		if s.Uses != "" {
			uses = append(uses, s.Uses)
		}
		if strings.HasPrefix(s.Uses, "actions/setup-go@") {
			setupGoIf = s.If
		}
		if strings.Contains(s.Run, "action/install.sh") {
			installRun = s.Run
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
	// Go is set up only to build from source; a release is downloaded and
	// checked by action/install.sh (TestActionInstall at the root).
	if !strings.Contains(setupGoIf, "inputs.build-from-source == 'true'") {
		t.Errorf("setup-go runs unless asked: if: %q", setupGoIf)
	}
	if !strings.Contains(installRun, `REVIEW_VERSION=$VERSION `) || !strings.Contains(installRun, `bash "$ACTION_PATH/action/install.sh"`) {
		t.Errorf("the install step does not run action/install.sh:\n%s", installRun)
	}
}

// BenchmarkWriteStepSummary writes the summary of a review of 200
// findings and reports its size per finding.
func BenchmarkWriteStepSummary(b *testing.B) {
	r := &result.Result{RunID: "bench", Model: "gpt-4o-mini", Submitted: true, Usage: result.RunUsage{Requests: 12, Prompt: 400_000, Cached: 250_000, Completion: 9000}}
	for i := range 200 {
		r.Findings = append(r.Findings, result.Finding{
			Path: fmt.Sprintf("pkg/mod%d/file%d.go", i%17, i), Line: 10 + i, EndLine: 12 + i,
			Severity: []result.Severity{result.Critical, result.High, result.Medium, result.Low, result.Info}[i%5], Category: []string{"correctness", "security", "performance"}[i%3],
			Title: fmt.Sprintf("Problem number %d in the handler", i), Body: strings.Repeat("The handler forgets to close the body. ", 8),
			Suggestion: "```suggestion\n\tdefer resp.Body.Close()\n```",
		})
	}
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := WriteStepSummary(&buf, r); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len())/float64(len(r.Findings)), "bytes/finding")
}

func TestCoverageNote(t *testing.T) {
	r := &result.Result{RunID: "r1", Submitted: true}
	if got := coverageNote(r); got != "" {
		t.Errorf("whole review: note %q", got)
	}
	r.Submitted = false
	r.NotReviewed = []result.NotReviewed{{Left: diffctx.Left{Path: "a.go"}, Reason: result.ReasonMaxUnits}, {Left: diffctx.Left{Path: "b.go"}, Reason: result.ReasonMaxUnits}}
	got := coverageNote(r)
	for _, want := range []string{"**Incomplete review:**", "`review replay r1`", "**Partial review:** 2 files not reviewed (past --max-units)"} {
		if !strings.Contains(got, want) {
			t.Errorf("note %q lacks %q", got, want)
		}
	}
	var b strings.Builder
	if err := WriteStepSummary(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "**Partial review:** 2 files not reviewed") {
		t.Errorf("step summary lacks the partial review:\n%s", b.String())
	}
}
