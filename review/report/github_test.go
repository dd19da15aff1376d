package report

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	ctext "github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/result"
)

// workflowCommand is a workflow command parsed the way the Actions runner
// parses one line: "::name k=v,k=v::message", values unescaped.
type workflowCommand struct {
	name    string
	props   map[string]string
	message string
}

func parseWorkflowCommand(line string) (workflowCommand, error) {
	rest, ok := strings.CutPrefix(line, "::")
	if !ok {
		return workflowCommand{}, fmt.Errorf("%q does not start with ::", line)
	}
	info, msg, ok := strings.Cut(rest, "::")
	if !ok {
		return workflowCommand{}, fmt.Errorf("%q has no second ::", line)
	}
	c := workflowCommand{props: map[string]string{}, message: unescapeData(msg)}
	name, props, _ := strings.Cut(info, " ")
	c.name = name
	if props != "" {
		for _, kv := range strings.Split(props, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return workflowCommand{}, fmt.Errorf("property %q of %q has no =", kv, line)
			}
			c.props[k] = unescapeProperty(v)
		}
	}
	return c, nil
}

// unescapeData and unescapeProperty undo the escapes as the runner does
// (ActionCommand.Unescape), in the reverse order of escaping.
func unescapeData(s string) string {
	return strings.NewReplacer("%0D", "\r", "%0A", "\n", "%25", "%").Replace(s)
}

func unescapeProperty(s string) string {
	return strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%").Replace(s)
}

func TestWriteGitHub(t *testing.T) {
	r := hostileResult()
	var b bytes.Buffer
	if err := writeGitHub(&b, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != len(r.Findings)+1 {
		t.Fatalf("%d lines for %d findings; a finding's text broke a command:\n%s", len(lines), len(r.Findings), b.String())
	}
	tests := []struct {
		name, line, endLine string
	}{
		{"error", "42", "45"},
		{"error", "7", ""},
		{"warning", "3", ""},
		{"notice", "", ""},
		{"notice", "1", ""},
	}
	for i, tt := range tests {
		f := r.Findings[i]
		c, err := parseWorkflowCommand(lines[i])
		if err != nil {
			t.Fatal(err)
		}
		if c.name != tt.name || c.props["line"] != tt.line || c.props["endLine"] != tt.endLine {
			t.Errorf("finding %d: %s line=%q endLine=%q, want %s line=%q endLine=%q", i, c.name, c.props["line"], c.props["endLine"], tt.name, tt.line, tt.endLine)
		}
		if c.props["file"] != f.Path {
			t.Errorf("finding %d: file %q, want %q", i, c.props["file"], f.Path)
		}
		if want := annotationTitle(f); c.props["title"] != want {
			t.Errorf("finding %d: title %q, want %q", i, c.props["title"], want)
		}
		if want := plainMessage(f, false); c.message != want {
			t.Errorf("finding %d: message %q, want %q", i, c.message, want)
		}
		wantKeys := 2 // file and title
		for _, v := range []string{tt.line, tt.endLine} {
			if v != "" {
				wantKeys++
			}
		}
		if len(c.props) != wantKeys {
			t.Errorf("finding %d: properties %v", i, c.props)
		}
	}
	if last := lines[len(lines)-1]; strings.HasPrefix(last, "::") || !strings.Contains(last, "review replay r7k2m9") {
		t.Errorf("last line = %q, want a plain line with the replay command", last)
	}

	b.Reset()
	if err := writeGitHub(&b, &result.Result{RunID: "none", Submitted: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "::") || !strings.Contains(b.String(), "no findings") {
		t.Errorf("no findings: %q", b.String())
	}
}

// TestWriteGitHubIncomplete checks that a review the model never submitted
// says so in a warning annotation, not only "no findings".
func TestWriteGitHubIncomplete(t *testing.T) {
	var b strings.Builder
	if err := writeGitHub(&b, &result.Result{RunID: "r1", Summary: "Looks fine."}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("want the warning and the replay line, got %q", b.String())
	}
	c, err := parseWorkflowCommand(lines[0])
	if err != nil {
		t.Fatal(err)
	}
	if c.name != "warning" || c.props["title"] != "Incomplete review" || !strings.Contains(c.message, "did not submit") {
		t.Errorf("warning = %+v", c)
	}
}

func TestEscapeRoundTrip(t *testing.T) {
	for _, s := range []string{
		"", "plain", "100%", "%25", "%0A", "a\nb", "a\r\nb", "\r", "key: value, more", "::error::x",
		"%%3A%2C", "日本語 ✓ 🚀", "trailing %", "%0D%0A\r\n%",
	} {
		d := escapeData(s)
		p := escapeProperty(s)
		if strings.ContainsAny(d, "\r\n") || strings.ContainsAny(p, "\r\n:,") {
			t.Errorf("%q escapes to data %q, property %q", s, d, p)
		}
		if got := unescapeData(d); got != s {
			t.Errorf("data %q → %q → %q", s, d, got)
		}
		if got := unescapeProperty(p); got != s {
			t.Errorf("property %q → %q → %q", s, p, got)
		}
	}
}

// FuzzWorkflowCommand checks that no finding can break out of its command:
// one line per command, and the runner's parse gives back the text.
func FuzzWorkflowCommand(f *testing.F) {
	f.Add("a.go", "title", "body", "fix", 3, 5)
	f.Add("dir:x,y.go", "::error::x", "l1\r\nl2\n::warning::y", "%0A%25", 0, 0)
	f.Add("p\n.go", "t\r", "%", "", -1, 2)
	f.Add("ü.go", "✓ 🚀", "\x00\xff", "```suggestion\nx\n```", 1, 1)
	f.Fuzz(func(t *testing.T, path, title, body, suggestion string, line, end int) {
		fd := result.Finding{Path: path, Line: line, EndLine: end, Severity: result.High, Category: "c,d:e", Title: title, Body: body, Suggestion: suggestion}
		var b bytes.Buffer
		if err := writeGitHub(&b, &result.Result{RunID: "run", Submitted: true, Findings: []result.Finding{fd}}); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if len(lines) != 2 {
			t.Fatalf("%d lines, want the command and the replay line:\n%q", len(lines), b.String())
		}
		if strings.Contains(lines[0], "\r") {
			t.Fatalf("raw carriage return in %q", lines[0])
		}
		if ctext.Clean(lines[0]) != lines[0] {
			t.Fatalf("control characters in %q", lines[0])
		}
		c, err := parseWorkflowCommand(lines[0])
		if err != nil {
			t.Fatal(err)
		}
		// Everything but what a terminal would act on comes through. A
		// name that is not UTF-8 names no file: the title says where.
		file, title := path, annotationTitle(fd)
		if !utf8.ValidString(path) {
			file, title = "", fd.Location()+": "+title
		}
		if c.props["file"] != ctext.Clean(file) || c.props["title"] != ctext.Clean(title) || c.message != ctext.Clean(plainMessage(fd, false)) {
			t.Fatalf("round trip lost text: %+v", c)
		}
		if line > 0 && file != "" && c.props["line"] != strconv.Itoa(line) {
			t.Fatalf("line = %q, want %d", c.props["line"], line)
		}
	})
}
