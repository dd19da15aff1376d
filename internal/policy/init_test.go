package policy

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// initCompiles are the packages the binary links that compile regular
// expressions when the program starts, whatever the command: each is
// paid by `review version` as by a review (issue: nothing is compiled
// before the command that needs it). They are other people's packages;
// one of ours compiles at first use (internal/lazy). A package that joins
// the list joins it here, knowingly.
var initCompiles = map[string]string{
	"github.com/yuin/goldmark/util":          "Markdown for the terminal (internal/mdterm): an e-mail address's domain",
	"github.com/yuin/goldmark/parser":        "Markdown for the terminal (internal/mdterm): CommonMark's HTML blocks",
	"go.yaml.in/yaml/v3":                     "configuration files",
	"github.com/dustin/go-humanize":          "Badger's sizes",
	"github.com/google/go-github/v84/github": "GitHub's API",
	"github.com/spf13/cobra":                 "the commands: an environment variable's name for completions",
	"github.com/sashabaranov/go-openai":      "the model's API: its stream's error lines",
}

// TestNothingCompiledAtInit finds, in every package the binary links, the
// package-level variables whose initialisation compiles a regular
// expression (regexp.MustCompile or Compile, directly or in a function
// called there), and holds them to initCompiles.
func TestNothingCompiledAtInit(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-json=ImportPath,Dir,GoFiles,Standard", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	found := map[string][]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	fset := token.NewFileSet()
	for dec.More() {
		var p struct {
			ImportPath, Dir string
			GoFiles         []string
			Standard        bool
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if p.Standard {
			continue
		}
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, pos := range compilesAtInit(f) {
				found[p.ImportPath] = append(found[p.ImportPath], fset.Position(pos).String())
			}
		}
	}
	for pkg, at := range found {
		if _, ok := initCompiles[pkg]; !ok {
			t.Errorf("%s compiles a regular expression when the program starts, whatever the command (%s): compile it at first use (internal/lazy), or, for another's package, name it in initCompiles with what it is for", pkg, strings.Join(at, ", "))
		}
	}
	for pkg := range initCompiles {
		if _, ok := found[pkg]; !ok {
			t.Errorf("%s is in initCompiles but compiles nothing at init, or is no longer linked: remove it", pkg)
		}
	}
}

// compilesAtInit returns where f compiles a regular expression as its
// package is initialised: a call of regexp's compilers in a package-level
// variable's initialiser or in an init function, outside function
// literals that are not called there. A function declared elsewhere and
// called there is not followed.
func compilesAtInit(f *ast.File) []token.Pos {
	name := "regexp"
	for _, imp := range f.Imports {
		if imp.Path.Value == `"regexp"` {
			if imp.Name != nil {
				name = imp.Name.Name
			}
			break
		}
		if imp == f.Imports[len(f.Imports)-1] {
			return nil
		}
	}
	if len(f.Imports) == 0 {
		return nil
	}
	var at []token.Pos
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // runs only if called: see CallExpr
		case *ast.CallExpr:
			if lit, ok := n.Fun.(*ast.FuncLit); ok {
				ast.Inspect(lit.Body, visit)
			}
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == name && slices.Contains([]string{"MustCompile", "Compile", "MustCompilePOSIX", "CompilePOSIX"}, sel.Sel.Name) {
					at = append(at, n.Pos())
				}
			}
		}
		return true
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.Name == "init" && d.Recv == nil && d.Body != nil {
				ast.Inspect(d.Body, visit)
			}
		case *ast.GenDecl:
			if d.Tok != token.VAR {
				continue
			}
			for _, s := range d.Specs {
				for _, v := range s.(*ast.ValueSpec).Values {
					ast.Inspect(v, visit)
				}
			}
		}
	}
	return at
}
