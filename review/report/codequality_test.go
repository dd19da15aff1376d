package report

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/review/reviewtest"
)

// codeQualitySchemas compiles the report's schema, as GitLab documents the
// format, and the schema GitLab's parser checks each issue with.
func codeQualitySchemas(t *testing.T) (report, issue func([]byte)) {
	t.Helper()
	compile := func(name string) func([]byte) {
		p, err := reviewtest.SchemaPath(name)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := compileSchema(t, name, raw)
		return func(out []byte) { t.Helper(); validate(t, s, out) }
	}
	return compile(reviewtest.CodeQualitySchema), compile(reviewtest.CodeClimateSchema)
}

type cqOut []struct {
	Description string `json:"description"`
	CheckName   string `json:"check_name"`
	Fingerprint string `json:"fingerprint"`
	Severity    string `json:"severity"`
	Location    struct {
		Path  string `json:"path"`
		Lines struct {
			Begin int `json:"begin"`
		} `json:"lines"`
	} `json:"location"`
}

func writeCQ(t *testing.T, r *result.Result) ([]byte, cqOut) {
	t.Helper()
	f, ok := Lookup("codequality", Result)
	if !ok {
		t.Fatal("no codequality format")
	}
	var b bytes.Buffer
	if err := f.WriteResult(&b, r, "v1"); err != nil {
		t.Fatal(err)
	}
	var out cqOut
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		t.Fatalf("%v\n%s", err, b.Bytes())
	}
	return b.Bytes(), out
}

// TestCodeQuality holds the codequality format to GitLab's: the report
// validates against the documented format and each issue against GitLab's
// parser's schema; severities map to GitLab's five; a file-level finding is
// on line 1; a partial review says so in an info issue.
func TestCodeQuality(t *testing.T) {
	report, issue := codeQualitySchemas(t)
	r := hostileResult()
	r.NotReviewed = []result.NotReviewed{{Left: diffctx.Left{Path: "big.go"}, Reason: result.ReasonMaxUnits}}
	raw, out := writeCQ(t, r)
	report(raw)
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		issue(it)
	}
	if len(out) != len(r.Findings)+1 {
		t.Fatalf("%d issues for %d findings and a partial review:\n%s", len(out), len(r.Findings), raw)
	}
	wantSev := []string{"blocker", "critical", "major", "minor", "info"}
	for i, f := range r.Findings {
		got := out[i]
		if got.Severity != wantSev[i] || got.CheckName != f.RuleID() || got.Location.Path != f.Path || got.Location.Lines.Begin != max(f.Line, 1) {
			t.Errorf("issue %d = %+v for finding %+v", i, got, f)
		}
	}
	if out[0].Description != "[critical] Data race on map at line 42 (lines 42-45)" {
		t.Errorf("description %q", out[0].Description)
	}
	if last := out[len(out)-1]; last.CheckName != "not-reviewed" || last.Severity != "info" || last.Location.Path != "big.go" {
		t.Errorf("partial review: %+v", last)
	}
	seen := map[string]bool{}
	for _, it := range out {
		if seen[it.Fingerprint] {
			t.Errorf("fingerprint %s twice", it.Fingerprint)
		}
		seen[it.Fingerprint] = true
	}
	// Nothing to review is still a report: an empty array.
	raw, _ = writeCQ(t, &result.Result{Submitted: true})
	report(raw)
	if string(bytes.TrimSpace(raw)) != "[]" {
		t.Errorf("empty review: %s", raw)
	}
}

// TestCodeQualityFingerprintStable: two runs that find the same thing give
// the same fingerprints, whatever their run, wording of the line reference
// or body; another line or another finding gives another.
func TestCodeQualityFingerprintStable(t *testing.T) {
	first := hostileResult()
	second := hostileResult()
	second.RunID, second.Model, second.Summary = "20261126-101010-other", "another-model", "Another summary."
	for i := range second.Findings {
		second.Findings[i].Body += " Said differently."
	}
	_, a := writeCQ(t, first)
	_, b := writeCQ(t, second)
	for i := range a {
		if a[i].Fingerprint != b[i].Fingerprint {
			t.Errorf("issue %d: fingerprint %s in one run, %s in the other", i, a[i].Fingerprint, b[i].Fingerprint)
		}
	}
	moved := hostileResult()
	moved.Findings[1].Line++
	_, c := writeCQ(t, moved)
	if c[1].Fingerprint == a[1].Fingerprint {
		t.Error("a finding on another line has the same fingerprint")
	}
	if c[0].Fingerprint != a[0].Fingerprint {
		t.Error("moving one finding changed another's fingerprint")
	}
}
