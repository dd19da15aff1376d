package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/reviewdev/review/internal/text"
)

var toolNames = []string{"list_project_files", "search_in_project", "read_file_hunk", "get_file_diff", "get_dependencies", "find_definition", "find_references", "read_tool_output"}

func TestDefinitions(t *testing.T) {
	s := New(Env{Root: "/nonexistent"})
	if got := s.Names(); !slices.Equal(got, toolNames) {
		t.Errorf("Names() = %v, want %v", got, toolNames)
	}
	defs := s.Definitions()
	for i, d := range defs {
		t.Run(d.Name, func(t *testing.T) {
			if d.Name != toolNames[i] {
				t.Errorf("definition %d is %q, want %q", i, d.Name, toolNames[i])
			}
			if d.Description == "" {
				t.Error("no description")
			}
			schema := compileSchema(t, d)
			if d.Strict {
				checkStrict(t, d.Parameters)
			}
			// The example shown in error messages is a valid call.
			var example any
			if err := json.Unmarshal([]byte(s.byName[d.Name].example), &example); err != nil {
				t.Fatalf("example is not JSON: %v", err)
			}
			if err := schema.Validate(example); err != nil {
				t.Errorf("example %s does not validate: %v", s.byName[d.Name].example, err)
			}
			// What the schema allows, Call accepts as arguments.
			if res := s.byName[d.Name]; res == nil {
				t.Fatal("not callable")
			}
			if _, err := s.byName[d.Name].check(s.byName[d.Name].example); err != nil {
				t.Errorf("check rejects the example: %v", err)
			}
		})
	}
	// Definitions encode as a function list, stably.
	a, _ := json.Marshal(defs)
	b, _ := json.Marshal(New(Env{}).Definitions())
	if string(a) != string(b) {
		t.Error("definitions differ between sets")
	}
}

// TestDeclaredLimits holds the schema's limits to the checks of a call: a
// value below a property's minimum is an argument error, one above its
// maximum is run with the maximum and says so, and the description states
// the default.
func TestDeclaredLimits(t *testing.T) {
	s := New(Env{Root: "/nonexistent"})
	limits := 0
	for _, d := range s.Definitions() {
		var schema struct {
			Properties map[string]struct {
				Minimum     *int
				Maximum     *int
				Description string
			}
		}
		if err := json.Unmarshal(d.Parameters, &schema); err != nil {
			t.Fatal(err)
		}
		for name, p := range schema.Properties {
			with := func(v int) string {
				var args map[string]any
				json.Unmarshal([]byte(s.byName[d.Name].example), &args)
				args[name] = v
				b, _ := json.Marshal(args)
				return string(b)
			}
			if p.Minimum != nil {
				limits++
				err := s.Check(d.Name, with(*p.Minimum-1))
				var ae *ArgError
				if !errors.As(err, &ae) || ae.Arg != name || !strings.HasPrefix(ae.Problem, fmt.Sprintf("must be at least %d", *p.Minimum)) {
					t.Errorf("%s %s below its minimum: %v", d.Name, name, err)
				}
				if err := s.Check(d.Name, with(*p.Minimum)); err != nil {
					t.Errorf("%s %s at its minimum: %v", d.Name, name, err)
				}
			}
			if p.Maximum != nil {
				limits++
				a, err := s.byName[d.Name].check(with(*p.Maximum + 1))
				want := fmt.Sprintf("%s %d lowered to the maximum, %d", name, *p.Maximum+1, *p.Maximum)
				if err != nil || !slices.Contains(a.Notes(), want) {
					t.Errorf("%s %s above its maximum: notes %q, err %v", d.Name, name, a.Notes(), err)
				}
			}
			for _, param := range s.byName[d.Name].spec.Params {
				if param.name == name && param.def != nil {
					contains(t, p.Description, "Null for "+jsonValue(param.def)+".")
				}
			}
		}
	}
	if limits < 7 {
		t.Errorf("only %d limits declared; the tools' integer arguments lost theirs", limits)
	}
	// Defaults fill in what a call leaves out or sends as null.
	a, err := s.byName["list_project_files"].check(`{"limit": null}`)
	if err != nil {
		t.Fatal(err)
	}
	var la listArgs
	if err := a.Decode(&la); err != nil || la.Limit != 0 || la.Offset != 0 || a.Given("limit") {
		t.Errorf("decoded %+v (given %v, err %v), want the defaults", la, a.Given("limit"), err)
	}
}

