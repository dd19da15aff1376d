package result

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestHold(t *testing.T) {
	f := func(title string, sev Severity, grounded bool) Finding {
		return Finding{Path: "a.go", Line: 3, Title: title, Severity: sev, Grounded: grounded, Category: title,
			Evidence: map[bool][]Evidence{true: {{Source: SourceDiff, Path: "a.go", StartLine: 3, EndLine: 3}}}[grounded]}
	}
	all := func() []Finding {
		return []Finding{f("crit guess", Critical, false), f("high", High, true), f("med", Medium, true), f("low", Low, true)}
	}
	titles := func(fs []Finding) string {
		var s []string
		for _, f := range fs {
			s = append(s, f.Title)
		}
		return strings.Join(s, ",")
	}
	for _, tc := range []struct {
		name                                  string
		q                                     Quiet
		findings, ungrounded, withheld, drops string
		line                                  string
	}{
		{"default", Quiet{}, "high,med,low", "crit guess", "", "", "1 finding not checked against the code it names"},
		{"keep", Quiet{Ungrounded: UngroundedKeep}, "crit guess,high,med,low", "", "", "", ""},
		{"drop", Quiet{Ungrounded: UngroundedDrop}, "high,med,low", "", "", "crit guess", ""},
		{"min severity", Quiet{MinSeverity: High}, "high", "crit guess", "med,low", "",
			"2 findings withheld (2 below the minimum severity, high); 1 finding not checked against the code it names"},
		{"max findings", Quiet{Ungrounded: UngroundedKeep, MaxFindings: 2}, "crit guess,high", "", "med,low", "",
			"2 findings withheld (2 past the 2 most severe findings)"},
		{"severities first", Quiet{Severity: map[string]Severity{"low": Critical}, MinSeverity: High}, "low,high", "crit guess", "med", "",
			"1 finding withheld (1 below the minimum severity, high); 1 finding not checked against the code it names"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Result{Findings: all()}
			r.Hold(tc.q)
			var w, d []Finding
			for _, x := range r.Withheld {
				w = append(w, x.Finding)
			}
			for _, x := range r.Dropped {
				d = append(d, x.Finding)
			}
			if titles(r.Findings) != tc.findings || titles(r.Ungrounded) != tc.ungrounded || titles(w) != tc.withheld || titles(d) != tc.drops {
				t.Errorf("findings %q ungrounded %q withheld %q dropped %q", titles(r.Findings), titles(r.Ungrounded), titles(w), titles(d))
			}
			if got := r.HeldLine(); got != tc.line {
				t.Errorf("HeldLine = %q, want %q", got, tc.line)
			}
		})
	}
}

// TestFindingJSONEvidence: every finding has an evidence list and says
// whether it is grounded, and reads back the same.
func TestFindingJSONEvidence(t *testing.T) {
	b, err := json.Marshal(Finding{Path: "a.go", Line: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"evidence":[]`) || !strings.Contains(string(b), `"grounded":false`) {
		t.Errorf("%s", b)
	}
	in := Finding{Path: "a\xffb.go", Line: 2, Grounded: true, Evidence: []Evidence{{Source: "abcdefgh23", Tool: "read_file_hunk", Path: "a\xffb.go", StartLine: 2, EndLine: 2}}}
	b, err = json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out Finding
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.Evidence[0].Path != in.Path || !out.Grounded {
		t.Errorf("round trip: %+v", out)
	}
}
