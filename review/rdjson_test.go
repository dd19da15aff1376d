package review

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// rdjsonSchema is reviewdog's DiagnosticResult schema
// (proto/rdf/jsonschema/DiagnosticResult.json), descriptions left out.
const rdjsonSchema = `{
  "$schema": "http://json-schema.org/draft-04/schema#",
  "$ref": "#/definitions/DiagnosticResult",
  "definitions": {
    "DiagnosticResult": {
      "properties": {
        "diagnostics": {"items": {"$ref": "#/definitions/reviewdog.rdf.Diagnostic"}, "type": "array"},
        "source": {"$ref": "#/definitions/reviewdog.rdf.Source", "additionalProperties": true},
        "severity": {"enum": ["UNKNOWN_SEVERITY", 0, "ERROR", 1, "WARNING", 2, "INFO", 3], "oneOf": [{"type": "string"}, {"type": "integer"}]}
      },
      "additionalProperties": true,
      "type": "object"
    },
    "reviewdog.rdf.Code": {
      "properties": {"value": {"type": "string"}, "url": {"type": "string"}},
      "additionalProperties": true,
      "type": "object"
    },
    "reviewdog.rdf.Diagnostic": {
      "properties": {
        "message": {"type": "string"},
        "location": {"$ref": "#/definitions/reviewdog.rdf.Location", "additionalProperties": true},
        "severity": {"enum": ["UNKNOWN_SEVERITY", 0, "ERROR", 1, "WARNING", 2, "INFO", 3], "oneOf": [{"type": "string"}, {"type": "integer"}]},
        "source": {"$ref": "#/definitions/reviewdog.rdf.Source", "additionalProperties": true},
        "code": {"$ref": "#/definitions/reviewdog.rdf.Code", "additionalProperties": true},
        "suggestions": {"items": {"$ref": "#/definitions/reviewdog.rdf.Suggestion"}, "type": "array"},
        "original_output": {"type": "string"}
      },
      "additionalProperties": true,
      "type": "object"
    },
    "reviewdog.rdf.Location": {
      "properties": {
        "path": {"type": "string"},
        "range": {"$ref": "#/definitions/reviewdog.rdf.Range", "additionalProperties": true}
      },
      "additionalProperties": true,
      "type": "object"
    },
    "reviewdog.rdf.Position": {
      "properties": {"line": {"type": "integer"}, "column": {"type": "integer"}},
      "additionalProperties": true,
      "type": "object"
    },
    "reviewdog.rdf.Range": {
      "properties": {
        "start": {"$ref": "#/definitions/reviewdog.rdf.Position", "additionalProperties": true},
        "end": {"$ref": "#/definitions/reviewdog.rdf.Position", "additionalProperties": true}
      },
      "additionalProperties": true,
      "type": "object"
    },
    "reviewdog.rdf.Source": {
      "properties": {"name": {"type": "string"}, "url": {"type": "string"}},
      "additionalProperties": true,
      "type": "object"
    },
    "reviewdog.rdf.Suggestion": {
      "properties": {
        "range": {"$ref": "#/definitions/reviewdog.rdf.Range", "additionalProperties": true},
        "text": {"type": "string"}
      },
      "additionalProperties": true,
      "type": "object"
    }
  }
}`

