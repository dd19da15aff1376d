package report

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/reviewdev/review/review/result"
)

// hostileText is what a pull request's configuration or a model can put in
// any string: workflow commands after each kind of line break, the legacy
// command form, and terminal escape sequences.
const hostileText = "m\n::error::X1\r::error::X2\r\n::error::X3 ##[error]X4 \x1b]0;title\x07\x1b[31mred\x1b[0m \u009b2J\x7f"

func hostileEverywhere() *result.Result {
	r := hostileResult()
	r.Model = hostileText
	r.Summary = hostileText
	r.Base, r.Head = hostileText, hostileText
	r.Findings[0].Title = hostileText
	r.Findings[0].Body = hostileText
	r.Findings[0].Note = hostileText
	r.Dropped = []result.Dropped{{Finding: result.Finding{Path: hostileText, Title: hostileText}, Reason: hostileText}}
	return r
}

// checkPrintable fails if out has a line the Actions runner would run as a
// workflow command (other than the commands it is meant to have), or
// anything a terminal would act on.
func checkPrintable(t *testing.T, out string, commands int) {
	t.Helper()
	if strings.ContainsFunc(out, func(r rune) bool {
		return r < 0x20 && r != '\n' && r != '\t' && r != '\r' || r >= 0x7f && r <= 0x9f
	}) {
		t.Errorf("control character in output:\n%q", out)
	}
	n := 0
	for _, line := range strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' }) {
		// The runner reads "##[" anywhere in a line, unless the line is a
		// "::" command, which it parses first.
		if strings.Contains(line, "##[") && !strings.HasPrefix(line, "::") {
			t.Errorf("legacy workflow command in line %q", line)
		}
		if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") {
			n++
			if strings.Contains(line, "X1") || strings.Contains(line, "X2") || strings.Contains(line, "X3") {
				if !strings.HasPrefix(line, "::error file=") && !strings.HasPrefix(line, "::notice file=") {
					t.Errorf("injected workflow command: %q", line)
				}
			}
		}
	}
	if n != commands {
		t.Errorf("%d workflow command lines, want %d:\n%s", n, commands, out)
	}
}

// TestFormatsSafeToPrint writes hostile text in every format: none lets it
// become a workflow command or reach a terminal raw.
func TestFormatsSafeToPrint(t *testing.T) {
	r := hostileEverywhere()
	for _, name := range Names(Result) {
		f, _ := Lookup(name, Result)
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := f.WriteResult(&b, r, "v1"); err != nil {
				t.Fatal(err)
			}
			commands := 0
			if name == "github" {
				commands = len(r.Findings) // one annotation each, nothing more
			}
			checkPrintable(t, b.String(), commands)
			if name == "json" {
				var back result.Result
				if err := json.Unmarshal(b.Bytes(), &back); err != nil {
					t.Fatal(err)
				}
				if back.Model != hostileText || back.Findings[0].Body != hostileText {
					t.Errorf("JSON changed the text: model %q", back.Model)
				}
			}
		})
	}
	t.Run("answer", func(t *testing.T) {
		var b bytes.Buffer
		a := &result.Answer{RunID: "r", Answer: hostileText, Model: hostileText, Findings: r.Findings[:1]}
		if err := writeAnswer(&b, a); err != nil {
			t.Fatal(err)
		}
		checkPrintable(t, b.String(), 0)
	})
	t.Run("dry run", func(t *testing.T) {
		var b bytes.Buffer
		d := &result.DryRun{Revisions: r.Revisions, Model: hostileText, Tokenizer: "tiktoken",
			Messages: []result.DryRunMessage{{Role: "user", Layer: "static", Content: hostileText}}}
		if err := writeDryRun(&b, d); err != nil {
			t.Fatal(err)
		}
		checkPrintable(t, b.String(), 0)
	})
}

func TestSafeJSON(t *testing.T) {
	for _, s := range []string{"", "plain", hostileText, "日本語 ✓", "###[", "\u0085\u0080\u009f\u00a0"} {
		var b bytes.Buffer
		if err := WriteJSON(&b, map[string]string{"v": s}); err != nil {
			t.Fatal(err)
		}
		checkPrintable(t, b.String(), 0)
		var back map[string]string
		if err := json.Unmarshal(b.Bytes(), &back); err != nil {
			t.Fatalf("%q: %v\n%s", s, err, b.String())
		}
		if back["v"] != s {
			t.Errorf("%q came back as %q", s, back["v"])
		}
	}
	// Raw JSON (a recorded request) may hold invalid UTF-8; it stays JSON.
	raw := json.RawMessage("{\"a\":\"x\xffy ##[z\u009b\"}")
	got := safeJSON([]byte(raw))
	var v any
	if err := json.Unmarshal(got, &v); err != nil || !reflect.DeepEqual(v, map[string]any{"a": "x\ufffdy ##[z\u009b"}) {
		t.Errorf("safeJSON(%q) = %q (%v)", raw, got, err)
	}
}

// TestSARIFIncomplete checks that a review the model never submitted is
// an unsuccessful invocation with a notification saying why.
func TestSARIFIncomplete(t *testing.T) {
	for _, submitted := range []bool{true, false} {
		r := hostileResult()
		r.Submitted = submitted
		var b bytes.Buffer
		if err := writeSARIF(&b, r, "v1"); err != nil {
			t.Fatal(err)
		}
		var out struct {
			Runs []struct {
				Invocations []struct {
					ExecutionSuccessful *bool `json:"executionSuccessful"`
					Notes               []struct {
						Level   string `json:"level"`
						Message struct{ Text string }
					} `json:"toolExecutionNotifications"`
				} `json:"invocations"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(b.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		inv := out.Runs[0].Invocations
		switch {
		case submitted && inv != nil:
			t.Errorf("submitted review has invocations %+v", inv)
		case !submitted && (len(inv) != 1 || inv[0].ExecutionSuccessful == nil || *inv[0].ExecutionSuccessful ||
			len(inv[0].Notes) != 1 || !strings.Contains(inv[0].Notes[0].Message.Text, "did not submit")):
			t.Errorf("unsubmitted review: invocations %+v", inv)
		}
	}
}