func compileSchema(t *testing.T, d Definition) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(d.Parameters)))
	if err != nil {
		t.Fatalf("parameters are not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	url := "mem://" + d.Name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile(url)
	if err != nil {
		t.Fatalf("parameters are not a valid JSON Schema: %v", err)
	}
	return schema
}

// strictKeywords are the schema keywords OpenAI's strict mode accepts:
// minimum and maximum are among those it supports for numbers. default is
// not: a strict schema holding it is refused.
var strictKeywords = []string{"type", "description", "properties", "required", "additionalProperties", "enum", "items", "anyOf", "$defs", "$ref", "const", "minimum", "maximum"}

// checkStrict applies the rules of OpenAI's strict mode: objects list every
// property as required and forbid others, only supported keywords appear,
// and nesting and size stay within the limits.
func checkStrict(t *testing.T, raw json.RawMessage) {
	t.Helper()
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		t.Fatal(err)
	}
	if root["type"] != "object" {
		t.Errorf("root type is %v, want object", root["type"])
	}
	props := 0
	var walk func(path string, s map[string]any, depth int)
	walk = func(path string, s map[string]any, depth int) {
		if depth > 5 {
			t.Errorf("%s: nested deeper than 5 levels", path)
		}
		for k := range s {
			if !slices.Contains(strictKeywords, k) {
				t.Errorf("%s: keyword %q is not supported in strict mode", path, k)
			}
		}
		if _, ok := s["type"]; !ok && s["anyOf"] == nil && s["$ref"] == nil {
			t.Errorf("%s: no type", path)
		}
		if enum, ok := s["enum"].([]any); ok {
			types := typesOf(s["type"])
			for _, v := range enum {
				if v == nil && !slices.Contains(types, "null") {
					t.Errorf("%s: enum has null but type does not allow it", path)
				}
			}
			if slices.Contains(types, "null") && !slices.Contains(enum, any(nil)) {
				t.Errorf("%s: nullable enum must list null", path)
			}
		}
		if !slices.Contains(typesOf(s["type"]), "object") {
			return
		}
		if s["additionalProperties"] != false {
			t.Errorf("%s: additionalProperties must be false", path)
		}
		properties, _ := s["properties"].(map[string]any)
		var required []string
		for _, r := range s["required"].([]any) {
			required = append(required, r.(string))
		}
		for name, p := range properties {
			props++
			if !slices.Contains(required, name) {
				t.Errorf("%s: property %q is not in required", path, name)
			}
			walk(path+"."+name, p.(map[string]any), depth+1)
		}
		if len(required) != len(properties) {
			t.Errorf("%s: required lists %d names for %d properties", path, len(required), len(properties))
		}
	}
	walk("parameters", root, 1)
	if props > 100 {
		t.Errorf("%d properties, over strict mode's 100", props)
	}
}

func typesOf(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			out = append(out, fmt.Sprint(x))
		}
		return out
	}
	return nil
}

