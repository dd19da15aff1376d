package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
)

// TestActionlint lints every workflow a user or the release runs with
// actionlint, as the workflows' authors would: the README's two recipes
// (as a user copies them) and .github/workflows. shellcheck and pyflakes
// are not run (not on every machine); the expressions, events, permissions,
// contexts and action inputs are, and the README's uses of this action are
// checked against action.yml's inputs.
func TestActionlint(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	wfDir := filepath.Join(dir, ".github", "workflows")
	// actionlint finds a project, whose local actions it reads, by its
	// .git directory.
	for _, d := range []string{wfDir, filepath.Join(dir, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The recipes say uses: reviewdev/review@v1.4.0; actionlint can check
	// the inputs of a local action only, so they point at this one.
	action, err := os.ReadFile("action.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "review-action"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "review-action", "action.yml"), action, 0o644); err != nil {
		t.Fatal(err)
	}
	var files []string
	n := 0
	for _, block := range strings.Split(string(raw), "```yaml\n")[1:] {
		y, _, ok := strings.Cut(block, "\n```")
		if !ok || !strings.HasPrefix(y, "name: ") {
			continue
		}
		n++
		if !strings.Contains(y, "uses: reviewdev/review@v") {
			t.Errorf("README workflow %d does not use the action", n)
		}
		y = strings.ReplaceAll(y, "uses: reviewdev/review@v1.4.0", "uses: ./review-action")
		p := filepath.Join(wfDir, "readme-"+string(rune('0'+n))+".yml")
		if err := os.WriteFile(p, []byte(y+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	if n != 2 {
		t.Fatalf("%d workflows in the README, want 2", n)
	}
	release, err := os.ReadFile(filepath.Join(".github", "workflows", "release.yml"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(wfDir, "release.yml")
	if err := os.WriteFile(p, release, 0o644); err != nil {
		t.Fatal(err)
	}
	files = append(files, p)

	var out strings.Builder
	l, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{Shellcheck: "", Pyflakes: ""})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.LintFiles(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		t.Errorf("%s:%d:%d: %s [%s]", filepath.Base(e.Filepath), e.Line, e.Column, e.Message, e.Kind)
	}

	// The linter sees what it is here for: an input the action lacks and
	// a context that does not exist are errors.
	bad := strings.Replace(strings.Replace(string(mustRead(t, files[0])), "fail-on: high", "fail-onn: high", 1),
		"${{ secrets.OPENAI_API_KEY }}", "${{ secret.OPENAI_API_KEY }}", 1)
	p = filepath.Join(wfDir, "bad.yml")
	if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	errs, err = l.LintFiles([]string{p}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Message)
	}
	all := strings.Join(msgs, "\n")
	if !strings.Contains(all, `"fail-onn" is not defined`) || !strings.Contains(all, `undefined variable "secret"`) {
		t.Errorf("a broken workflow linted clean or otherwise:\n%s", all)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
