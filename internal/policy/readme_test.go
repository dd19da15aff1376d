package policy

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeFirstSteps holds the README's first steps to what
// testdata/script/first_steps.txtar runs: every review command of the
// section must be run there as written, so a newcomer pasting the lines
// gets what the script checks.
func TestReadmeFirstSteps(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("testdata/script/first_steps.txtar")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## First steps\n")
	if !ok {
		t.Fatal("README has no First steps section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	run := regexp.MustCompile(`(?m)^(?:exec|exits \d+) (review .*)$`)
	ran := map[string]bool{}
	for _, m := range run.FindAllStringSubmatch(string(script), -1) {
		ran[m[1]] = true
	}
	n := 0
	for _, line := range strings.Split(section, "\n") {
		cmd, ok := strings.CutPrefix(line, "    ")
		if !ok || !strings.HasPrefix(cmd, "review ") {
			continue
		}
		n++
		if !ran[cmd] {
			t.Errorf("README's first steps run %q, which first_steps.txtar does not", cmd)
		}
	}
	if n == 0 {
		t.Error("README's first steps hold no review command")
	}
}
