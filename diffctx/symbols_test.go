package diffctx

import (
	"fmt"
	"strings"
	"testing"
)

// TestRenderSymbols holds the overview's symbol lines: under their file,
// one line a symbol (kind, name, line, change, uses), bounded per file
// and in all, shown only when every hunk fits beside them, and otherwise
// left out with a line saying so; the budget holds either way.
func TestRenderSymbols(t *testing.T) {
	files := mustParse(t, synthDiff(200))
	d := &Diff{Files: files}
	plain := Render(d, 1<<30, nil)
	for i := range 10 {
		files[0].Symbols = append(files[0].Symbols, Symbol{Name: fmt.Sprintf("Set.Call%d", i), Kind: "method", Line: 10 + i, Change: "modified", Uses: i, Files: min(i, 2)})
	}
	files[1].Symbols = []Symbol{{Name: "Old", Kind: "func", Line: 3, Change: "removed", Uses: 1, Files: 1}}
	whole := Render(d, 1<<30, nil)
	for _, want := range []string{
		symbolsNote,
		"\n  - method `Set.Call0` (line 10), modified: no uses\n",
		"\n  - method `Set.Call2` (line 12), modified: 2 uses in 2 files\n",
		"\n  - and 4 more\n",
		"\n  - func `Old` (line 3 at base), removed: 1 use remains in 1 file\n",
	} {
		if !strings.Contains(whole.Markdown, want) {
			t.Errorf("overview lacks %q:\n%s", want, whole.Markdown)
		}
	}
	if strings.Contains(whole.Markdown, "Set.Call6") {
		t.Error("more symbols than the bound of a file")
	}
	checkContext(t, d, whole, estimator{})
	// Without room for every hunk beside them, the symbols give way.
	tight := Render(d, plain.Tokens-50, nil)
	if strings.Contains(tight.Markdown, "Set.Call0") || !strings.Contains(tight.Markdown, symbolsLeftOut) {
		t.Errorf("a context without room kept the symbols or did not say so:\n%s", tight.Markdown)
	}
	if tight.Tokens > tight.Budget {
		t.Errorf("%d tokens over the budget %d", tight.Tokens, tight.Budget)
	}
	checkContext(t, d, tight, estimator{})
	// A diff without symbols renders as it did.
	for _, f := range files {
		f.Symbols = nil
	}
	if again := Render(d, 1<<30, nil); again.Markdown != plain.Markdown {
		t.Error("a diff without symbols renders differently")
	}
}
