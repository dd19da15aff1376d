package reviewtest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reviewdev/review/review/reviewtest"
)

func TestSchemaPath(t *testing.T) {
	p, err := reviewtest.SchemaPath()
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(p) != "openai-chat-completions.json" {
		t.Errorf("path = %s", p)
	}
	if _, err := os.Stat(p); err != nil {
		t.Error(err)
	}
}

func TestSchemaPathNotFound(t *testing.T) {
	t.Chdir(t.TempDir())
	if _, err := reviewtest.SchemaPath(); err == nil || !strings.Contains(err.Error(), "shared/schemas") {
		t.Errorf("err = %v", err)
	}
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
