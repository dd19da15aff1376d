package seam

import (
	"fmt"
	"strings"
	"testing"

	"github.com/reviewdev/review/review/result"
)

// TestAnchor: an anchor names the text of a finding's lines, whatever
// their indentation and wherever they move; a change to them, or their
// removal, leaves it absent.
func TestAnchor(t *testing.T) {
	src := []byte("package a\n\nfunc f() {\n\tx := 1\n\treturn\n}\n")
	a := Anchor(src, 4, 5)
	if !strings.HasPrefix(a, "2-") || !anchorRE().MatchString(a) {
		t.Fatalf("Anchor = %q", a)
	}
	for _, tc := range []struct {
		content string
		present bool
	}{
		{string(src), true},
		{"package a\n\n// moved down\n\nfunc f() {\n    x := 1\n    return\n}\n", true},
		{"package a\r\n\r\nfunc f() {\r\n\tx := 1\r\n\treturn\r\n}\r\n", true},
		{"package a\n\nfunc f() {\n\tx := 2\n\treturn\n}\n", false},
		{"package a\n", false},
		{"", false},
	} {
		if got := Present(a, []byte(tc.content)); got != tc.present {
			t.Errorf("Present in %q = %v", tc.content, got)
		}
	}
	if Anchor(src, 0, 0) != "" || Anchor(src, 9, 0) != "" || Present("x", src) {
		t.Error("no lines, no anchor")
	}
	if got := Anchor(src, 1, 200); !strings.HasPrefix(got, "6-") {
		t.Errorf("a range past the end: %q", got)
	}
	long := []byte(strings.Repeat("x\n", 100))
	if got := Anchor(long, 1, 100); !strings.HasPrefix(got, "30-") {
		t.Errorf("a long range: %q", got)
	}
}

// TestThreadMarkers: what one run writes, the next reads back, only at
// the start of a body.
func TestThreadMarkers(t *testing.T) {
	body := CommentMarker("ab12", "r 1", AnchorField("3-0123456789abcdef"), "") + "\n**[low] T** · style"
	if want := "<!-- review:fp=ab12 run=r_1 code=3-0123456789abcdef -->"; !strings.HasPrefix(body, want) {
		t.Errorf("CommentMarker = %q", body)
	}
	fp, run, code, ok := ReadThreadMarker(body)
	if !ok || fp != "ab12" || run != "r_1" || code != "3-0123456789abcdef" {
		t.Errorf("ReadThreadMarker = %q %q %q %v", fp, run, code, ok)
	}
	if _, _, code, ok := ReadThreadMarker(CommentMarker("ab", "r")); !ok || code != "" {
		t.Errorf("a marker without an anchor: %q %v", code, ok)
	}
	if fp, sev, ok := ReadCommentMarker(body); !ok || fp != "ab12" || sev != result.Low {
		t.Errorf("ReadCommentMarker = %q %q %v", fp, sev, ok)
	}
	d := DismissMarker("ab12", "Ma l--ory<x>") + "\nDismissed"
	if fp, who, ok := ReadDismissMarker(d); !ok || fp != "ab12" || who != "Mal-oryx" {
		t.Errorf("ReadDismissMarker(%q) = %q %q %v", d, fp, who, ok)
	}
	if _, _, ok := ReadDismissMarker("quoted " + d); ok {
		t.Error("a quoted dismissal counts")
	}
}

