package tools

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/reviewdev/review/tools/toolstest"

	"github.com/reviewdev/review/toolmem"
)

func TestGetDependencies(t *testing.T) {
	f := sharedFixture(t)
	s := f.set()
	tests := []struct {
		name, args string
		want, lack []string
	}{
		{
			name: "every manifest, shallowest first",
			args: `{}`,
			want: []string{
				"dependency manifests in the repository at head",
				"go.mod: Go module example.com/app (go 1.22)\n  require (1):\n    golang.org/x/text v0.14.0\n  require (indirect) (1):\n    github.com/pkg/errors v0.9.1\n  replace (1):\n    golang.org/x/text => ../text",
				"web/package.json: npm package web 1.0.0\n  dependencies (2):\n    left-pad 1.3.0\n    react ^18.2.0\n  devDependencies (1):\n    typescript ~5.4.0\n",
				"rust/Cargo.toml: Rust crate crate 0.1.0",
				"ruby/Gemfile: Ruby Gemfile",
				"java/pom.xml: Maven project com.example:demo 1.0",
				"py/requirements.txt: pip requirements",
				"py/pyproject.toml: Python project pkg",
				"broken/package.json: could not be parsed:",
			},
			lack: []string{"vendor/x/go.mod"},
		},
		{
			name: "a directory",
			args: `{"path": "py"}`,
			want: []string{"2 dependency manifests under \"py\""},
			lack: []string{"go.mod"},
		},
		{
			name: "requirements.txt",
			args: `{"path": "py/requirements.txt"}`,
			want: []string{"requirements (2):\n    requests==2.31.0\n    flask>=2   ; python_version > '3.8'\n", "includes (1):\n    -r requirements-dev.txt", "editable (1):\n    git+https://example.com/x.git#egg=x"},
			lack: []string{"index-url", "# deps"},
		},
		{
			name: "pyproject.toml",
			args: `{"path": "py/pyproject.toml"}`,
			want: []string{"dependencies (2):\n    httpx>=0.27\n    pydantic\n", "optional-dependencies.test (1):\n    pytest", "tool.poetry.dependencies (2):\n    python ^3.11\n    rich ^13 optional=true", "build-system.requires (1):\n    hatchling"},
		},
		{
			name: "Cargo.toml",
			args: `{"path": "rust/Cargo.toml"}`,
			want: []string{"dependencies (2):\n    anyhow 1.0\n    serde 1\n", "dev-dependencies (1):\n    tempfile 3", "target.cfg(unix).dependencies (1):\n    libc 0.2"},
		},
		{
			name: "Gemfile",
			args: `{"path": "ruby/Gemfile"}`,
			want: []string{"gems (2):\n    rails ~> 7.1\n    puma\n", "group :development, :test (1):\n    rspec >= 3 < 4", "other (1):\n    ruby '3.2.0'"},
		},
		{
			name: "pom.xml",
			args: `{"path": "java/pom.xml"}`,
			want: []string{"dependencies (test) (1):\n    junit:junit 4.13", "dependencies (compile) (1):\n    com.google.guava:guava 33.0"},
		},
		{
			name: "Go source file: imports and importers of its package",
			args: `{"path": "util/util.go"}`,
			want: []string{"util/util.go (Go) at head imports 0:", `Files importing its package "example.com/app/util" (2 of `, "  cmd/tool/main.go\n  main.go\n", "Nearest manifest: go.mod"},
			lack: []string{"util/new.go\n"},
		},
		{
			name: "Go imports inside the module point at their directory",
			args: `{"path": "main.go"}`,
			want: []string{"imports 2:\n  fmt\n  example.com/app/util -> util/\n", `Files importing its package "example.com/app"`, "(none found)"},
		},
		{
			name: "TypeScript: relative imports resolved, importers found",
			args: `{"path": "web/src/lib/api.ts"}`,
			want: []string{"(JavaScript/TypeScript)", "Files importing it by relative path", "  web/src/app.tsx\n  web/src/index.ts\n  web/src/other.js\n", "Nearest manifest: web/package.json"},
			lack: []string{"unrelated.ts"},
		},
		{
			name: "TypeScript imports",
			args: `{"path": "web/src/app.tsx"}`,
			want: []string{"imports 3:\n  ./lib/api.js -> web/src/lib/api.ts\n  ./util\n  ./lazy\n"},
		},
		{
			name: "index.ts imports",
			args: `{"path": "web/src/index.ts"}`,
			want: []string{"imports 2:\n  ./lib/api -> web/src/lib/api.ts\n  react\n"},
		},
		{
			name: "Python: absolute, from and relative importers",
			args: `{"path": "py/pkg/core.py"}`,
			want: []string{"(Python) at head imports 4:\n  os\n  sys\n  typing:Any\n  typing:List\n", `Files importing module "pkg.core"`, "  py/main.py\n  py/other.py\n  py/pkg/cli.py\n  py/pkg/sub/deep.py\n", "Nearest manifest: py/pyproject.toml"},
			lack: []string{"unrelated.py"},
		},
		{
			name: "Python: relative import resolved to its file",
			args: `{"path": "py/pkg/cli.py"}`,
			want: []string{"  .:core -> py/pkg/core.py\n", "  py/unrelated.py\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustOK(t, call(t, s, "get_dependencies", tt.args))
			contains(t, out, tt.want...)
			lacks(t, out, tt.lack...)
		})
	}
}

