package policy

import (
	"regexp"
	"testing"

	"github.com/fzipp/gocyclo"
)

// maxComplexity is the most cyclomatic complexity a production function
// may have: past it, a function does several jobs that want names of
// their own.
const maxComplexity = 25

// TestComplexity holds every production function to maxComplexity, as
// gocyclo counts it (tests and generated rule tables aside).
func TestComplexity(t *testing.T) {
	stats := gocyclo.Analyze([]string{"."}, regexp.MustCompile(`_test\.go$|rules_gen\.go$|/\.|^\.`))
	for _, s := range stats.SortAndFilter(-1, maxComplexity) {
		t.Errorf("%s: %s has cyclomatic complexity %d, over %d", s.Pos, s.FuncName, s.Complexity, maxComplexity)
	}
}