// TestReconcile: each earlier thread's state, and what this review does
// with its findings, those worded otherwise on the same code included.
func TestReconcile(t *testing.T) {
	f := func(title string, line int) result.Finding {
		return result.Finding{Path: "a.go", Line: line, Severity: result.High, Category: "bug", Title: title}
	}
	resolved, thumbs, dismissed, fixed, kept, gone, again, ours, old := f("resolved", 1), f("thumbs", 2), f("dismissed", 3), f("fixed", 4), f("kept", 5), f("gone", 6), f("again", 7), f("ours", 8), f("old", 9)
	th := func(g result.Finding, mod func(*Thread)) Thread {
		t := Thread{Fingerprint: g.Fingerprint(), Run: "r1", Code: fmt.Sprintf("1-%016x", g.Line), Path: g.Path, Line: g.Line, URL: fmt.Sprint("u", g.Line), ID: fmt.Sprint("T", g.Line), Rule: "bug"}
		if mod != nil {
			mod(&t)
		}
		return t
	}
	threads := []Thread{
		th(resolved, func(t *Thread) { t.Resolved, t.ResolvedBy = true, "alice" }),
		th(thumbs, func(t *Thread) { t.Dismissed = ThumbsDownWhy("bob") }),
		th(dismissed, func(t *Thread) { t.Dismissed = DismissWhy("carol") }),
		th(fixed, nil),
		th(kept, nil),
		th(gone, func(t *Thread) { t.Code = ""; t.Outdated = true }),
		th(again, nil),
		th(ours, func(t *Thread) { t.Resolved, t.ResolvedByUs = true, true }),
		th(old, func(t *Thread) { t.Code = "" }),
		th(kept, func(t *Thread) { t.Dismissed = ThumbsDownWhy("dave") }), // a second thread of kept
		th(f("open", 11), nil),
		th(f("reopened", 12), func(t *Thread) { t.Reopened = true }),
	}
	present := func(t Thread) bool { return t.Line != fixed.Line && t.Line != again.Line && t.Line != 12 }
	fresh := f("fresh", 10)
	// The model words two findings again otherwise: on the lines of the
	// resolved one and of the open one, same file and rule.
	reworded, reopen := f("resolved in other words", 1), f("open in other words", 11)
	anchor := func(g result.Finding) string {
		if g.Line == 1 || g.Line == 11 {
			return fmt.Sprintf("1-%016x", g.Line)
		}
		return "1-" + strings.Repeat("f", 16)
	}
	fs := []result.Finding{resolved, thumbs, dismissed, again, fresh, reworded, reopen}
	l := Reconcile(threads, fs, "r2", present, anchor)
	var got []string
	for _, e := range l.Entries {
		got = append(got, fmt.Sprintf("%d %s %s %s", e.Line, e.State, e.Run, e.Why))
	}
	want := []string{
		"1 dismissed r1 thread resolved by alice",
		"2 dismissed r1 marked 👎 by bob",
		"3 dismissed r1 /review dismiss by carol",
		"4 fixed r1 its lines changed and this review did not find it again",
		"5 dismissed r1 marked 👎 by dave",
		"6 fixed r1 its lines changed and this review did not find it again",
		"7 open r1 ",
		"8 fixed r1 resolved by review: its lines changed",
		"9 open r1 ",
		"11 open r1 ",
		"12 open r1 reopened by a person after review resolved it as fixed",
		"10 open r2 ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(l.Suppressed) != 5 || l.Suppressed[thumbs.Fingerprint()] != "marked 👎 by bob" || l.Suppressed[reworded.Fingerprint()] != "thread resolved by alice" {
		t.Errorf("suppressed %v", l.Suppressed)
	}
	if len(l.Same) != 1 || l.Same[reopen.Fingerprint()] != "u11" {
		t.Errorf("same %v", l.Same)
	}
	var resolve []string
	for _, t := range l.Fixed {
		resolve = append(resolve, t.ID)
	}
	if strings.Join(resolve, " ") != "T4 T6" {
		t.Errorf("fixed threads %v, want T4 T6", resolve)
	}
	r := &result.Result{Findings: fs}
	l.Suppress(r)
	if len(r.Findings) != 2 || len(r.Suppressed) != 5 || len(r.Ledger) != 12 || !strings.HasPrefix(r.Suppressed[0].Reason, "dismissed on an earlier review: thread resolved by alice") {
		t.Errorf("Suppress: findings %d, suppressed %+v, ledger %d", len(r.Findings), r.Suppressed, len(r.Ledger))
	}
}

// TestReadRule: a comment's rule is read back as CommentMarkdown wrote it,
// with or without the range it spans.
func TestReadRule(t *testing.T) {
	f := result.Finding{Path: "a.go", Line: 3, EndLine: 4, Severity: result.Medium, Category: "Bug", Title: "A ** · title"}
	for _, covers := range []bool{true, false} {
		body := CommentMarker(f.Fingerprint(), "r") + "\n" + CommentMarkdown(f, "", covers)
		if got := ReadRule(body); got != "bug" {
			t.Errorf("ReadRule(%q) = %q, want bug", body, got)
		}
	}
	if got := ReadRule("**[high] T** · security"); got != "" {
		t.Errorf("a body without a marker has rule %q", got)
	}
}
