package symbols

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzIndex feeds any text to every scanner and the Go parser as a file
// of each language, and asks the questions the tools ask: no input may
// panic, hang or give a definition outside the file's lines.
func FuzzIndex(f *testing.F) {
	for _, p := range []string{"py/shop/cart.py", "js/src/store.ts", "rust/src/lib.rs", "cpp/src/shape.cpp", "ruby/lib/ledger.rb", "java/src/shop/Inventory.java"} {
		data, err := os.ReadFile(filepath.Join("testdata", "langs", p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, "Cart")
	}
	f.Add([]byte("package p\n\ntype T struct{ a int }\n\nfunc (t *T) M() int { return t.a }\n"), "M")
	f.Add([]byte("r#\"unterminated"), "r")
	f.Add([]byte("'''\n=begin\n/*"), "x")
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		if !ValidName(name) {
			name = "x"
		}
		var files []File
		for _, ext := range []string{".go", ".py", ".ts", ".java", ".rs", ".cc", ".rb"} {
			files = append(files, File{Path: "f" + ext, Data: data})
		}
		x := New(append(files, File{Path: "go.mod", Data: []byte("module m\n")}))
		lines := 1
		for _, c := range data {
			if c == '\n' {
				lines++
			}
		}
		for _, d := range x.Definitions(name) {
			if d.Line < 1 || d.End < d.Line || d.End > lines {
				t.Errorf("definition %+v outside the file's %d lines", d, lines)
			}
			x.References(d)
			x.Resolve(name, d.Path, d.Line)
		}
	})
}
