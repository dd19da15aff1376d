package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
	"go.yaml.in/yaml/v3"
)

// TestCIDocGitea checks the Forgejo (and Gitea) Actions workflow docs/ci.md
// gives to copy: YAML that parses; a job on pull requests that fetches the
// whole history, keeps the store per pull request and runs review --post
// gitea, and a job on issue comments, only for a pull request's comments
// that start with /review, that runs review comment; the keys from the
// repository's secrets, none in the file. The workflow language is
// GitHub's, so actionlint checks it as well, its runner label (docker, a
// Forgejo runner's) declared as a self-hosted one.
func TestCIDocGitea(t *testing.T) {
	block := ciBlock(t, "# .forgejo/workflows/review.yml")
	type step struct {
		Uses string            `yaml:"uses"`
		Run  string            `yaml:"run"`
		With map[string]string `yaml:"with"`
		Env  map[string]string `yaml:"env"`
	}
	var wf struct {
		On   map[string]map[string][]string `yaml:"on"`
		Jobs map[string]struct {
			If    string `yaml:"if"`
			Steps []step `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(block), &wf); err != nil {
		t.Fatalf("the workflow: %v\n%s", err, block)
	}
	if wf.On["issue_comment"]["types"][0] != "created" || len(wf.On["pull_request"]["types"]) == 0 {
		t.Errorf("on %v: want pull_request and issue_comment (created)", wf.On)
	}
	runs := func(job, cmd string) step {
		for _, s := range wf.Jobs[job].Steps {
			if strings.HasPrefix(s.Run, cmd) {
				return s
			}
		}
		t.Errorf("job %s runs no %q", job, cmd)
		return step{}
	}
	for job, cmd := range map[string]string{"review": "review --post gitea", "command": "review comment"} {
		s := runs(job, cmd)
		if s.Env["OPENAI_API_KEY"] != "${{ secrets.OPENAI_API_KEY }}" || !strings.HasPrefix(s.Env["GITHUB_TOKEN"], "${{ secrets.") || s.Env["REVIEW_STORE"] == "" {
			t.Errorf("job %s: env %v: want the key and the token from secrets, and the store", job, s.Env)
		}
		var cached, whole bool
		for _, st := range wf.Jobs[job].Steps {
			cached = cached || strings.HasPrefix(st.Uses, "actions/cache@") && st.With["path"] == ".review-store"
			whole = whole || strings.HasPrefix(st.Uses, "actions/checkout@") && st.With["fetch-depth"] == "0"
		}
		if !cached || !whole {
			t.Errorf("job %s: cache of the store %v, whole history %v", job, cached, whole)
		}
	}
	if w := wf.Jobs["command"].If; !strings.Contains(w, "github.event.issue.pull_request") || !strings.Contains(w, "startsWith(github.event.comment.body, '/review')") {
		t.Errorf("job command runs if %q: want a pull request's /review comments only", w)
	}
	if strings.Contains(block, "sk-") || strings.Contains(block, "gta_") {
		t.Error("the workflow holds a secret")
	}

	dir := t.TempDir()
	wfDir := filepath.Join(dir, ".github", "workflows")
	for _, d := range []string{wfDir, filepath.Join(dir, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	conf := "self-hosted-runner:\n  labels: [docker]\n"
	if err := os.WriteFile(filepath.Join(dir, ".github", "actionlint.yaml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(wfDir, "review.yml")
	if err := os.WriteFile(p, []byte(block+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	l, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{Shellcheck: "", Pyflakes: ""})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.LintFiles([]string{p}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		t.Errorf("review.yml:%d:%d: %s [%s]", e.Line, e.Column, e.Message, e.Kind)
	}
	// The linter sees what it is here for: a context that does not exist
	// is an error, and so is a label the configuration does not declare.
	bad := strings.Replace(strings.Replace(block, "${{ secrets.OPENAI_API_KEY }}", "${{ secret.OPENAI_API_KEY }}", 1), "runs-on: docker", "runs-on: dockr", 1)
	if err := os.WriteFile(p, []byte(bad+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if errs, err = l.LintFiles([]string{p}, nil); err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Message)
	}
	for _, w := range []string{`undefined variable "secret"`, `label "dockr" is unknown`} {
		if !strings.Contains(strings.Join(msgs, "\n"), w) {
			t.Errorf("actionlint did not say %q of a broken workflow: %q", w, msgs)
		}
	}
}