func TestCallErrors(t *testing.T) {
	f := sharedFixture(t)
	s := f.set()
	tests := []struct {
		name, tool, args string
		want             []string
	}{
		{"unknown tool", "rm_rf", `{}`, []string{`unknown tool "rm_rf"; the tools are: list_project_files, search_in_project, read_file_hunk, get_file_diff, get_dependencies, find_definition, find_references, read_tool_output`}},
		{"empty tool name", "", `{}`, []string{"unknown tool"}},
		{"not JSON", "read_file_hunk", `{"path": `, []string{"read_file_hunk arguments must be a JSON object, e.g. {\"path\": \"src/main.go\""}},
		{"array", "list_project_files", `[1, 2]`, []string{"must be a JSON object"}},
		{"string", "list_project_files", `"main.go"`, []string{"must be a JSON object"}},
		{"trailing garbage", "list_project_files", `{} {}`, []string{"must be a JSON object"}},
		{"unknown argument", "read_file_hunk", `{"file": "main.go", "start_line": 1, "end_line": 2}`, []string{`read_file_hunk argument "file" is unknown; the arguments are path, start_line, end_line, revision (e.g. {"path": "src/main.go", `}},
		{"missing required", "read_file_hunk", `{"path": "main.go"}`, []string{`read_file_hunk argument "start_line" is missing; required: path, start_line, end_line (e.g. `}},
		{"wrong type", "search_in_project", `{"pattern": ["a"]}`, []string{`"pattern" must be a string`}},
		{"bool for integer", "list_project_files", `{"limit": true}`, []string{`"limit" must be an integer`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustErr(t, call(t, s, tt.tool, tt.args), tt.want...)
		})
	}
	// Empty and null arguments are an empty object.
	mustOK(t, call(t, s, "list_project_files", ``))
	mustOK(t, call(t, s, "list_project_files", `null`))
}

func TestCallEnvironment(t *testing.T) {
	f := sharedFixture(t)
	tests := []struct {
		name string
		env  Env
		args string
		want []string
	}{
		{"no root", Env{}, `{}`, []string{"repository root is not set"}},
		{"relative root", Env{Root: "repo"}, `{}`, []string{"repository root is not set to an absolute path"}},
		{"not a repository", Env{Root: t.TempDir()}, `{}`, []string{"resolving head revision", "not a git repository"}},
		{"bad head", Env{Root: f.root, Head: "no-such-branch"}, `{}`, []string{`resolving head revision "no-such-branch"`}},
		{"option-looking head", Env{Root: f.root, Head: "--output=/tmp/x"}, `{}`, []string{"resolving head revision"}},
		{"timeout", Env{Root: f.root, Head: f.head, Timeout: time.Nanosecond}, `{}`, []string{"list_project_files timed out after 1ns; ask for less"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustErr(t, call(t, New(tt.env), "list_project_files", tt.args), tt.want...)
		})
	}
	// Head defaults to HEAD, which is the fixture's head commit.
	out := mustOK(t, call(t, New(Env{Root: f.root}), "read_file_hunk", `{"path": "main.go", "start_line": 10, "end_line": 10}`))
	contains(t, out, `"world"`)
}

func TestCallCancelled(t *testing.T) {
	f := sharedFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	mustErr(t, f.set().Call(ctx, "search_in_project", `{"pattern": "x"}`), "search_in_project was cancelled")
}

func TestCallMaxBytes(t *testing.T) {
	f := sharedFixture(t)
	s := f.set(func(e *Env) { e.MaxBytes = 500 })
	out := mustOK(t, call(t, s, "read_file_hunk", `{"path": "long.txt", "start_line": 1, "end_line": 400}`))
	if len(out) > 500 {
		t.Errorf("output is %d bytes, over MaxBytes", len(out))
	}
	contains(t, out, "[output cut at 500 of ", "ask for less")
}

func TestCallConcurrent(t *testing.T) {
	f := sharedFixture(t)
	s := f.set()
	var wg sync.WaitGroup
	calls := [][2]string{
		{"list_project_files", `{}`},
		{"search_in_project", `{"pattern": "needle"}`},
		{"read_file_hunk", `{"path": "main.go", "start_line": 1, "end_line": 3}`},
		{"get_file_diff", `{"path": "main.go"}`},
		{"get_dependencies", `{"path": "util/util.go"}`},
	}
	for i := range 20 {
		wg.Go(func() {
			c := calls[i%len(calls)]
			if res := s.Call(context.Background(), c[0], c[1]); res.IsError {
				t.Errorf("%s: %s", c[0], res.Output)
			}
		})
	}
	wg.Wait()
}

