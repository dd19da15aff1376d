package cmd

import (
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"
)

// Every Exit constant is in ExitCodes, the table review --help prints,
// once and in order.
func TestExitCodesTable(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	conf := types.Config{Importer: nil, Error: func(error) {}}
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}}
	_, _ = conf.Check("cmd", fset, []*ast.File{f}, info)
	want := map[int64]string{}
	for id, obj := range info.Defs {
		if c, ok := obj.(*types.Const); ok && strings.HasPrefix(id.Name, "Exit") {
			v, _ := constant.Int64Val(c.Val())
			want[v] = id.Name
		}
	}
	if len(want) < 8 {
		t.Fatalf("found only %d exit codes in errors.go: %v", len(want), want)
	}
	last := -1
	for _, c := range ExitCodes {
		if _, ok := want[int64(c.Code)]; !ok {
			t.Errorf("ExitCodes has %d, which no Exit constant is", c.Code)
		}
		if c.Code <= last {
			t.Errorf("ExitCodes: %d after %d", c.Code, last)
		}
		last = c.Code
		delete(want, int64(c.Code))
	}
	for code, name := range want {
		t.Errorf("%s (%d) is not in ExitCodes", name, code)
	}
}
