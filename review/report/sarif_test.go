package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/reviewdev/review/review/resulttest"

	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/review/reviewtest"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func hostileResult() *result.Result { return resulttest.Hostile() }

// sarifSchemaPath is the SARIF 2.1.0 schema vendored in the repository's
// testdata/schemas. A missing schema fails the test: a SARIF log that is
// not checked must not pass as valid.
func sarifSchemaPath(t *testing.T) string {
	t.Helper()
	p, err := reviewtest.SchemaPath(reviewtest.SARIFSchema)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func compileSchema(t *testing.T, name string, schema []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(name, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, out []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if err := s.Validate(inst); err != nil {
		t.Fatalf("output does not follow the schema: %v\n%s", err, out)
	}
}

func TestWriteSARIFValid(t *testing.T) {
	raw, err := os.ReadFile(sarifSchemaPath(t))
	if err != nil {
		t.Fatal(err)
	}
	schema := compileSchema(t, "sarif-schema-2.1.0.json", raw)
	for name, r := range map[string]*result.Result{
		"hostile":      hostileResult(),
		"no findings":  {RunID: "empty", Model: "unknown-model", Findings: []result.Finding{}},
		"nil findings": {RunID: "nil"},
	} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeSARIF(&b, r, "v1.2.3"); err != nil {
				t.Fatal(err)
			}
			validate(t, schema, b.Bytes())
		})
	}
	// The schema does reject what code scanning would.
	var b bytes.Buffer
	if err := writeSARIF(&b, hostileResult(), "v1"); err != nil {
		t.Fatal(err)
	}
	for _, broken := range []string{
		strings.Replace(b.String(), `"level": "error"`, `"level": "fatal"`, 1),
		strings.Replace(b.String(), `"startLine": 42`, `"startLine": 0`, 1),
	} {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(broken))
		if err != nil {
			t.Fatal(err)
		}
		if schema.Validate(inst) == nil {
			t.Error("the schema accepts a broken log; the validation proves nothing")
		}
	}
}

// sarifOut is the part of a SARIF log the tests look at.
type sarifOut struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name    string `json:"name"`
				Version string `json:"version"`
				Rules   []struct {
					ID               string    `json:"id"`
					ShortDescription sarifText `json:"shortDescription"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		AutomationDetails struct {
			ID string `json:"id"`
		} `json:"automationDetails"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			RuleIndex int    `json:"ruleIndex"`
			Level     string `json:"level"`
			Message   struct {
				Text string `json:"text"`
			} `json:"message"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI       string `json:"uri"`
						URIBaseID string `json:"uriBaseId"`
					} `json:"artifactLocation"`
					Region map[string]int `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			PartialFingerprints map[string]string `json:"partialFingerprints"`
			Properties          map[string]any    `json:"properties"`
		} `json:"results"`
		Properties map[string]any `json:"properties"`
	} `json:"runs"`
}

func readSARIF(t *testing.T, r *result.Result) sarifOut {
	t.Helper()
	var b bytes.Buffer
	if err := writeSARIF(&b, r, "v1.2.3"); err != nil {
		t.Fatal(err)
	}
	var out sarifOut
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Runs) != 1 {
		t.Fatalf("runs = %d, want 1", len(out.Runs))
	}
	return out
}

