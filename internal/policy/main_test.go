package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestMain runs the policies from the repository's root: they read its
// files (README.md, docs/, .github/) and run go list and go build there.
func TestMain(m *testing.M) {
	if err := os.Chdir(filepath.Join("..", "..")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if _, err := os.Stat("go.mod"); err != nil {
		fmt.Fprintln(os.Stderr, "internal/policy: not two folders below the repository's root:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}
