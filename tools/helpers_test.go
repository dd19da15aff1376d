package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reviewdev/review/internal/gittest"
	"github.com/reviewdev/review/toolmem"
)

// TestMain isolates git from the user's configuration for every test,
// benchmark and fuzz target of the package. A call's default time limit
// is raised far above what any test needs (the huge diff takes under a
// second on an idle machine and took over 20 s beside other work): a
// test asserts what a call answers, and the tests of the limit set their
// own.
func TestMain(m *testing.M) {
	defaultTimeout = 10 * time.Minute
	code := gittest.Main(m)
	if fixtureDir != "" {
		os.RemoveAll(fixtureDir)
	}
	os.Exit(code)
}

// repo is a git repository built for a test.
type repo struct {
	*gittest.Repo
	t    testing.TB
	root string
}

func newRepo(t testing.TB, dir string) *repo {
	t.Helper()
	return &repo{Repo: gittest.Init(t, dir), t: t, root: dir}
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	return strings.TrimSpace(r.Git(args...))
}

// write writes files; a value starting with "symlink:" makes a symlink.
func (r *repo) write(files map[string]string) {
	r.t.Helper()
	r.Write(files)
}

func (r *repo) remove(names ...string) {
	r.t.Helper()
	r.git(append([]string{"rm", "-q", "--"}, names...)...)
}

// commit commits everything and returns the commit's SHA.
func (r *repo) commit(msg string) string {
	r.t.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

// fixture is a repository shared by the read-only tests: a base commit and
// a head commit that modifies, adds, deletes and renames files, plus
// uncommitted and untracked changes the tools must not see.
type fixture struct {
	root, base, head string
}

var (
	fixtureOnce sync.Once
	fixtureRepo fixture
	fixtureErr  error
	fixtureDir  string
)

func lines(n int, format string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, format+"\n", i)
	}
	return b.String()
}

// sharedFixture builds the fixture once per test binary.
func sharedFixture(t testing.TB) fixture {
	t.Helper()
	fixtureOnce.Do(func() {
		dir, err := os.MkdirTemp("", "tools-fixture-")
		if err != nil {
			fixtureErr = err
			return
		}
		fixtureDir = dir
		root := filepath.Join(dir, "repo")
		os.Mkdir(root, 0o755)
		os.WriteFile(filepath.Join(dir, "outside.txt"), []byte("outside secret\n"), 0o644)
		ft := &fatalRecorder{TB: t}
		func() {
			defer func() {
				if r := recover(); r != nil && r != errFatal {
					panic(r)
				}
			}()
			fixtureRepo = buildFixture(ft, root)
		}()
		if ft.msg != "" {
			fixtureErr = fmt.Errorf("building fixture: %s", ft.msg)
		}
	})
	if fixtureErr != nil {
		t.Fatal(fixtureErr)
	}
	return fixtureRepo
}

// fatalRecorder turns Fatal into a recorded message, so that a fixture
// shared by many tests fails all of them the same way.
type fatalRecorder struct {
	testing.TB
	msg string
}

var errFatal = fmt.Errorf("fatal")

func (f *fatalRecorder) Fatal(args ...any) { f.msg = fmt.Sprint(args...); panic(errFatal) }
func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(errFatal)
}
func (f *fatalRecorder) Helper() {}

