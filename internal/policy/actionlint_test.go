package policy

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
)

// TestActionlint lints every workflow a user or the project runs with
// actionlint, as the workflows' authors would: the three recipes of docs/ci.md
// (as a user copies them) and every file in .github/workflows (CI, the
// review of the project's own pull requests, the release). shellcheck and
// pyflakes are not run (not on every machine); the expressions, events,
// permissions, contexts and action inputs are, and the uses of this action
// (the recipes' and the review workflow's uses: ./) are checked against
// action.yml's inputs.
func TestActionlint(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	wfDir := filepath.Join(dir, ".github", "workflows")
	// actionlint finds a project, whose local actions it reads, by its
	// .git directory.
	for _, d := range []string{wfDir, filepath.Join(dir, ".git"), filepath.Join(dir, "review-action")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The recipes say uses: reviewdev/review@<ref>; actionlint can check
	// the inputs of a local action only, so they point at a copy of this
	// one. The project's own workflows say uses: ./, the root's copy.
	action, err := os.ReadFile("action.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "review-action", "action.yml"), filepath.Join(dir, "action.yml")} {
		if err := os.WriteFile(p, action, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var files []string
	n := 0
	uses := regexp.MustCompile(`uses: reviewdev/review@\S+`)
	for _, block := range strings.Split(string(raw), "```yaml\n")[1:] {
		y, _, ok := strings.Cut(block, "\n```")
		if !ok || !strings.HasPrefix(y, "name: ") {
			continue
		}
		n++
		if !uses.MatchString(y) {
			t.Errorf("docs/ci.md workflow %d does not use the action", n)
		}
		y = uses.ReplaceAllString(y, "uses: ./review-action")
		p := filepath.Join(wfDir, "readme-"+string(rune('0'+n))+".yml")
		if err := os.WriteFile(p, []byte(y+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	if n != 3 {
		t.Fatalf("%d workflows in docs/ci.md, want 3", n)
	}
	own, err := os.ReadDir(filepath.Join(".github", "workflows"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range own {
		if ext := filepath.Ext(e.Name()); e.IsDir() || (ext != ".yml" && ext != ".yaml") {
			continue
		}
		names = append(names, e.Name())
		p := filepath.Join(wfDir, e.Name())
		if err := os.WriteFile(p, mustRead(t, filepath.Join(".github", "workflows", e.Name())), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	// The workflows the project cannot do without are among them.
	for _, want := range []string{"ci.yml", "release.yml", "review.yml"} {
		if !slices.Contains(names, want) {
			t.Errorf(".github/workflows has no %s (it has %v)", want, names)
		}
	}

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

	// The linter sees what it is here for: an input the action lacks
	// (through a copy of the action and through uses: ./) and a context
	// that does not exist are errors.
	for _, tc := range []struct {
		from  string
		edits []string // old, new, ...
		want  []string
	}{
		{files[0], []string{"fail-on: high", "fail-onn: high", "${{ secrets.OPENAI_API_KEY }}", "${{ secret.OPENAI_API_KEY }}"},
			[]string{`"fail-onn" is not defined`, `undefined variable "secret"`}},
		{filepath.Join(wfDir, "review.yml"), []string{"build-from-source: true", "build-from-sourc: true"},
			[]string{`"build-from-sourc" is not defined`}},
	} {
		bad := string(mustRead(t, tc.from))
		for i := 0; i+1 < len(tc.edits); i += 2 {
			if !strings.Contains(bad, tc.edits[i]) {
				t.Fatalf("%s has no %q to break", filepath.Base(tc.from), tc.edits[i])
			}
			bad = strings.Replace(bad, tc.edits[i], tc.edits[i+1], 1)
		}
		p := filepath.Join(wfDir, "bad.yml")
		if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		errs, err := l.LintFiles([]string{p}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var msgs []string
		for _, e := range errs {
			msgs = append(msgs, e.Message)
		}
		all := strings.Join(msgs, "\n")
		for _, w := range tc.want {
			if !strings.Contains(all, w) {
				t.Errorf("broken %s: no %q among:\n%s", filepath.Base(tc.from), w, all)
			}
		}
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
