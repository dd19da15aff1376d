package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/reviewdev/review/review/result"
)

// codeScanningLogs are SARIF logs of every kind of result, keyed by what
// they show: findings with and without a --fail-on, an incomplete and a
// partial review, nothing to review.
func codeScanningLogs(t *testing.T) map[string][]byte {
	t.Helper()
	failNone := hostileResult()
	failNone.FailOn = ""
	incomplete := hostileResult()
	incomplete.Submitted = false
	nothing := &result.Result{
		Revisions: result.Revisions{Base: "main", Head: "HEAD"}, Summary: "Nothing to review.",
		Findings: []result.Finding{}, NotReviewed: []result.NotReviewed{}, Submitted: true,
	}
	logs := map[string][]byte{}
	for name, c := range map[string]struct {
		r       *result.Result
		version string
	}{
		"fail-on high":   {hostileResult(), "v1.4.0"},
		"fail-on none":   {failNone, "v1.4.0"},
		"incomplete":     {incomplete, "v1.4.0-rc.1"},
		"partial":        {partialResult(), "1.4.0"},
		"nothing":        {nothing, "v1.4.0"},
		"checkout build": {hostileResult(), "0.0.0-dev+0123456789ab"},
	} {
		var b bytes.Buffer
		if err := writeSARIF(&b, c.r, c.version); err != nil {
			t.Fatal(err)
		}
		logs[name] = b.Bytes()
	}
	return logs
}

// TestSARIFCodeScanningRules checks the logs against the rules GitHub code
// scanning applies to an upload, as the SARIF multitool's GitHub rule set
// (GH*) states them, and the SARIF rules it flags that code scanning
// shows (SARIF1001 name and id, SARIF2005 version); see
// TestSARIFMultitool for the tool itself.
func TestSARIFCodeScanningRules(t *testing.T) {
	for name, log := range codeScanningLogs(t) {
		for _, p := range codeScanningProblems(log) {
			t.Errorf("%s: %s", name, p)
		}
	}
}

// TestSARIFFailOnNoneDoesNotFailTheCheck: code scanning fails its check on
// error-level alerts and on high or critical security alerts by default.
// With --fail-on none the log has neither; with --fail-on high, exactly
// what reaches it is an error, and security findings that reach it carry
// their security-severity.
func TestSARIFFailOnNoneDoesNotFailTheCheck(t *testing.T) {
	logs := codeScanningLogs(t)
	none := string(logs["fail-on none"])
	if strings.Contains(none, `"level": "error"`) || strings.Contains(none, "security-severity") {
		t.Errorf("fail-on none has an error level or a security severity:\n%s", none)
	}
	var high sarifDoc
	if err := json.Unmarshal(logs["fail-on high"], &high); err != nil {
		t.Fatal(err)
	}
	levels := map[string]string{}
	for _, r := range high.Runs[0].Results {
		levels[r.RuleID] = r.Level
	}
	want := map[string]string{"concurrency": "error", "security": "error", "error-handling": "warning", "docs": "note", "general": "note"}
	for id, l := range want {
		if levels[id] != l {
			t.Errorf("fail-on high: %s is %q, want %q", id, levels[id], l)
		}
	}
	for _, rule := range high.Runs[0].Tool.Driver.Rules {
		sev := rule.Properties.SecuritySeverity
		switch {
		case rule.ID == "security" && sev != "8.0":
			t.Errorf("security has security-severity %q, want 8.0", sev)
		case rule.ID != "security" && sev != "":
			t.Errorf("rule %s has security-severity %q", rule.ID, sev)
		}
	}
}

