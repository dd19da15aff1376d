package symbols

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var record = flag.Bool("record", false, "record gopls's answers for TestGopls (needs gopls on PATH and the fixture's dependencies in the module cache)")

// goplsSymbols are the symbols of testdata/cobra whose references
// TestGopls compares with gopls's: functions, methods (on pointer and
// value receivers, promoted through no embedding), types, fields read and
// written and set in struct literals, variables and constants, exported
// and not.
var goplsCobra = []string{
	"Command", "Command.AddCommand", "Command.Execute", "Command.Flags", "Command.Name",
	"Command.Use", "Command.Run", "Command.parent", "Command.Root", "Command.HasParent",
	"ShellCompDirective", "ShellCompDirectiveNoFileComp", "EnableCommandSorting", "OnInitialize", "CheckErr",
	"PositionalArgs", "ExactArgs", "CompletionOptions", "stringInSlice", "Command.VisitParents",
}

// goplsShop are the symbols of testdata/shop, a small module written for
// what cobra's 20 do not show: a method promoted from an embedded struct
// (Base.Get) and shadowed by another module's method of that name
// (http.Header's Get), a method called through an interface its type
// implements (Counter.Count through Tokens), the element of a range and
// of an index (Item.Name), a field set in a literal, and a local that
// shares a package-level function's name (Scale).
var goplsShop = []string{"Base.Get", "Counter.Count", "Item.Name", "Scale", "Store.Items", "Base.Name", "NewCounter", "Store.Total"}

// TestGopls holds find_references on Go to gopls: for each of 20 symbols
// of a vendored copy of cobra v1.10.2 (testdata/cobra, its licence
// beside it; command_win.go left out, as gopls on Linux leaves it out),
// and for 8 of testdata/shop, the lines of its uses and definition are
// the lines gopls references -d gave. gopls's answers are recorded in
// testdata/cobra.gopls and testdata/shop.gopls, made with
//
//	go install golang.org/x/tools/gopls@v0.23.0
//	go test ./tools/symbols -run TestGopls -record
//
// which copies each fixture to a temporary module (with this module's
// go.sum, which holds cobra's one dependency the fixture's files import,
// github.com/spf13/pflag v1.0.9) and asks gopls at each definition's
// name; the test itself runs no gopls.
func TestGopls(t *testing.T) {
	for _, fx := range []struct {
		name    string
		symbols []string
	}{{"cobra", goplsCobra}, {"shop", goplsShop}} {
		t.Run(fx.name, func(t *testing.T) { goplsFixture(t, fx.name, fx.symbols) })
	}
}

func goplsFixture(t *testing.T, fixture string, symbols []string) {
	x := loadTree(t, filepath.Join("testdata", fixture))
	golden := filepath.Join("testdata", fixture+".gopls")
	if *record {
		recordGopls(t, x, fixture, symbols, golden)
	}
	want := map[string][]string{}
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	cur := ""
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if name, ok := strings.CutPrefix(line, "symbol "); ok {
			cur = name
			want[cur] = []string{}
		} else if line != "" {
			want[cur] = append(want[cur], line)
		}
	}
	same := 0
	for _, sym := range symbols {
		d := goDef(t, x, sym)
		var got []string
		for _, r := range x.References(d) {
			if r.Role == Use || r.Role == Definition {
				got = append(got, fmt.Sprintf("%s:%d", r.Path, r.Line))
			}
		}
		got = slices.Compact(got)
		if slices.Equal(got, want[sym]) {
			same++
			continue
		}
		t.Errorf("%s: %d lines, gopls %d\nonly here: %v\nonly gopls: %v", sym, len(got), len(want[sym]), minus(got, want[sym]), minus(want[sym], got))
	}
	t.Logf("%d of %d symbols as gopls answers", same, len(symbols))
}

// goDef is the one definition of a symbol of the fixture.
func goDef(t *testing.T, x *Index, sym string) Def {
	t.Helper()
	defs := slices.DeleteFunc(x.Definitions(sym), func(d Def) bool {
		return !strings.Contains(sym, ".") && d.Container != "" // an embedded field of that type
	})
	if len(defs) != 1 {
		t.Fatalf("%s: %d definitions, want 1: %v", sym, len(defs), defs)
	}
	return defs[0]
}

func minus(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// recordGopls asks gopls for the references of each symbol and writes
// them, as sorted unique "path:line" lines, to golden.
func recordGopls(t *testing.T, x *Index, fixture string, symbols []string, golden string) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", fixture))); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join("..", "..", "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, sym := range symbols {
		d := goDef(t, x, sym)
		at := fmt.Sprintf("%s:%d:%d", filepath.Join(dir, d.Path), d.defLine(x), d.col)
		cmd := exec.Command("gopls", "references", "-d", at)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("gopls references %s (%s): %v\n%s", at, sym, err, out)
		}
		var lines []string
		for l := range strings.Lines(string(out)) {
			p, rest, ok := strings.Cut(strings.TrimSpace(l), ".go:")
			if !ok {
				continue
			}
			n, _, _ := strings.Cut(rest, ":")
			if _, err := strconv.Atoi(n); err != nil {
				continue
			}
			rel, _ := filepath.Rel(dir, p+".go")
			lines = append(lines, filepath.ToSlash(rel)+":"+n)
		}
		slices.SortFunc(lines, func(a, b string) int {
			pa, la, _ := strings.Cut(a, ":")
			pb, lb, _ := strings.Cut(b, ":")
			if pa != pb {
				return strings.Compare(pa, pb)
			}
			na, _ := strconv.Atoi(la)
			nb, _ := strconv.Atoi(lb)
			return na - nb
		})
		fmt.Fprintf(&b, "symbol %s\n%s\n", sym, strings.Join(slices.Compact(lines), "\n"))
	}
	if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