func buildFixture(t testing.TB, root string) fixture {
	r := newRepo(t, root)
	r.write(map[string]string{
		".gitignore":             "*.log\n",
		"go.mod":                 "module example.com/app\n\ngo 1.22\n\nrequire (\n\tgolang.org/x/text v0.14.0\n\tgithub.com/pkg/errors v0.9.1 // indirect\n)\n\nreplace golang.org/x/text => ../text\n",
		"main.go":                "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/app/util\"\n)\n\nfunc main() {\n\tfmt.Println(util.Hello())\n}\n",
		"util/util.go":           "package util\n\n// Hello greets.\nfunc Hello() string {\n\treturn \"hello\"\n}\n",
		"util/old.go":            "package util\n\n" + lines(30, "// old line %d"),
		"cmd/tool/main.go":       "package main\n\nimport \"example.com/app/util\"\n\nfunc main() { _ = util.Hello() }\n",
		"README.md":              "# App\n\nTODO: write docs\n",
		"docs/guide.md":          "guide\n",
		"long.txt":               lines(1000, "line %d"),
		"noeol.txt":              "first\nsecond",
		"empty.txt":              "",
		"crlf.txt":               "one\r\ntwo\r\n",
		"bin/data.bin":           "BIN\x00\x01\x02 needle\n",
		"secret/key.pem":         "needle secret\n",
		"web/package.json":       `{"name": "web", "version": "1.0.0", "dependencies": {"react": "^18.2.0", "left-pad": "1.3.0"}, "devDependencies": {"typescript": "~5.4.0"}}`,
		"web/src/index.ts":       "import { api } from './lib/api';\nimport React from \"react\";\nexport * from './lib/api'\n",
		"web/src/lib/api.ts":     "export const api = 1;\n",
		"web/src/app.tsx":        "import {\n  api,\n} from './lib/api.js';\nconst x = require('./util');\nconst y = await import(\"./lazy\");\n",
		"web/src/other.js":       "const api = require('./lib/api');\n",
		"web/src/unrelated.ts":   "import { z } from './zzz';\n",
		"py/requirements.txt":    "# deps\nrequests==2.31.0  # http\n-r requirements-dev.txt\n--index-url https://example.com/simple\nflask>=2 \\\n  ; python_version > '3.8'\n-e git+https://example.com/x.git#egg=x\n",
		"py/pyproject.toml":      "[project]\nname = \"pkg\"\ndependencies = [\"httpx>=0.27\", \"pydantic\"]\n[project.optional-dependencies]\ntest = [\"pytest\"]\n[tool.poetry.dependencies]\npython = \"^3.11\"\nrich = {version = \"^13\", optional = true}\n[build-system]\nrequires = [\"hatchling\"]\n",
		"py/pkg/__init__.py":     "",
		"py/pkg/core.py":         "import os, sys as system\nfrom typing import (\n    Any,\n    List,\n)\n\ndef run(): pass\n",
		"py/pkg/cli.py":          "from . import core\n",
		"py/pkg/sub/__init__.py": "",
		"py/pkg/sub/deep.py":     "from ..core import run\n",
		"py/main.py":             "from pkg.core import run\n",
		"py/other.py":            "import pkg.core\nimport json\n",
		"py/unrelated.py":        "import pkg.cli\n",
		"rust/Cargo.toml":        "[package]\nname = \"crate\"\nversion = \"0.1.0\"\n[dependencies]\nserde = { version = \"1\", features = [\"derive\"] }\nanyhow = \"1.0\"\n[dev-dependencies]\ntempfile = \"3\"\n[target.'cfg(unix)'.dependencies]\nlibc = \"0.2\"\n",
		"ruby/Gemfile":           "source 'https://rubygems.org'\nruby '3.2.0'\ngem 'rails', '~> 7.1'\ngroup :development, :test do\n  gem \"rspec\", \">= 3\", \"< 4\"\nend\ngem 'puma'\n",
		"java/pom.xml":           "<project><groupId>com.example</groupId><artifactId>demo</artifactId><version>1.0</version><dependencies><dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13</version><scope>test</scope></dependency><dependency><groupId>com.google.guava</groupId><artifactId>guava</artifactId><version>33.0</version></dependency></dependencies></project>",
		"vendor/x/go.mod":        "module vendored\n",
		"broken/package.json":    "{not json",
		"link_inside":            "symlink:util/util.go",
		"link_dir":               "symlink:util",
		"etc_link":               "symlink:/etc",
		"escape_link":            "symlink:../outside.txt",
		"git_link":               "symlink:.git/config",
		"nested/up_link":         "symlink:../../outside.txt",
		"nested/ok_link":         "symlink:../util/util.go",
		"loop_a":                 "symlink:loop_b",
		"loop_b":                 "symlink:loop_a",
		"big/huge.txt":           strings.Repeat("needle in a haystack\n", 60000),
	})
	base := r.commit("base")
	// A gitlink, as a submodule leaves in the tree.
	r.git("update-index", "--add", "--cacheinfo", "160000,"+base+",sub")
	r.write(map[string]string{
		"main.go":        "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/app/util\"\n)\n\nfunc main() {\n\tfmt.Println(util.Hello(), \"world\")\n}\n",
		"util/new.go":    "package util\n\nfunc New() int { return 1 }\n",
		"a*.txt":         "star\n",
		"ab.txt":         "ab\n",
		"space name.txt": "spaced needle\n",
		"unicodé.txt":    "héllo needle\n",
		"long.txt":       lines(1000, "line %d") + "line 1001\n",
	})
	r.remove("docs/guide.md")
	r.git("mv", "util/old.go", "util/renamed.go")
	r.git("add", "-A")
	r.git("update-index", "--add", "--cacheinfo", "160000,"+base+",sub")
	r.git("commit", "-q", "-m", "head")
	head := r.git("rev-parse", "HEAD")
	// Work-tree changes the tools must not see: they review head.
	r.write(map[string]string{
		"main.go":      "package main // uncommitted\n",
		"untracked.go": "package untracked\n",
		"debug.log":    "ignored needle\n",
	})
	return fixture{root: root, base: base, head: head}
}

// set returns tools over the shared fixture.
func (f fixture) set(opts ...func(*Env)) *Set {
	env := Env{Root: f.root, Head: f.head, Base: f.base}
	for _, o := range opts {
		o(&env)
	}
	return New(env)
}

// call runs a tool and fails the test on a panic-free but unexpected
// error state.
func call(t testing.TB, s *Set, name, args string) Result {
	t.Helper()
	return s.Call(context.Background(), name, args)
}

// answer runs a call as the agent does, storing its output under a run
// of the test's own.
func answer(t testing.TB, s *Set, name, args string) Answer {
	t.Helper()
	a, err := s.Answer(context.Background(), Call{Run: "run-test", Step: 1, ID: "call_t", Name: name, Args: args}, toolmem.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func mustOK(t testing.TB, res Result) string {
	t.Helper()
	if res.IsError {
		t.Fatalf("unexpected error result:\n%s", res.Output)
	}
	return res.Output
}

func mustErr(t testing.TB, res Result, want ...string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want an error result, got:\n%s", res.Output)
	}
	for _, w := range want {
		if !strings.Contains(res.Output, w) {
			t.Errorf("error result lacks %q:\n%s", w, res.Output)
		}
	}
}

func contains(t testing.TB, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

func lacks(t testing.TB, out string, bad ...string) {
	t.Helper()
	for _, b := range bad {
		if strings.Contains(out, b) {
			t.Errorf("output has %q:\n%s", b, out)
		}
	}
}