// TestSandbox sends escape attempts to every tool that takes a path.
func TestSandbox(t *testing.T) {
	f := sharedFixture(t)
	s := f.set()
	attempts := []struct {
		path string
		want string
	}{
		{"/etc/passwd", "is absolute"},
		{f.root + "/main.go", `e.g. "main.go"`},
		{`C:\Windows\win.ini`, "is absolute"},
		{`\\server\share`, "is absolute"},
		{"../x", "leaves the repository"},
		{"..", "leaves the repository"},
		{"a/../../x", "leaves the repository"},
		{"util/../../../etc/passwd", "leaves the repository"},
		{".git/config", "inside .git"},
		{"./.git/HEAD", "inside .git"},
		{"util/../.git/config", "inside .git"},
		{".GIT/config", "inside .git"},
		{"sub/.git/config", "inside .git"},
		{".git", "inside .git"},
		{"main.go\x00.txt", "NUL byte"},
		{"etc_link/passwd", `"etc_link" is a symlink to "/etc", outside the repository`},
		{"etc_link", "outside the repository"},
		{"escape_link", `"escape_link" is a symlink to "../outside.txt", which leaves the repository`},
		{"nested/up_link", "leaves the repository"},
		{"git_link", "symlink into .git"},
	}
	tools := []struct{ name, args string }{
		{"read_file_hunk", `{"path": %s, "start_line": 1, "end_line": 5}`},
		{"get_dependencies", `{"path": %s}`},
		{"get_file_diff", `{"path": %s}`},
		{"list_project_files", `{"path_prefix": %s}`},
	}
	for _, tool := range tools {
		for _, a := range attempts {
			// Symlinks are only followed by tools that read content.
			link := strings.Contains(a.path, "link")
			if link && (tool.name == "list_project_files" || tool.name == "get_file_diff") {
				continue
			}
			t.Run(tool.name+"/"+a.path, func(t *testing.T) {
				res := call(t, s, tool.name, fmt.Sprintf(tool.args, text.QuoteJSON(a.path)))
				mustErr(t, res, a.want)
				lacks(t, res.Output, "outside secret", "root:x:0", "[core]")
			})
		}
	}
	// A listing shows links as links, a diff shows a link's target text;
	// neither reads through them.
	out := mustOK(t, call(t, s, "list_project_files", `{"path_prefix": "etc_link"}`))
	contains(t, out, "etc_link symlink")
	// Search never follows links.
	out = mustOK(t, call(t, s, "search_in_project", `{"pattern": "outside secret|root:"}`))
	contains(t, out, "no matches")
}

// TestReadOnly runs every tool and checks that neither the work tree nor
// the .git directory changed.
func TestReadOnly(t *testing.T) {
	f := sharedFixture(t)
	before := snapshot(t, f.root)
	s := f.set()
	for _, c := range [][2]string{
		{"list_project_files", `{}`},
		{"search_in_project", `{"pattern": "needle", "context_lines": 2}`},
		{"read_file_hunk", `{"path": "link_inside", "start_line": 1, "end_line": 3}`},
		{"read_file_hunk", `{"path": "main.go", "start_line": 1, "end_line": 3, "revision": "base"}`},
		{"get_file_diff", `{"path": "util/renamed.go"}`},
		{"get_dependencies", `{}`},
		{"get_dependencies", `{"path": "py/pkg/core.py"}`},
	} {
		mustOK(t, call(t, s, c[0], c[1]))
	}
	if after := snapshot(t, f.root); after != before {
		t.Errorf("the repository changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// snapshot lists every file under root with its size, mode and time.
func snapshot(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %v %d\n", strings.TrimPrefix(p, root), info.Size(), info.Mode(), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestCapText(t *testing.T) {
	text := strings.Repeat("héllo wörld\n", 100)
	for _, max := range []int{0, 1, 10, 50, 100, 150, 500, len(text)} {
		got := capText(text, max)
		if len(got) > max && max < len(text) {
			t.Errorf("capText(_, %d) is %d bytes", max, len(got))
		}
		if !utf8Valid(got) {
			t.Errorf("capText(_, %d) split a rune: %q", max, got)
		}
	}
	if got := capText("short", 100); got != "short" {
		t.Errorf("short text changed: %q", got)
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
