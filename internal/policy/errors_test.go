package policy

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/reviewdev/review/cmd"
)

// below are the folders under cmd: their errors say what failed and why,
// and leave what to do with review's flags and commands to cmd.
var below = []string{"review", "diffctx", "tools", "conversation", "toolmem", "internal"}

// TestErrorsNameNoFlag holds the command boundary: no error of a package
// below cmd names one of review's flags or commands; cmd adds that advice
// to their typed errors (cmd/advice.go). It reads the error text of their
// production code: the strings given to errors.New and fmt.Errorf, those
// in Error methods, in literals of error types, and in the functions that
// build errors and hints (named …Error, …Hint). Git's own commands and
// flags are advice about git and may appear.
func TestErrorsNameNoFlag(t *testing.T) {
	flags, commands := surface()
	if !flags["store"] || !commands["doctor"] {
		t.Fatalf("the command tree lacks --store or doctor: %v %v", flags, commands)
	}
	flagRe := regexp.MustCompile(`(?:^|[^\w-])--([a-z][a-z0-9-]*)`)
	// A flag right after a git command ("git fetch --unshallow",
	// "git config --global --add") is git's.
	gitRe := regexp.MustCompile(`\bgit [a-z-]+(?: [^\s:;,()]+)* $`)
	commandRe := regexp.MustCompile(`\breview ([a-z]+)|'([a-z]+)'`)
	check := func(pos token.Position, s string) {
		if !strings.ContainsAny(s, " \t") {
			return // one word, an argument to git ("--quiet"), not a message
		}
		for _, m := range flagRe.FindAllStringSubmatchIndex(s, -1) {
			name := s[m[2]:m[3]]
			if flags[name] && !gitRe.MatchString(s[:m[2]-2]) {
				t.Errorf("%s: an error names the flag --%s: %q", pos, name, s)
			}
		}
		for _, m := range commandRe.FindAllStringSubmatch(s, -1) {
			if name := m[1] + m[2]; commands[name] {
				t.Errorf("%s: an error names the command %s: %q", pos, name, s)
			}
		}
	}
	fset := token.NewFileSet()
	n := 0
	for _, dir := range below {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			n++
			for _, lit := range errorStrings(f) {
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					continue
				}
				check(fset.Position(lit.Pos()), s)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 50 {
		t.Fatalf("read only %d files", n)
	}
}

// surface returns the long flags and the command names of review.
func surface() (flags, commands map[string]bool) {
	flags, commands = map[string]bool{}, map[string]bool{}
	root := cmd.NewCmdRoot(&cmd.Factory{
		IO:     &cmd.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard},
		Getenv: func(string) string { return "" },
	})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c != root {
			commands[c.Name()] = true
		}
		add := func(f *pflag.Flag) { flags[f.Name] = true }
		c.Flags().VisitAll(add)
		c.PersistentFlags().VisitAll(add)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	// Cobra's own, which no error of review's should name either.
	delete(commands, "help")
	delete(commands, "completion")
	return flags, commands
}

// errorStrings returns the string literals of f that are error text.
func errorStrings(f *ast.File) []*ast.BasicLit {
	var lits []*ast.BasicLit
	collect := func(n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				lits = append(lits, lit)
			}
			return true
		})
	}
	errorFunc := regexp.MustCompile(`(?i)(error|hint)$`)
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if errorFunc.MatchString(n.Name.Name) && n.Body != nil {
				collect(n.Body)
				return false
			}
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && (x.Name == "errors" && sel.Sel.Name == "New" || x.Name == "fmt" && sel.Sel.Name == "Errorf") {
					for _, a := range n.Args {
						collect(a)
					}
					return false
				}
			}
		case *ast.CompositeLit:
			if typeName(n.Type) != "" && strings.HasSuffix(typeName(n.Type), "Error") {
				collect(n)
				return false
			}
		}
		return true
	})
	return lits
}

// typeName is the name of a type expression: T, pkg.T.
func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return ""
}
