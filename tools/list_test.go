package tools

import (
	"strings"
	"testing"
)

func TestListProjectFiles(t *testing.T) {
	f := sharedFixture(t)
	s := f.set()
	tests := []struct {
		name, args string
		want, lack []string
	}{
		{
			name: "whole repository at head",
			args: `{}`,
			want: []string{"main.go 110\n", "util/renamed.go", "util/new.go", "link_inside symlink\n", "sub submodule\n", "space name.txt", "unicodé.txt", "a*.txt"},
			// Head's view: deleted and renamed-away files, untracked and
			// ignored files are not there.
			lack: []string{"docs/guide.md", "util/old.go", "untracked.go", "debug.log", ".git/"},
		},
		{
			name: "directory prefix",
			args: `{"path_prefix": "util"}`,
			want: []string{"3 files under \"util\"", "util/new.go", "util/renamed.go", "util/util.go"},
			lack: []string{"main.go"},
		},
		{
			name: "prefix with slash and dot",
			args: `{"path_prefix": "./web/src/"}`,
			want: []string{"web/src/index.ts", "web/src/lib/api.ts"},
			lack: []string{"web/package.json"},
		},
		{
			name: "glob without slash matches names at any depth",
			args: `{"glob": "*.ts"}`,
			want: []string{"web/src/index.ts", "web/src/lib/api.ts", "web/src/unrelated.ts"},
			lack: []string{"app.tsx", "main.go"},
		},
		{
			name: "glob with slash matches whole paths",
			args: `{"glob": "web/**/*.ts?"}`,
			want: []string{"web/src/app.tsx"},
			lack: []string{"index.ts"},
		},
		{
			name: "nulls are defaults",
			args: `{"path_prefix": null, "glob": null, "limit": null, "offset": null}`,
			want: []string{"main.go"},
		},
		{
			name: "file prefix lists the file",
			args: `{"path_prefix": "main.go"}`,
			want: []string{"1 file under \"main.go\"", "main.go 110"},
		},
		{
			name: "no match",
			args: `{"glob": "*.nothing"}`,
			want: []string{"no tracked files matching \"*.nothing\""},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustOK(t, call(t, s, "list_project_files", tt.args))
			contains(t, out, tt.want...)
			lacks(t, out, tt.lack...)
		})
	}
}

func TestListProjectFilesPaging(t *testing.T) {
	f := sharedFixture(t)
	s := f.set()
	out := mustOK(t, call(t, s, "list_project_files", `{"path_prefix": "py", "limit": 3}`))
	contains(t, out, "showing 1-3",
		`more files: call list_project_files {"path_prefix": "py", "limit": 3, "offset": 3}`,
		"Matching files by directory: py/pkg/ (")
	if n := strings.Count(out, "\npy/"); n != 3 {
		t.Errorf("want 3 files on the page, got %d:\n%s", n, out)
	}
	out = mustOK(t, call(t, s, "list_project_files", `{"path_prefix": "py", "limit": 3, "offset": 3}`))
	contains(t, out, "showing 4-6")

	// Without a limit the list is whole; a string number is accepted.
	out = mustOK(t, call(t, s, "list_project_files", `{}`))
	lacks(t, out, "more files")
	all := strings.Count(out, "\n") - 1
	out = mustOK(t, call(t, s, "list_project_files", `{"limit": "1000000000"}`))
	lacks(t, out, "more files", "lowered")
	if n := strings.Count(out, "\n") - 1; n != all || all < 10 {
		t.Errorf("a huge limit listed %d files, the whole list %d", n, all)
	}

	mustErr(t, call(t, s, "list_project_files", `{"offset": 100000}`), "past the end")
	mustErr(t, call(t, s, "list_project_files", `{"offset": -1}`), `list_project_files argument "offset" must be at least 0 (or null for 0), got -1`)
	mustErr(t, call(t, s, "list_project_files", `{"limit": 0}`), `list_project_files argument "limit" must be at least 1, got 0`)
	mustErr(t, call(t, s, "list_project_files", `{"path_prefix": "nope"}`), `no tracked file or directory "nope"`)
	mustErr(t, call(t, s, "list_project_files", `{"glob": "[a-"}`), "not a valid glob")
}

func TestListProjectFilesIgnore(t *testing.T) {
	f := sharedFixture(t)
	s := f.set(func(e *Env) { e.Ignore = []string{"secret", "*.md", "web/src/lib/**"} })
	out := mustOK(t, call(t, s, "list_project_files", `{}`))
	lacks(t, out, "secret/key.pem", "README.md", "web/src/lib/api.ts")
	contains(t, out, "web/src/index.ts")
	mustErr(t, call(t, s, "list_project_files", `{"path_prefix": "secret"}`), "excluded from this review")
}
