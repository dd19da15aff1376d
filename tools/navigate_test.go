package tools

import (
	"context"
	"strings"
	"sync"
	"testing"
)

func TestFindDefinition(t *testing.T) {
	s := sharedFixture(t).set()
	out := mustOK(t, call(t, s, "find_definition", `{"symbol": "Hello"}`))
	contains(t, out, "func Hello at util/util.go:4-6\n", "3: // Hello greets.\n4: func Hello() string {\n", "6: }\n")
	// A use resolves through the file's imports.
	out = mustOK(t, call(t, s, "find_definition", `{"symbol": "Hello", "path": "main.go", "line": 10}`))
	contains(t, out, "func Hello at util/util.go:4-6 (what main.go:10 names)\n")
	// Several definitions: the nearest first, the others listed.
	out = mustOK(t, call(t, s, "find_definition", `{"symbol": "main", "path": "cmd/tool/main.go"}`))
	contains(t, out, "func main at cmd/tool/main.go:5-5 (1 of 2 definitions, the nearest first)\n", "other definitions of \"main\":\nmain.go:9-11 func main\n")
	out = mustOK(t, call(t, s, "find_definition", `{"symbol": "Nowhere"}`))
	contains(t, out, `no definition of "Nowhere" in the`)
}

func TestFindReferences(t *testing.T) {
	s := sharedFixture(t).set()
	out := mustOK(t, call(t, s, "find_references", `{"symbol": "Hello"}`))
	want := "func Hello (util/util.go:4): 2 uses in 2 files; 1 mention in comments or strings left out (comments: true lists them)\n" +
		"cmd/tool/main.go:5: [main] func main() { _ = util.Hello() }\n" +
		"main.go:10: [main] fmt.Println(util.Hello(), \"world\")\n" +
		"definitions:\n" +
		"util/util.go:4: func Hello() string {\n"
	if out != want {
		t.Errorf("find_references Hello:\n%s\nwant:\n%s", out, want)
	}
	out = mustOK(t, call(t, s, "find_references", `{"symbol": "Hello", "comments": true}`))
	contains(t, out, "mentions in comments and strings:\nutil/util.go:3: // Hello greets.\n")
	// The other languages: by name, definitions apart.
	out = mustOK(t, call(t, s, "find_references", `{"symbol": "run", "path": "py/pkg/core.py"}`))
	contains(t, out, "func run (py/pkg/core.py:7): 2 uses in 2 files\n", "py/main.py:1: from pkg.core import run\n", "py/pkg/sub/deep.py:1: from ..core import run\n")
}

func TestNavigationArguments(t *testing.T) {
	s := sharedFixture(t).set(func(e *Env) { e.Ignore = []string{"cmd/**"} })
	for _, tc := range []struct{ tool, args, want string }{
		{"find_definition", `{"symbol": "a b"}`, `find_definition argument "symbol" "a b" is not a name`},
		{"find_references", `{"symbol": ""}`, `argument "symbol" "" is not a name`},
		{"find_definition", `{"symbol": "Hello", "path": "../outside.txt"}`, "leaves the repository"},
		{"find_references", `{"symbol": "Hello", "path": "README.md"}`, `"README.md" is not a source file the index reads`},
		{"find_references", `{"symbol": "Hello", "path": "main.go"}`, `"main.go" defines no "Hello"; it is defined in util/util.go:4`},
		{"find_definition", `{"symbol": "Hello", "path": "cmd/tool/main.go"}`, "excluded from this review by the repository's ignore settings"},
		{"find_definition", `{"symbol": "Hello", "path": "nope.go"}`, `no source file "nope.go" at head`},
		{"find_definition", `{"symbol": "Hello", "line": 0}`, `argument "line" must be at least 1`},
		{"find_references", `{"symbol": "Hello", "comments": "maybe"}`, `argument "comments" must be true or false`},
	} {
		mustErr(t, call(t, s, tc.tool, tc.args), tc.want)
	}
	// Hidden files are not read: the ignored main's uses are not listed.
	out := mustOK(t, call(t, s, "find_references", `{"symbol": "Hello"}`))
	contains(t, out, "1 use in 1 file")
	lacks(t, out, "cmd/tool")
}

// TestSymbolsOnce holds the index to one read per run, shared by the
// sets of its units and by questions asked at once.
func TestSymbolsOnce(t *testing.T) {
	s := sharedFixture(t).set()
	unit := s.With()
	var wg sync.WaitGroup
	got := make([]any, 8)
	for i := range got {
		wg.Go(func() {
			set := s
			if i%2 == 1 {
				set = unit
			}
			x, err := set.Symbols(context.Background())
			if err != nil {
				t.Error(err)
			}
			got[i] = x
		})
	}
	wg.Wait()
	for _, x := range got {
		if x != got[0] {
			t.Fatal("the index was read more than once")
		}
	}
	// A question cut short reads nothing for the next.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fresh := sharedFixture(t).set()
	if _, err := fresh.Symbols(ctx); err == nil {
		t.Error("a cancelled read of the index succeeded")
	}
	if x, err := fresh.Symbols(context.Background()); err != nil || x.Files() == 0 {
		t.Errorf("after a cancelled read: %v, %v", x, err)
	}
}

// TestSymbolsFromGit reads the index at a revision the work tree does not
// hold: from git's objects, as committed.
func TestSymbolsFromGit(t *testing.T) {
	f := sharedFixture(t)
	s := f.set(func(e *Env) { e.Head = f.base })
	out := mustOK(t, call(t, s, "find_references", `{"symbol": "Hello"}`))
	contains(t, out, "main.go:10: [main] fmt.Println(util.Hello())\n")
	if strings.Contains(out, "uncommitted") {
		t.Error("the work tree was read")
	}
}