func TestWriteRDJSON(t *testing.T) {
	schema := compileSchema(t, "DiagnosticResult.json", []byte(rdjsonSchema))
	r := hostileResult()
	var b bytes.Buffer
	if err := WriteRDJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	validate(t, schema, b.Bytes())

	var out struct {
		Source struct {
			Name string `json:"name"`
			URL  string `json:"url"`
		} `json:"source"`
		Severity    string `json:"severity"`
		Diagnostics []struct {
			Message  string `json:"message"`
			Location struct {
				Path  string   `json:"path"`
				Range *rdRange `json:"range"`
			} `json:"location"`
			Severity    string         `json:"severity"`
			Code        rdCode         `json:"code"`
			Suggestions []rdSuggestion `json:"suggestions"`
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if out.Source.Name != "review" || out.Severity != "ERROR" || len(out.Diagnostics) != len(r.Findings) {
		t.Fatalf("source %+v, severity %s, %d diagnostics", out.Source, out.Severity, len(out.Diagnostics))
	}
	tests := []struct {
		severity    string
		start, end  int // 0: no range
		suggestion  string
		inMessage   []string
		notInMessag string
	}{
		{"ERROR", 42, 45, "\tc.mu.Lock()\n\tdefer c.mu.Unlock()", []string{"Data race on map", "50% of calls\r\nrace"}, "suggestion"},
		{"ERROR", 7, 7, "", []string{"::error::injected, title: yes", "::stop-commands::tok", "Suggestion: Escape it."}, ""},
		{"WARNING", 3, 3, "", []string{"<!-- hidden -->", "%0A already"}, ""},
		{"INFO", 0, 0, "", []string{"File-level", "kept for the file"}, ""},
		{"INFO", 1, 1, "", []string{"body"}, ""},
	}
	for i, tt := range tests {
		d := out.Diagnostics[i]
		f := r.Findings[i]
		if d.Severity != tt.severity || d.Location.Path != f.Path || d.Code.Value != f.RuleID() {
			t.Errorf("diagnostic %d: %s %s %s", i, d.Severity, d.Location.Path, d.Code.Value)
		}
		switch {
		case tt.start == 0 && d.Location.Range != nil:
			t.Errorf("diagnostic %d: file-level finding has range %+v", i, d.Location.Range)
		case tt.start > 0 && (d.Location.Range == nil || d.Location.Range.Start.Line != tt.start || d.Location.Range.End.Line != tt.end):
			t.Errorf("diagnostic %d: range %+v, want %d-%d", i, d.Location.Range, tt.start, tt.end)
		}
		if tt.suggestion == "" && len(d.Suggestions) > 0 {
			t.Errorf("diagnostic %d: suggestions %+v for advice", i, d.Suggestions)
		}
		if tt.suggestion != "" {
			if len(d.Suggestions) != 1 || d.Suggestions[0].Text != tt.suggestion || d.Suggestions[0].Range != *d.Location.Range {
				t.Errorf("diagnostic %d: suggestions %+v, want %q over the finding's lines", i, d.Suggestions, tt.suggestion)
			}
		}
		for _, s := range tt.inMessage {
			if !strings.Contains(d.Message, s) {
				t.Errorf("diagnostic %d: message %q lacks %q", i, d.Message, s)
			}
		}
		if tt.notInMessag != "" && strings.Contains(d.Message, tt.notInMessag) {
			t.Errorf("diagnostic %d: message %q holds %q", i, d.Message, tt.notInMessag)
		}
	}

	b.Reset()
	if err := WriteRDJSON(&b, &Result{RunID: "none"}); err != nil {
		t.Fatal(err)
	}
	validate(t, schema, b.Bytes())
	if strings.Contains(b.String(), `"severity"`) || !strings.Contains(b.String(), `"diagnostics": []`) {
		t.Errorf("no findings:\n%s", b.String())
	}
}

func TestLiteralSuggestion(t *testing.T) {
	tests := []struct {
		name, in    string
		code, prose string
		ok          bool
	}{
		{"block only", "```suggestion\nfoo()\nbar()\n```", "foo()\nbar()", "", true},
		{"prose around", "Lock first:\n\n```suggestion\nmu.Lock()\n```\nthen unlock.", "mu.Lock()", "Lock first:\n\nthen unlock.", true},
		{"delete lines", "```suggestion\n```", "", "", true},
		{"longer fence holding a fence", "````suggestion\n```go\nx\n```\n````", "```go\nx\n```", "", true},
		{"tildes", "~~~suggestion\nx := 1\n~~~", "x := 1", "", true},
		{"indented fence", "  ```suggestion\n  x\n    y\n z\n  ```", "x\n  y\nz", "", true},
		{"other block first", "```go\nold\n```\n```suggestion\nnew\n```", "new", "```go\nold\n```", true},
		{"advice", "Use a mutex.", "", "", false},
		{"code, not a replacement", "```go\nmu.Lock()\n```", "", "", false},
		{"two replacements", "```suggestion\na\n```\n```suggestion\nb\n```", "", "", false},
		{"unclosed", "```suggestion\na\n", "", "", false},
		{"closing fence too short", "````suggestion\na\n```", "", "", false},
		{"info after suggestion", "```suggestion:-0+1\na\n```", "", "", false},
		{"empty", "", "", "", false},
	}
	for _, tt := range tests {
		code, prose, ok := LiteralSuggestion(tt.in)
		if ok != tt.ok || code != tt.code || prose != tt.prose {
			t.Errorf("%s: literalSuggestion(%q) = %q, %q, %v; want %q, %q, %v", tt.name, tt.in, code, prose, ok, tt.code, tt.prose, tt.ok)
		}
	}
}

func TestRDJSONSuggestionNeedsALine(t *testing.T) {
	r := &Result{RunID: "x", Findings: []Finding{{Path: "a.go", Severity: Medium, Title: "t", Suggestion: "```suggestion\nnew\n```"}}}
	var b bytes.Buffer
	if err := WriteRDJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `"suggestions"`) || !strings.Contains(b.String(), `Suggestion: `+"```suggestion") {
		t.Errorf("a file-level finding's replacement has no lines to replace; it belongs in the message:\n%s", b.String())
	}
}
