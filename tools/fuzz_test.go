package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reviewdev/review/toolmem"
)

// FuzzCall feeds arbitrary tool names and arguments to Set.Call on a small
// repository: every call must return text, never panic, and never show
// what lies outside the repository.
func FuzzCall(f *testing.F) {
	dir := f.TempDir()
	root := filepath.Join(dir, "repo")
	os.Mkdir(root, 0o755)
	os.WriteFile(filepath.Join(dir, "outside.txt"), []byte("outside secret\n"), 0o644)
	r := newRepo(f, root)
	r.write(map[string]string{
		"go.mod":         "module example.com/m\n\ngo 1.22\n",
		"main.go":        "package main\n\nimport \"example.com/m/lib\"\n\nfunc main() { lib.F() }\n",
		"lib/lib.go":     "package lib\n\nfunc F() {}\n",
		"web/a.ts":       "import { b } from './b';\n",
		"web/b.ts":       "export const b = 1;\n",
		"package.json":   `{"dependencies": {"x": "1"}}`,
		"py/m.py":        "from . import n\n",
		"up":             "symlink:../outside.txt",
		"abs":            "symlink:/etc/passwd",
		"in":             "symlink:lib",
		"data.bin":       "\x00\x01",
		"notes/long.txt": lines(300, "note %d"),
	})
	base := r.commit("base")
	r.write(map[string]string{"lib/lib.go": "package lib\n\nfunc F() { println() }\n"})
	head := r.commit("head")
	store, err := toolmem.Open(filepath.Join(dir, "mem"), toolmem.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { store.Close() })
	ref, err := store.Put("fuzz", 1, "c1", "list_project_files", "{}", []byte(lines(200, "stored %d")))
	if err != nil {
		f.Fatal(err)
	}
	s := New(Env{Root: root, Head: head, Base: base, Store: store, Timeout: 10 * time.Second, MaxBytes: 64 << 10, Ignore: []string{"notes/secret*"}})

	for _, name := range s.Names() {
		f.Add(name, s.byName[name].example)
		f.Add(name, `{}`)
		f.Add(name, `{"path": "../outside.txt", "path_prefix": "/etc", "pattern": "(", "ref": "`+ref+`"}`)
	}
	for _, seed := range [][2]string{
		{"read_file_hunk", `{"path": "up", "start_line": 1, "end_line": 1}`},
		{"read_file_hunk", `{"path": "in/lib.go", "start_line": 1, "end_line": 1e9, "revision": "base"}`},
		{"read_file_hunk", `{"path": "abs", "start_line": "1", "end_line": -1}`},
		{"search_in_project", `{"pattern": "(?m)^$|\\A", "path_glob": "**", "max_results": 1, "context_lines": 10}`},
		{"get_file_diff", `{"path": "lib/lib.go"}`},
		{"get_dependencies", `{"path": "web/b.ts"}`},
		{"get_dependencies", `{"path": "py/m.py"}`},
		{"read_tool_output", `{"ref": "` + ref + `", "start_line": 150, "line_count": 400, "grep": null}`},
		{"read_tool_output", `{"ref": "` + ref + `", "grep": "stored 1\\d"}`},
		{"list_project_files", `{"path_prefix": ".git", "glob": "[", "limit": 1e400}`},
		{"list_project_files", "{\"path_prefix\": \"a\x00b\"}"},
		{"nope", `not json`},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, name, args string) {
		res := s.Call(context.Background(), name, args)
		if res.Output == "" {
			t.Fatalf("%s %s: empty output", name, args)
		}
		if res.IsError && !strings.HasPrefix(res.Output, "error: ") {
			t.Fatalf("%s %s: error result without the error prefix: %q", name, args, res.Output)
		}
		if strings.Contains(res.Output, "outside secret") || strings.Contains(res.Output, "root:x:0") {
			t.Fatalf("%s %s: read outside the repository:\n%s", name, args, res.Output)
		}
		if len(res.Output) > 64<<10 {
			t.Fatalf("%s %s: output of %d bytes, over MaxBytes", name, args, len(res.Output))
		}
		if name == "read_tool_output" {
			if a, err := s.Answer(context.Background(), Call{Run: "fuzz", Step: 2, ID: "c2", Name: name, Args: args}, toolmem.Limits{}); err != nil || a.Ref != "" {
				t.Fatalf("read_tool_output result stored again (ref %q, err %v)", a.Ref, err)
			}
		}
	})
}

// FuzzParseLsTree feeds arbitrary bytes, where git's ls-tree output would
// be (its paths come from the repository), to the parser: it returns
// entries or an error, never panics, and keeps each path whole.
func FuzzParseLsTree(f *testing.F) {
	f.Add([]byte("100644 blob 587be6b4c3f93f93c489c0111bba5596147a26cb       2\ta/b c\x00040000 tree 3c936162cc685914e15b63e7a7fc2afcb19d1fa1       -\ta\x00"))
	f.Add([]byte("120000 blob db89c972fc57862eae378f45b74aca228037d415 3\tl\ttab\x00"))
	f.Add([]byte("160000 commit 55e905c5e75ec0a3f86dc8a7cb59b85e4e50f80e -\tsub"))
	f.Add([]byte("100644 blob x\t\x00\x00 1 2 3 4 5\t"))
	f.Add([]byte("100644 blob 587be6b4c3f93f93c489c0111bba5596147a26cb -5\tneg"))
	f.Fuzz(func(t *testing.T, out []byte) {
		var n int
		err := parseLsTree(out, func(e entry) {
			n++
			if strings.IndexByte(e.path, 0) >= 0 || e.size < sizeUnknown {
				t.Fatalf("bad entry %+v", e)
			}
		})
		if err == nil {
			if tr, err := parseTree("rev", out); err != nil || len(tr.entries) != n {
				t.Fatalf("parseTree disagrees: %v", err)
			}
		}
	})
}
