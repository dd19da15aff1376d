package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/reviewdev/review/review/result"
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
	if err := writeRDJSON(&b, r); err != nil {
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
	if err := writeRDJSON(&b, &result.Result{RunID: "none"}); err != nil {
		t.Fatal(err)
	}
	validate(t, schema, b.Bytes())
	if strings.Contains(b.String(), `"severity"`) || !strings.Contains(b.String(), `"diagnostics": []`) {
		t.Errorf("no findings:\n%s", b.String())
	}
}

func TestRDJSONSuggestionNeedsALine(t *testing.T) {
	r := &result.Result{RunID: "x", Findings: []result.Finding{{Path: "a.go", Severity: result.Medium, Title: "t", Suggestion: "```suggestion\nnew\n```"}}}
	var b bytes.Buffer
	if err := writeRDJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `"suggestions"`) || !strings.Contains(b.String(), `Suggestion: `+"```suggestion") {
		t.Errorf("a file-level finding's replacement has no lines to replace; it belongs in the message:\n%s", b.String())
	}
}

// TestRDJSONReplacement: a finding's replacement lines are a reviewdog
// suggestion over its range, its suggestion stays advice in the message,
// and every diagnostic has the one-line original_output reviewdog's local
// reporter prints.
func TestRDJSONReplacement(t *testing.T) {
	repl, del := "\tx := 1\n\ty := 2", ""
	r := &result.Result{RunID: "x", Findings: []result.Finding{
		{Path: "a.go", Line: 3, EndLine: 4, Severity: result.Medium, Category: "correctness", Title: "Two\nlines", Suggestion: "Name it.", Replacement: &repl},
		{Path: "a.go", Line: 9, Severity: result.Low, Category: "maintainability", Title: "Dead code", Replacement: &del},
		{Path: "b.go", Severity: result.Info, Category: "tests", Title: "No test"},
	}}
	var b bytes.Buffer
	if err := writeRDJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	validate(t, compileSchema(t, "DiagnosticResult.json", []byte(rdjsonSchema)), b.Bytes())
	var out struct {
		Diagnostics []struct {
			Message        string         `json:"message"`
			Suggestions    []rdSuggestion `json:"suggestions"`
			OriginalOutput string         `json:"original_output"`
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	d := out.Diagnostics
	if len(d[0].Suggestions) != 1 || d[0].Suggestions[0].Text != repl || d[0].Suggestions[0].Range != (rdRange{Start: rdPosition{3}, End: rdPosition{4}}) {
		t.Errorf("suggestions %+v", d[0].Suggestions)
	}
	if !strings.Contains(d[0].Message, "Suggestion: Name it.") || strings.Contains(d[0].Message, "x := 1") {
		t.Errorf("message %q: the advice stays, the replacement is the suggestion", d[0].Message)
	}
	if len(d[1].Suggestions) != 1 || d[1].Suggestions[0].Text != "" {
		t.Errorf("deletion: %+v", d[1].Suggestions)
	}
	for i, want := range []string{"a.go:3-4: [medium] Two lines (correctness)", "a.go:9: [low] Dead code (maintainability)", "b.go: [info] No test (tests)"} {
		if d[i].OriginalOutput != want {
			t.Errorf("original_output %d = %q, want %q", i, d[i].OriginalOutput, want)
		}
	}
}
