package action

import (
	"fmt"
	"os"
	"testing"
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
