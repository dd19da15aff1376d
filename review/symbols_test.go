package review

import (
	"context"
	"strings"
	"testing"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
)

// TestOverviewSymbols holds the overview's symbol lines, as the engine
// gives them from the head's index: a modified function with its callers
// counted across packages, an added one, and a removed one whose uses
// remain; navigation off leaves them out.
func TestOverviewSymbols(t *testing.T) {
	calc := func(body, extra string) string {
		return "package calc\n\n// Scale multiplies.\nfunc Scale(x, f int) int {\n" + body + "}\n\n" + extra
	}
	dir := newRepo(t, map[string]string{
		"go.mod":             "module example.com/shop\n\ngo 1.22\n",
		"calc/calc.go":       calc("\treturn x * f\n", "func Old() {}\n"),
		"billing/billing.go": "package billing\n\nimport \"example.com/shop/calc\"\n\nfunc Total(a int) int { calc.Old(); return calc.Scale(a, 2) }\n",
		"stock/stock.go":     "package stock\n\nimport \"example.com/shop/calc\"\n\nfunc Count(a int) int { return calc.Scale(a, 3) }\n",
		"README.md":          "# shop\n",
	}, map[string]string{
		"calc/calc.go": calc("\treturn (x*f + 50) / 100\n", "func New() int { return 1 }\n"),
		"README.md":    "# shop, scaled\n",
	})
	budget := conversation.DefaultBudget(llm.Lookup(testModel).Window)
	for _, off := range []bool{false, true} {
		p, err := Prepare(context.Background(), Options{Dir: dir, Base: "main", Config: result.Config{Model: testModel, Budget: budget, NoNavigation: off, OverviewSymbols: true}})
		if err != nil {
			t.Fatal(err)
		}
		md := p.Messages[1].Content
		want := "- `calc/calc.go` — modified, +2 -2\n" +
			"  - func `Scale` (line 4), modified: 2 uses in 2 files\n" +
			"  - func `New` (line 8), added: no uses\n" +
			"  - func `Old` (line 8 at base), removed: 1 use remains in 1 file\n"
		if got := strings.Contains(md, want); got == off {
			t.Errorf("navigation off %v: overview has the symbol lines %v:\n%s", off, got, md)
		}
		if !off && p.symbols == nil {
			t.Error("the plan keeps no index for the run's tools")
		}
		if off && p.symbols != nil {
			t.Error("navigation off read the index")
		}
	}
}