// sarifDoc is what the code scanning checks read of a log.
type sarifDoc struct {
	Schema  *string `json:"$schema"`
	Version string  `json:"version"`
	Runs    []struct {
		Tool *struct {
			Driver *struct {
				Name            string `json:"name"`
				Version         string `json:"version"`
				SemanticVersion string `json:"semanticVersion"`
				Rules           []struct {
					ID               string     `json:"id"`
					Name             string     `json:"name"`
					ShortDescription *sarifText `json:"shortDescription"`
					FullDescription  *sarifText `json:"fullDescription"`
					Help             *sarifText `json:"help"`
					Properties       struct {
						Tags             []string `json:"tags"`
						SecuritySeverity string   `json:"security-severity"`
					} `json:"properties"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		AutomationDetails struct {
			ID string `json:"id"`
		} `json:"automationDetails"`
		Results []struct {
			RuleID    string     `json:"ruleId"`
			RuleIndex *int       `json:"ruleIndex"`
			Level     string     `json:"level"`
			Message   *sarifText `json:"message"`
			Locations []struct {
				PhysicalLocation *struct {
					ArtifactLocation *struct {
						URI string `json:"uri"`
					} `json:"artifactLocation"`
					Region *struct {
						StartLine int `json:"startLine"`
						EndLine   int `json:"endLine"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			PartialFingerprints map[string]string `json:"partialFingerprints"`
		} `json:"results"`
	} `json:"runs"`
}

// codeScanningProblems lists what GitHub code scanning would reject or
// show badly in a SARIF log, each with the multitool rule that says so.
func codeScanningProblems(data []byte) []string {
	var doc sarifDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return []string{"not a SARIF log: " + err.Error()}
	}
	var ps []string
	bad := func(rule, format string, args ...any) { ps = append(ps, rule+": "+fmt.Sprintf(format, args...)) }
	switch {
	case doc.Schema == nil:
		bad("GH1013", "no $schema")
	case !strings.Contains(*doc.Schema, "sarif-schema-2.1.0.json") && !strings.Contains(*doc.Schema, "sarif-2.1/schema"):
		bad("GH1011", "$schema %q is not the final SARIF 2.1.0 schema", *doc.Schema)
	}
	if doc.Version != "2.1.0" {
		bad("GH1013", "version %q, want 2.1.0", doc.Version)
	}
	if doc.Runs == nil {
		bad("GH1013", "no runs array")
	}
	if len(doc.Runs) > 20 {
		bad("GH1004", "%d runs, over code scanning's 20", len(doc.Runs))
	}
	for i, run := range doc.Runs {
		at := fmt.Sprintf("runs[%d]", i)
		if run.Tool == nil || run.Tool.Driver == nil {
			bad("GH1018", "%s has no tool.driver", at)
			continue
		}
		d := run.Tool.Driver
		if d.Name == "" {
			bad("GH1018", "%s: the driver has no name", at)
		}
		if d.Rules == nil {
			bad("GH1018", "%s: the driver has no rules array", at)
		}
		if d.Version != "" && (d.Version[0] < '0' || d.Version[0] > '9') {
			bad("SARIF2005", "%s: driver version %q does not start with a number", at, d.Version)
		}
		if run.AutomationDetails.ID != "" && !strings.Contains(run.AutomationDetails.ID, "/") {
			bad("category", "%s: automationDetails.id %q has no category before a slash", at, run.AutomationDetails.ID)
		}
		if len(d.Rules) > 25000 {
			bad("GH1004", "%s: %d rules", at, len(d.Rules))
		}
		ids := map[string]int{}
		for j, r := range d.Rules {
			at := fmt.Sprintf("%s.tool.driver.rules[%d]", at, j)
			switch {
			case r.ID == "":
				bad("GH2012", "%s has no id", at)
			case strings.EqualFold(r.Name, r.ID):
				bad("SARIF1001", "%s: name equals id %q", at, r.ID)
			}
			if _, dup := ids[r.ID]; dup {
				bad("SARIF", "%s: rule %q twice", at, r.ID)
			}
			ids[r.ID] = j
			if len(r.Name) > 255 {
				bad("code scanning", "%s: name over 255 characters", at)
			}
			if r.ShortDescription == nil || r.ShortDescription.Text == "" {
				bad("GH2012", "%s has no shortDescription", at)
			}
			if r.FullDescription == nil || r.FullDescription.Text == "" {
				bad("GH2012", "%s has no fullDescription", at)
			}
			if r.Help == nil || r.Help.Text == "" {
				bad("GH2012", "%s has no help text", at)
			}
			if len(r.Properties.Tags) > 20 {
				bad("code scanning", "%s: %d tags, over 20", at, len(r.Properties.Tags))
			}
			if s := r.Properties.SecuritySeverity; s != "" {
				v, err := strconv.ParseFloat(s, 64)
				if err != nil || v < 0 || v > 10 {
					bad("code scanning", "%s: security-severity %q is not a score from 0.0 to 10.0", at, s)
				}
				if !contains(r.Properties.Tags, "security") {
					bad("code scanning", "%s: security-severity without the security tag", at)
				}
			}
		}
		if run.Results == nil {
			bad("GH1014", "%s has no results array", at)
		}
		if len(run.Results) > 25000 {
			bad("GH1004", "%s: %d results", at, len(run.Results))
		}
		for j, res := range run.Results {
			at := fmt.Sprintf("%s.results[%d]", at, j)
			if res.Message == nil || res.Message.Text == "" {
				bad("GH1015", "%s has no message text", at)
			}
			if k, ok := ids[res.RuleID]; !ok || res.RuleIndex == nil || *res.RuleIndex != k {
				bad("SARIF", "%s: rule %q at index %v is not the driver's", at, res.RuleID, res.RuleIndex)
			}
			switch res.Level {
			case "error", "warning", "note", "none":
			default:
				bad("SARIF", "%s: level %q", at, res.Level)
			}
			if res.PartialFingerprints["primaryLocationLineHash"] == "" {
				bad("code scanning", "%s: no partialFingerprints.primaryLocationLineHash, the one code scanning matches alerts by", at)
			}
			if len(res.Locations) == 0 {
				bad("GH1001", "%s has no locations", at)
			}
			if len(res.Locations) > 1000 {
				bad("GH1004", "%s: %d locations", at, len(res.Locations))
			}
			for k, l := range res.Locations {
				at := fmt.Sprintf("%s.locations[%d]", at, k)
				switch p := l.PhysicalLocation; {
				case p == nil:
					bad("GH1016", "%s has no physicalLocation", at)
				case p.ArtifactLocation == nil || p.ArtifactLocation.URI == "":
					bad("GH1001", "%s has no artifactLocation.uri", at)
				case p.Region == nil || p.Region.StartLine < 1:
					bad("GH1003", "%s has no region.startLine", at)
				default:
					if scheme, _, ok := strings.Cut(p.ArtifactLocation.URI, ":"); ok && !strings.Contains(scheme, "/") && scheme != "file" {
						bad("GH1005", "%s: %q is not a file path", at, p.ArtifactLocation.URI)
					}
					if p.Region.EndLine != 0 && p.Region.EndLine < p.Region.StartLine {
						bad("SARIF", "%s: region ends before it starts", at)
					}
				}
			}
		}
	}
	return ps
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

// TestCodeScanningChecker shows that the checker finds what it checks.
func TestCodeScanningChecker(t *testing.T) {
	good := string(codeScanningLogs(t)["fail-on high"])
	for rule, broken := range map[string]string{
		"GH2012":        strings.Replace(good, `"fullDescription"`, `"fullDescriptionX"`, 1),
		"SARIF1001":     strings.Replace(good, `"name": "ConcurrencyFinding"`, `"name": "Concurrency"`, 1),
		"SARIF2005":     strings.Replace(good, `"version": "1.4.0"`, `"version": "devel"`, 1),
		"code scanning": strings.Replace(good, `"primaryLocationLineHash"`, `"lineHash"`, 1),
		"GH1003":        strings.Replace(good, `"startLine": 42`, `"startLine": 0`, 1),
		"GH1005":        strings.Replace(good, `"uri": "cache/lru.go"`, `"uri": "https://x/lru.go"`, 1),
	} {
		if broken == good {
			t.Fatalf("%s: the replacement did not apply", rule)
		}
		found := false
		for _, p := range codeScanningProblems([]byte(broken)) {
			found = found || strings.HasPrefix(p, rule+":")
		}
		if !found {
			t.Errorf("%s: not found in a log made to break it", rule)
		}
	}
}

// TestSARIFMultitool validates the logs with the SARIF multitool's SARIF
// and GitHub rules, when SARIF_MULTITOOL names its executable (npm install
// @microsoft/sarif-multitool; the binary is
// node_modules/@microsoft/sarif-multitool-<os>/Sarif.Multitool). Rule
// SARIF2006, which fetches every URI in the log, is turned off: tests stay
// off the network. Any error or warning fails the test; notes (advice
// such as "provide a snippet") do not.
func TestSARIFMultitool(t *testing.T) {
	tool := os.Getenv("SARIF_MULTITOOL")
	if tool == "" {
		t.Skip("SARIF_MULTITOOL is not set: npm install @microsoft/sarif-multitool, then SARIF_MULTITOOL=node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool")
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "rules.xml")
	if err := os.WriteFile(cfg, []byte(`<?xml version="1.0" encoding="utf-8"?>
<Properties>
  <Properties Key="SARIF2006.UrisShouldBeReachable.Options">
    <Property Key="RuleEnabled" Value="Disabled" Type="Driver.RuleEnabledState" />
  </Properties>
</Properties>
`), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"validate", "-c", cfg, "--rule-kind", "Sarif;Gh", "--level", "Error;Warning", "-o", filepath.Join(dir, "out.sarif")}
	names := map[string]string{}
	for name, log := range codeScanningLogs(t) {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".sarif")
		if err := os.WriteFile(p, log, 0o644); err != nil {
			t.Fatal(err)
		}
		names[p] = name
		args = append(args, p)
	}
	out, err := exec.Command(tool, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", tool, err, out)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "out.sarif"))
	if err != nil {
		t.Fatalf("the multitool wrote no log: %v\n%s", err, out)
	}
	var res struct {
		Runs []struct {
			Results []struct {
				RuleID  string `json:"ruleId"`
				Level   string `json:"level"`
				Message struct {
					Text      string   `json:"text"`
					ID        string   `json:"id"`
					Arguments []string `json:"arguments"`
				} `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	for _, run := range res.Runs {
		for _, r := range run.Results {
			if r.Level == "note" || r.Level == "none" {
				continue
			}
			where := ""
			if len(r.Locations) > 0 {
				where = filepath.Base(r.Locations[0].PhysicalLocation.ArtifactLocation.URI)
			}
			t.Errorf("%s: %s %s: %s %s %q", where, r.Level, r.RuleID, r.Message.Text, r.Message.ID, r.Message.Arguments)
		}
	}
	t.Logf("%s validated %d logs with its SARIF and GitHub rules", tool, len(names))
}
