package seam

import (
	"strings"
	"testing"

	"github.com/reviewdev/review/review/result"
)

// TestMarkers: what one run writes, the next reads back; a marker
// anywhere but at the start of a body does not count.
func TestMarkers(t *testing.T) {
	const head = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		body            string
		run, head, more string
		ok              bool
	}{
		{ReviewMarker("r1", head) + "\n### review", "r1", head, "", true},
		{ReviewMarker("r2", "ABCDEF0", "heads=1234567,89abcde") + "\nx", "r2", "abcdef0", "heads=1234567,89abcde", true},
		{"Quoted: " + ReviewMarker("r3", head), "", "", "", false},
		{"<!-- review:run=r4 head=nothex -->", "", "", "", false},
	} {
		run, h, more, ok := ReadReviewMarker(tc.body)
		if run != tc.run || h != tc.head || more != tc.more || ok != tc.ok {
			t.Errorf("ReadReviewMarker(%q) = %q, %q, %q, %v", tc.body, run, h, more, ok)
		}
	}
	f := result.Finding{Path: "a.go", Line: 3, Severity: result.High, Category: "security", Title: "T"}
	body := CommentMarker(f.Fingerprint(), "r1") + "\n" + CommentMarkdown(f, "", true)
	fp, sev, ok := ReadCommentMarker(body)
	if !ok || fp != f.Fingerprint() || sev != result.High {
		t.Errorf("ReadCommentMarker = %q, %q, %v", fp, sev, ok)
	}
	if _, _, ok := ReadCommentMarker("see " + body); ok {
		t.Error("a quoted comment marker counts")
	}
}

// TestCommentMarkdown: the replacement is a block of the host's info
// string; without one it is code, and the title says where the finding
// ends when the comment does not span it.
func TestCommentMarkdown(t *testing.T) {
	r := "fixed()"
	f := result.Finding{Path: "a.go", Line: 3, EndLine: 4, Severity: result.Low, Category: "style", Title: "T", Body: "B", Replacement: &r}
	for _, tc := range []struct {
		info   string
		covers bool
		want   string
	}{
		{"suggestion:-0+1", false, "**[low] T** · style · lines 3-4\n\nB\n\n**Suggestion:**\n\n```suggestion:-0+1\nfixed()\n```"},
		{"suggestion", true, "**[low] T** · style\n\nB\n\n**Suggestion:**\n\n```suggestion\nfixed()\n```"},
		{"", false, "**[low] T** · style · lines 3-4\n\nB\n\n**Suggestion:**\n\n```\nfixed()\n```"},
	} {
		if got := CommentMarkdown(f, tc.info, tc.covers); got != tc.want {
			t.Errorf("CommentMarkdown(%q, %v) =\n%s\nwant\n%s", tc.info, tc.covers, got, tc.want)
		}
	}
}

func TestNeutralizeSuggestions(t *testing.T) {
	for in, want := range map[string]string{
		"```suggestion\nx\n```":        "```\nx\n```",
		"```suggestion:-1+0\nx\n```":   "```\nx\n```",
		"  ~~~suggestion:-0+2\nx\n~~~": "  ~~~\nx\n~~~",
		"no suggestion here":           "no suggestion here",
	} {
		if got := NeutralizeSuggestions(in); got != want {
			t.Errorf("NeutralizeSuggestions(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLocation: a post names a file the way the diff context showed it,
// quoted when its name has a newline or bytes that are not UTF-8, which a
// host would receive as U+FFFD; only a UTF-8 name can be put on a line.
func TestLocation(t *testing.T) {
	for _, tc := range []struct {
		f        result.Finding
		want     string
		nameable bool
	}{
		{result.Finding{Path: "a.go", Line: 3}, "a.go:3", true},
		{result.Finding{Path: "a.go", Line: 3, EndLine: 5}, "a.go:3-5", true},
		{result.Finding{Path: "src/ünï/日本.go"}, "src/ünï/日本.go", true},
		{result.Finding{Path: "a\nb.go", Line: 1}, `"a\nb.go":1`, true},
		{result.Finding{Path: "caf\xe9.txt", Line: 1}, `"caf\xe9.txt":1`, false},
		{result.Finding{Path: "caf\xe9.txt"}, `"caf\xe9.txt"`, false},
	} {
		if got := tc.f.Location(); got != tc.want {
			t.Errorf("Location(%q) = %q, want %q", tc.f.Path, got, tc.want)
		}
		if got := Nameable(tc.f.Path); got != tc.nameable {
			t.Errorf("Nameable(%q) = %v", tc.f.Path, got)
		}
	}
	var b strings.Builder
	WriteRepeated(&b, "Earlier", "comment", []Repeated{{Finding: result.Finding{Path: "caf\xe9.txt", Line: 2, Severity: result.Low, Title: "T"}}})
	if want := "#### Earlier\n\n- [low] T · `\"caf\\xe9.txt\":2`\n\n"; b.String() != want {
		t.Errorf("WriteRepeated = %q, want %q", b.String(), want)
	}
}
