package reviewtest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reviewdev/review/review/reviewtest"
)

func TestSchemaPath(t *testing.T) {
	for _, name := range []string{reviewtest.OpenAISchema, reviewtest.SARIFSchema} {
		p, err := reviewtest.SchemaPath(name)
		if err != nil {
			t.Fatal(err)
		}
		// The module's own copy: testdata/schemas at the root, two levels up.
		want, err := filepath.Abs(filepath.Join("..", "..", "testdata", "schemas", name))
		if err != nil {
			t.Fatal(err)
		}
		if p != want {
			t.Errorf("SchemaPath(%q) = %s, want %s", name, p, want)
		}
	}
}

// TestSchemaPathMissing: the lookup stops at the module root and fails
// when the schema is not vendored there, or when there is no module; a
// copy beside the clone is never read.
func TestSchemaPathMissing(t *testing.T) {
	dir := t.TempDir()
	write := func(p, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "testdata", "schemas", reviewtest.OpenAISchema), "{}")
	root := filepath.Join(dir, "clone")
	pkg := filepath.Join(root, "review", "x")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(pkg)

	if _, err := reviewtest.SchemaPath(reviewtest.OpenAISchema); err == nil || !strings.Contains(err.Error(), "no go.mod") {
		t.Errorf("no module: err = %v", err)
	}
	write(filepath.Join(root, "go.mod"), "module x\n")
	if _, err := reviewtest.SchemaPath(reviewtest.OpenAISchema); err == nil || !strings.Contains(err.Error(), "is not in the module's testdata/schemas") {
		t.Errorf("only beside the module: err = %v", err)
	}
	own := filepath.Join(root, "testdata", "schemas", reviewtest.OpenAISchema)
	write(own, "{}")
	p, err := reviewtest.SchemaPath(reviewtest.OpenAISchema)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := stat(t, p), stat(t, own); !os.SameFile(a, b) {
		t.Errorf("SchemaPath = %s, want %s", p, own)
	}
}

func stat(t *testing.T, p string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

func TestValidateRequest(t *testing.T) {
	tests := []struct {
		name, body string
		valid      bool
	}{
		{name: "minimal", body: `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, valid: true},
		{
			name: "tool loop",
			body: `{"model":"m","messages":[
				{"role":"system","content":"s"},
				{"role":"user","content":"u"},
				{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},
				{"role":"tool","tool_call_id":"c1","content":"out"}],
				"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"},"strict":true}}],
				"tool_choice":{"type":"function","function":{"name":"f"}},
				"temperature":0,"max_tokens":100}`,
			valid: true,
		},
		// OpenAPI's nullable must be honoured: null is a valid value here.
		{name: "nullable", body: `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_completion_tokens":null}`, valid: true},
		{name: "no messages", body: `{"model":"m","messages":[]}`},
		{name: "no model", body: `{"messages":[{"role":"user","content":"hi"}]}`},
		{name: "tool result without call id", body: `{"model":"m","messages":[{"role":"tool","content":"x"}]}`},
		{name: "tool call without arguments", body: `{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f"}}]}]}`},
		{name: "temperature too high", body: `{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":3}`},
		{name: "bad tool choice", body: `{"model":"m","messages":[{"role":"user","content":"hi"}],"tool_choice":"sometimes"}`},
		{name: "not json", body: `{"model":`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := reviewtest.ValidateRequest([]byte(tt.body))
			if tt.valid && err != nil {
				t.Errorf("valid body rejected: %v", err)
			}
			if !tt.valid && err == nil {
				t.Error("invalid body accepted")
			}
		})
	}
}

func TestValidateResponse(t *testing.T) {
	if err := reviewtest.ValidateResponse([]byte(`{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[]}`)); err != nil {
		t.Errorf("valid response rejected: %v", err)
	}
	if err := reviewtest.ValidateResponse([]byte(`{"id":"x","object":"chat.completion","model":"m","choices":[]}`)); err == nil {
		t.Error("response without created accepted")
	}
}