func TestGetDependenciesErrors(t *testing.T) {
	f := sharedFixture(t)
	s := f.set()
	mustErr(t, call(t, s, "get_dependencies", `{"path": "README.md"}`), "neither a dependency manifest")
	mustErr(t, call(t, s, "get_dependencies", `{"path": "broken/package.json"}`), `"broken/package.json" could not be parsed`)
	mustErr(t, call(t, s, "get_dependencies", `{"path": "missing.go"}`), "no tracked file")
	mustErr(t, call(t, s, "get_dependencies", `{"path": "escape_link"}`), "leaves the repository")
	// docs/ was deleted at head.
	mustErr(t, call(t, s, "get_dependencies", `{"path": "docs"}`), `no tracked file "docs" at head`)
	out := mustOK(t, call(t, s, "get_dependencies", `{"path": "util"}`))
	if !strings.Contains(out, `no dependency manifests`) {
		t.Errorf("want no manifests under util:\n%s", out)
	}
}

func TestPyModuleName(t *testing.T) {
	f := sharedFixture(t)
	s := f.set()
	tr, err := s.tree(t.Context(), revHead)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{
		"py/pkg/core.py":         "pkg.core",
		"py/pkg/__init__.py":     "pkg",
		"py/pkg/sub/deep.py":     "pkg.sub.deep",
		"py/main.py":             "main",
		"py/pkg/sub/__init__.py": "pkg.sub",
	} {
		if got := pyModuleName(tr, p); got != want {
			t.Errorf("pyModuleName(%q) = %q, want %q", p, got, want)
		}
	}
}

// TestDependenciesWhole checks that get_dependencies lists every manifest
// and every dependency, and that its preview counts dependencies per
// manifest first.
func TestDependenciesWhole(t *testing.T) {
	r := newRepo(t, t.TempDir())
	files := map[string]string{}
	for i := range 45 {
		var deps []string
		for d := range 60 + i {
			deps = append(deps, fmt.Sprintf(`"dep%d": "^1.0.%d"`, d, d))
		}
		files[fmt.Sprintf("pkgs/p%02d/package.json", i)] = `{"name": "p", "dependencies": {` + strings.Join(deps, ", ") + `}}`
	}
	r.write(files)
	head := r.commit("manifests")
	store := toolstest.Store(t)
	s := New(Env{Root: r.root, Head: head, Store: store})
	a, err := s.Answer(context.Background(), Call{Run: "run-1", Step: 1, ID: "c", Name: "get_dependencies", Args: `{}`}, toolmem.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	contains(t, a.Output, "45 dependency manifests", "pkgs/p44/package.json: ", "  dependencies (104):\n", "    dep103 ^1.0.103\n")
	lacks(t, a.Output, "more manifests", "… ")
	second := strings.SplitN(a.Content, "\n", 3)[1]
	if !strings.HasPrefix(second, "[3690 dependencies in 45 manifests; most: pkgs/p44/package.json 104, ") {
		t.Errorf("preview's digest line %q", second)
	}
}
