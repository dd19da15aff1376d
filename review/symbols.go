package review

import (
	"context"
	"slices"
	"strings"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/tools"
	"github.com/reviewdev/review/tools/symbols"
)

// touchedSymbols names, under each changed source file of d, the symbols
// the change adds, modifies or removes, with the uses the head has of
// them (diffctx.File.Symbols), from the head's symbol index, which it
// returns for the run's tools to reuse. The names are evidence for the
// model, not instructions: a kind, a name, a line and two counts each.
// Without an index (a read that failed), the overview goes without them;
// the tools meet the failure again and report it.
//
// The overview names symbols only when every hunk fits beside them, so a
// change of more than maxSymbolFiles files, which rarely does, is not
// looked at; and the overview shows a few dozen symbols at most, so the
// files after the first maxTouched symbols are not either.
func touchedSymbols(ctx context.Context, set *tools.Set, d *diffctx.Diff) *symbols.Index {
	if len(d.Files) > maxSymbolFiles {
		return nil
	}
	x, err := set.Symbols(ctx)
	if err != nil {
		return nil
	}
	found := 0
	for _, f := range d.Files {
		if found >= maxTouched {
			break
		}
		if f.Binary || f.TooLarge || f.HasTag(diffctx.TagGenerated) || f.HasTag(diffctx.TagLockfile) ||
			(symbols.Language(f.Path) == "" && symbols.Language(f.OldPath) == "") {
			continue
		}
		var base []byte
		if f.Status != diffctx.Added && f.OldPath != "" {
			base, _ = set.BaseFile(ctx, f.OldPath) // none: every definition is new
		}
		for _, t := range x.Touched(f.Path, base, cmpOr(f.OldPath, f.Path), changedLines(f.Hunks), maxTouched-found) {
			name := t.Name
			if t.Container != "" {
				name = t.Container + "." + t.Name
			}
			f.Symbols = append(f.Symbols, diffctx.Symbol{Name: name, Kind: t.Kind, Line: t.Line, Change: t.Change, Uses: t.Uses, Files: t.Files})
			found++
		}
	}
	return x
}

// Bounds of the symbols the overview is given: see touchedSymbols.
const (
	maxSymbolFiles = 64
	maxTouched     = 48
)

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// changedLines are the lines of the head a file's hunks add, and those
// where they delete lines, in order.
func changedLines(hunks []diffctx.Hunk) []int {
	var out []int
	for _, h := range hunks {
		n := h.NewStart
		for line := range strings.Lines(h.Body) {
			switch line[0] {
			case '+':
				out = append(out, n)
				n++
			case '-':
				out = append(out, n)
			case ' ':
				n++
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
