package symbols

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the expected outputs in testdata")

// loadTree reads every file below dir into an index, paths relative to
// dir.
func loadTree(t testing.TB, dir string) *Index {
	t.Helper()
	var files []File
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if !Source(rel) {
			return nil
		}
		data, err := os.ReadFile(p)
		files = append(files, File{Path: rel, Data: data})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return New(files)
}

var roles = map[Role]string{Use: "use", Definition: "definition", Comment: "mention", Maybe: "maybe"}

// dump writes every definition of each file, then the references of the
// named symbols, one line each.
func dump(x *Index, symbols []string) string {
	var b strings.Builder
	for _, f := range x.files {
		var defs []Def
		if isGo(f.Path) {
			defs = x.goFileAt(x.byPath[f.Path]).defs
		} else if familyOf(f.Path) != nil {
			defs = x.lexFileAt(x.byPath[f.Path]).defs
		}
		for _, d := range defs {
			fmt.Fprintf(&b, "def %s:%d-%d %s\n", d.Path, d.Line, d.End, d.Title())
		}
	}
	for _, s := range symbols {
		for _, g := range Group(x.Definitions(s)) {
			fmt.Fprintf(&b, "\nreferences %s (%s:%d)\n", s, g[0].Path, g[0].Line)
			for _, r := range x.References(g[0]) {
				fmt.Fprintf(&b, "  %s:%d %s [%s]\n", r.Path, r.Line, roles[r.Role], r.Func)
			}
		}
	}
	return b.String()
}

// TestLanguages holds the scanners of the languages other than Go to
// what testdata/langs shows: a small repository per language, each with
// a name defined in one file and used in others, a method of a class, and
// the name again in a comment and a string. The expected definitions and
// references are in testdata/langs.txt, rewritten with -update and read
// in the diff.
func TestLanguages(t *testing.T) {
	x := loadTree(t, filepath.Join("testdata", "langs"))
	got := dump(x, []string{
		"add_item", "price_of", "Cart", "TAX_RATE", // Python
		"findUser", "createStore", "DEFAULT_ID", "User", // JavaScript/TypeScript
		"restock", "Inventory", // Java
		"parse_line", "Setting", "MAX_LINES", "Setting.new", // Rust
		"buffer_append", "BUFFER_MAX", "buffer", // C
		"area", "Shape.describe", "total_area", // C++
		"post!", "balance", "Ledger", // Ruby
	})
	golden := filepath.Join("testdata", "langs.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("definitions and references differ from %s (go test -update rewrites it):\n%s", golden, got)
	}
}
