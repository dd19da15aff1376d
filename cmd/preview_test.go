package cmd

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/reviewdev/review/toolmem"
)

// TestPreviewDocs holds what the help text and the configuration reference
// (docs/configuration.md) say of --preview-chars to the constants tool
// memory defines: its default and its minimum.
func TestPreviewDocs(t *testing.T) {
	fl := pflag.NewFlagSet("review", pflag.ContinueOnError)
	var a agentFlags
	a.register(fl)
	usage := fl.Lookup("preview-chars").Usage
	for _, want := range []string{fmt.Sprintf("default %d", toolmem.DefaultPreviewChars), fmt.Sprintf("at least %d", toolmem.MinPreviewChars)} {
		if !strings.Contains(usage, want) {
			t.Errorf("--preview-chars help %q does not say %q", usage, want)
		}
	}
	readme, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	row := fmt.Sprintf("| `--preview-chars N` | %d | ", toolmem.DefaultPreviewChars)
	i := strings.Index(string(readme), row)
	if i < 0 {
		t.Fatalf("docs/configuration.md has no row starting %q", row)
	}
	line, _, _ := strings.Cut(string(readme[i:]), "\n")
	if want := fmt.Sprintf("at least %d", toolmem.MinPreviewChars); !strings.Contains(line, want) {
		t.Errorf("docs/configuration.md row %q does not say %q", line, want)
	}
}
