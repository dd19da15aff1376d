package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reviewdev/review/review"
)

// TestPathsNotUTF8 checks that a finding on a file whose name is not
// UTF-8 names it exactly in every machine format (SARIF percent-encodes
// it; the others quote it as the JSON outputs do), never as U+FFFD.
func TestPathsNotUTF8(t *testing.T) {
	res := &review.Result{RunID: "r", Model: "m", Submitted: true, Findings: []review.Finding{
		{Path: "caf\xe9.go", Line: 3, Severity: review.High, Category: "correctness", Title: "A bug"},
	}, NotReviewed: []review.NotReviewed{}}
	for _, name := range []string{"sarif", "rdjson", "codequality", "json"} {
		f, ok := Lookup(name, Result)
		if !ok {
			t.Fatalf("no format %s", name)
		}
		var b bytes.Buffer
		if err := f.WriteResult(&b, res, "v0"); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out := b.String()
		if !utf8.ValidString(out) || strings.ContainsRune(out, utf8.RuneError) {
			t.Errorf("%s writes the name as U+FFFD:\n%s", name, out)
		}
		if !strings.Contains(out, `caf\\xe9.go`) && !strings.Contains(out, "caf%E9.go") {
			t.Errorf("%s does not name caf\\xe9.go:\n%s", name, out)
		}
	}
}
