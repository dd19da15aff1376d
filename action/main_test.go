package action

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestMain runs the tests from the repository's root, where action.yml,
// .goreleaser.yaml and .github/ are.
func TestMain(m *testing.M) {
	if err := os.Chdir(".."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if _, err := os.Stat("action.yml"); err != nil {
		fmt.Fprintln(os.Stderr, "action: the repository's root has no action.yml:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestActionDocumented holds docs/ci.md's tables to action.yml: every
// input and output the action has is a row, and no row names one it does
// not have.
func TestActionDocumented(t *testing.T) {
	var action struct {
		Inputs  map[string]any `yaml:"inputs"`
		Outputs map[string]any `yaml:"outputs"`
	}
	if err := yaml.Unmarshal(mustRead(t, "action.yml"), &action); err != nil {
		t.Fatal(err)
	}
	doc := string(mustRead(t, filepath.Join("docs", "ci.md")))
	rows := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\|").FindAllStringSubmatch(doc, -1) {
		rows[m[1]] = true
	}
	for _, set := range []map[string]any{action.Inputs, action.Outputs} {
		if len(set) == 0 {
			t.Fatal("action.yml has no inputs or no outputs")
		}
		for name := range set {
			if !rows[name] {
				t.Errorf("docs/ci.md has no row for the action's %q", name)
			}
			delete(rows, name)
		}
	}
	for name := range rows {
		if strings.Contains(name, "-") && !strings.HasPrefix(name, "-") {
			t.Errorf("docs/ci.md has a row for %q, which action.yml does not have", name)
		}
	}
}
