package report

import (
	"testing"

	"github.com/reviewdev/review/review/result"
)

// TestOneLevelMapping: SARIF and rdjson give every finding the same level
// under every --fail-on, so code scanning's check and reviewdog's
// -fail-level=error fail on the same findings, the ones review's exit code
// 3 counts.
func TestOneLevelMapping(t *testing.T) {
	sevs := []result.Severity{result.Info, result.Low, result.Medium, result.High, result.Critical}
	rd := map[string]string{"INFO": "note", "WARNING": "warning", "ERROR": "error"}
	for _, failOn := range append([]result.Severity{""}, sevs...) {
		for _, s := range sevs {
			sarif, rdj := sarifLevel(s, failOn), rdSeverity(s, failOn)
			if rd[rdj] != sarif {
				t.Errorf("%s under --fail-on %q: SARIF %s, rdjson %s", s, failOn, sarif, rdj)
			}
			if gate := failOn != "" && s.Rank() >= failOn.Rank(); gate != (sarif == "error") {
				t.Errorf("%s under --fail-on %q: level %s, but the exit code's gate says %v", s, failOn, sarif, gate)
			}
		}
	}
	if rdSeverity(result.High, "") != "WARNING" {
		t.Error("a high finding without --fail-on is an rdjson ERROR, which reviewdog's -fail-level=error fails on")
	}
}
