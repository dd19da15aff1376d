package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reviewdev/review/review/result"
)

// TestPathsNotUTF8 checks that a finding on a file whose name is not
// UTF-8 names it exactly in every machine format (SARIF percent-encodes
// it; the others quote it as the JSON outputs do), never as U+FFFD.
func TestPathsNotUTF8(t *testing.T) {
	res := &result.Result{RunID: "r", Model: "m", Submitted: true, Findings: []result.Finding{
		{Path: "caf\xe9.go", Line: 3, Severity: result.High, Category: "correctness", Title: "A bug"},
	}, NotReviewed: []result.NotReviewed{}}
	for _, name := range []string{"sarif", "rdjson", "codequality", "json", "github", "markdown"} {
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
		if !strings.Contains(out, `caf\\xe9.go`) && !strings.Contains(out, "caf%E9.go") && !strings.Contains(out, `"caf\xe9.go"`) {
			t.Errorf("%s does not name caf\\xe9.go:\n%s", name, out)
		}
	}
}

// TestGitHubAnnotationNotUTF8: the runner reads its log as UTF-8, so an
// annotation cannot name a file whose name is not; it goes on the run,
// its title naming the file quoted, while a UTF-8 name stays on its line.
func TestGitHubAnnotationNotUTF8(t *testing.T) {
	res := &result.Result{RunID: "r", Submitted: true, Findings: []result.Finding{
		{Path: "caf\xe9.go", Line: 3, Severity: result.High, Title: "A bug"},
		{Path: "café.go", Line: 4, Severity: result.Low, Title: "B"},
	}}
	var b bytes.Buffer
	if err := writeGitHub(&b, res); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if want := `::error title="caf\xe9.go"%3A3%3A [high] A bug (general)::A bug`; !strings.HasPrefix(lines[0], want) {
		t.Errorf("annotation = %q, want it to start %q", lines[0], want)
	}
	if want := "::notice file=café.go,line=4,title="; !strings.HasPrefix(lines[1], want) {
		t.Errorf("annotation = %q, want it to start %q", lines[1], want)
	}
}