func TestWriteSARIFContent(t *testing.T) {
	r := hostileResult()
	out := readSARIF(t, r)
	run := out.Runs[0]
	if out.Version != "2.1.0" || out.Schema == "" {
		t.Errorf("version %q, $schema %q", out.Version, out.Schema)
	}
	if d := run.Tool.Driver; d.Name != "review" || d.Version != "1.2.3" { // the tag v1.2.3, as SARIF wants it
		t.Errorf("driver = %q %q", d.Name, d.Version)
	}
	if run.AutomationDetails.ID != "review/r7k2m9" {
		t.Errorf("automationDetails.id = %q: code scanning's category is the part before the last slash", run.AutomationDetails.ID)
	}
	var ids []string
	for _, rule := range run.Tool.Driver.Rules {
		ids = append(ids, rule.ID)
		if rule.ShortDescription.Text == "" {
			t.Errorf("rule %s has no short description", rule.ID)
		}
	}
	if got, want := strings.Join(ids, ","), "concurrency,docs,error-handling,general,security"; got != want {
		t.Errorf("rules = %s, want %s (one per category, sorted)", got, want)
	}
	if len(run.Results) != len(r.Findings) {
		t.Fatalf("results = %d, want %d", len(run.Results), len(r.Findings))
	}
	tests := []struct {
		level, uri string
		region     map[string]int
		fileLevel  bool
	}{
		{"error", "cache/lru.go", map[string]int{"startLine": 42, "endLine": 45}, false},
		{"error", "dir%20with%20space/weird%3Aname%2C1.go", map[string]int{"startLine": 7}, false},
		{"warning", "src/%C3%BCn%C3%AF/%E6%97%A5%E6%9C%AC.go", map[string]int{"startLine": 3}, false},
		{"note", "README.md", map[string]int{"startLine": 1}, true},
		{"note", "x.go", map[string]int{"startLine": 1}, false},
	}
	for i, tt := range tests {
		res := run.Results[i]
		f := r.Findings[i]
		if res.Level != tt.level {
			t.Errorf("result %d level = %s, want %s", i, res.Level, tt.level)
		}
		if run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID || res.RuleID != f.RuleID() {
			t.Errorf("result %d rule %s index %d does not match its category %q", i, res.RuleID, res.RuleIndex, f.Category)
		}
		loc := res.Locations[0].PhysicalLocation
		if loc.ArtifactLocation.URI != tt.uri || loc.ArtifactLocation.URIBaseID != "%SRCROOT%" {
			t.Errorf("result %d uri = %q base %q, want %q", i, loc.ArtifactLocation.URI, loc.ArtifactLocation.URIBaseID, tt.uri)
		}
		if len(loc.Region) != len(tt.region) || loc.Region["startLine"] != tt.region["startLine"] || loc.Region["endLine"] != tt.region["endLine"] {
			t.Errorf("result %d region = %v, want %v", i, loc.Region, tt.region)
		}
		if res.PartialFingerprints[fingerprintKey] != f.Fingerprint() {
			t.Errorf("result %d fingerprints = %v", i, res.PartialFingerprints)
		}
		if res.Properties["severity"] != string(f.Severity) || res.Properties["runId"] != "r7k2m9" {
			t.Errorf("result %d properties = %v", i, res.Properties)
		}
		if got := res.Properties["fileLevel"] == true; got != tt.fileLevel {
			t.Errorf("result %d fileLevel = %v, want %v", i, got, tt.fileLevel)
		}
		// The text survives JSON whole: title, body and suggestion.
		msg := res.Message.Text
		for _, part := range []string{f.Title, f.Body, f.Suggestion} {
			if !strings.Contains(msg, part) {
				t.Errorf("result %d message %q lacks %q", i, msg, part)
			}
		}
	}
	props := run.Properties
	usage, _ := props["usage"].(map[string]any)
	if props["runId"] != "r7k2m9" || props["model"] != "gpt-4o-mini" || usage["prompt_tokens"] != float64(12000) ||
		usage["cached_tokens"] != float64(4000) || usage["own_prompt_tokens"] != float64(11800) || usage["requests"] != float64(3) {
		t.Errorf("run properties = %v", props)
	}
	// gpt-4o-mini: 8000 prompt at 0.15, 4000 cached at 0.075, 800 completion at 0.60.
	if got, want := props["estimatedCostUsd"], 0.00198; got != want {
		t.Errorf("estimatedCostUsd = %v, want %v", got, want)
	}
	if props["replay"] != "review replay r7k2m9" {
		t.Errorf("replay = %v", props["replay"])
	}

	unknown := readSARIF(t, &result.Result{RunID: "u", Model: "my-local-model"})
	if _, ok := unknown.Runs[0].Properties["estimatedCostUsd"]; ok {
		t.Error("a model without a price has an estimated cost")
	}
}

func TestWriteSARIFDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	if err := writeSARIF(&a, hostileResult(), "v1"); err != nil {
		t.Fatal(err)
	}
	if err := writeSARIF(&b, hostileResult(), "v1"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two writes of the same result differ")
	}
	var none bytes.Buffer
	if err := writeSARIF(&none, &result.Result{RunID: "x"}, ""); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(none.String(), `"version": ""`) || !strings.Contains(none.String(), `"results": []`) {
		t.Errorf("empty result:\n%s", none.String())
	}
}

func TestSARIFLevelAndURI(t *testing.T) {
	// Without --fail-on nothing is an error, so no code scanning check
	// fails; with it, what reaches it is.
	for s, want := range map[result.Severity]string{result.Critical: "warning", result.High: "warning", result.Medium: "warning", result.Low: "note", result.Info: "note", "odd": "note"} {
		if got := sarifLevel(s, ""); got != want {
			t.Errorf("sarifLevel(%s, none) = %s, want %s", s, got, want)
		}
	}
	for s, want := range map[result.Severity]string{result.Critical: "error", result.High: "error", result.Medium: "warning", result.Low: "note", "odd": "note"} {
		if got := sarifLevel(s, result.High); got != want {
			t.Errorf("sarifLevel(%s, high) = %s, want %s", s, got, want)
		}
	}
	for id, want := range map[string]string{"security": "SecurityFinding", "error-handling": "ErrorHandlingFinding", "x": "XFinding", "": "Finding"} {
		if got := ruleName(id); got != want || strings.EqualFold(got, id) {
			t.Errorf("ruleName(%q) = %q, want %q", id, got, want)
		}
	}
	for in, want := range map[string]string{
		"a/b.go":       "a/b.go",
		"a b/c#d?.go":  "a%20b/c%23d%3F.go",
		"c:/x.go":      "c%3A/x.go",
		"/abs/x.go":    "abs/x.go",
		"100%/x.go":    "100%25/x.go",
		"ü/ß.go":       "%C3%BC/%C3%9F.go",
		"a,b;c=d&e.go": "a%2Cb%3Bc=d&e.go",
	} {
		if got := artifactURI(in); got != want {
			t.Errorf("artifactURI(%q) = %q, want %q", in, got, want)
		}
	}
}
