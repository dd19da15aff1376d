package toolmem

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// searchOutput is a search result of n matching lines spread over files
// the way real results are: a few files with most of the matches.
func searchOutput(n int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "%d matching lines in some files for \"needle\"\n", n)
	for i := 0; i < n; i++ {
		f := i % 7
		if i%3 == 0 {
			f = 0
		}
		fmt.Fprintf(&b, "src/pkg%d/file%d.go:%d: x := needle(%d)\n", f, f, i+1, i)
	}
	return []byte(b.String())
}

func TestPreviewKindMatches(t *testing.T) {
	data := searchOutput(3000)
	lim := Limits{Chars: 2000, Lines: 40}
	got := PreviewKind(Matches, testRef, data, lim)
	lines := strings.Split(got, "\n")
	if !headerRE.MatchString(lines[0]) {
		t.Fatalf("no header: %q", lines[0])
	}
	if !strings.HasPrefix(lines[1], "[3000 matching lines in 7 files; most: src/pkg0/file0.go 1286, ") {
		t.Errorf("digest = %q", lines[1])
	}
	if lines[2] != "3000 matching lines in some files for \"needle\"" || !strings.HasPrefix(lines[3], "src/pkg0/file0.go:1: ") {
		t.Errorf("the first lines of the output do not follow the digest:\n%s", got)
	}
	if !strings.HasPrefix(lines[len(lines)-1], "[... ") {
		t.Errorf("last line = %q", lines[len(lines)-1])
	}
	if c := utf8.RuneCountInString(got); c > lim.Chars {
		t.Errorf("%d characters", c)
	}
	// The header's paging call starts right after the lines shown.
	shown := len(lines) - 3
	if !strings.Contains(lines[0], fmt.Sprintf(`"start_line": %d,`, shown+1)) {
		t.Errorf("header %q, %d lines shown", lines[0], shown)
	}
}

func TestPreviewKindPaths(t *testing.T) {
	var b strings.Builder
	b.WriteString("3000 files at head (path, then size in bytes)\n")
	for i := 0; i < 3000; i++ {
		dir := "internal/api"
		switch {
		case i%10 == 0:
			dir = "docs"
		case i%4 == 0:
			dir = "cmd/tool"
		}
		fmt.Fprintf(&b, "%s/f%04d.go %d\n", dir, i, i*10)
	}
	b.WriteString("README.md 120\n")
	got := PreviewKind(Paths, testRef, []byte(b.String()), Limits{Chars: 1500, Lines: 30})
	lines := strings.Split(got, "\n")
	if want := "[3001 files in 4 directories; most: internal/api/ 2100, cmd/tool/ 600, docs/ 300, ./ 1]"; lines[1] != want {
		t.Errorf("digest = %q, want %q", lines[1], want)
	}
}

func TestPreviewKindFallsBack(t *testing.T) {
	small := []byte("a.go:1: x\n")
	if got := PreviewKind(Matches, testRef, small, Limits{}); got != string(small) {
		t.Errorf("an output that fits changed: %q", got)
	}
	text := numbered("line", 500)
	if PreviewKind(Matches, testRef, text, Limits{}) != Preview(testRef, text, Limits{}) {
		t.Error("an output with no matches is not previewed as text")
	}
}

// FuzzPreviewKind checks the limits for every kind, whatever the output.
func FuzzPreviewKind(f *testing.F) {
	f.Add(searchOutput(500), 0, 0, 0)
	f.Add(searchOutput(50), 200, 4, 1)
	f.Add([]byte(strings.Repeat("a/b/c.go 12\n", 400)), 300, 5, 2)
	f.Add([]byte(strings.Repeat("漢字/路径.go:3: 文字\n", 300)), 250, 6, 1)
	f.Add([]byte(strings.Repeat("\xff:1: \xfe\n", 300)), 200, 3, 1)
	kinds := []Kind{Text, Matches, Paths, Deps}
	f.Fuzz(func(t *testing.T, data []byte, chars, lines, kind int) {
		lim := Limits{Chars: chars % 5000, Lines: lines % 200}
		k := kinds[(kind%3+3)%3]
		got := PreviewKind(k, testRef, data, lim)
		n := lim.Normalized()
		if fits(data, n) {
			if got != string(data) {
				t.Fatalf("output within the limits was changed")
			}
			return
		}
		if !utf8.ValidString(got) {
			t.Fatalf("not valid UTF-8: %q", got)
		}
		if c := utf8.RuneCountInString(got); c > n.Chars {
			t.Fatalf("%d characters, limit %d:\n%s", c, n.Chars, got)
		}
		if l := countLines([]byte(got)); l > n.Lines {
			t.Fatalf("%d lines, limit %d:\n%s", l, n.Lines, got)
		}
		if !headerRE.MatchString(strings.SplitN(got, "\n", 2)[0]) {
			t.Fatalf("first line is not a preview header: %q", got)
		}
	})
}

func TestPreviewKindDeps(t *testing.T) {
	var b strings.Builder
	b.WriteString("3 dependency manifests in the repository at head\n")
	for i, n := range []int{5, 300, 40} {
		fmt.Fprintf(&b, "dir%d/package.json: npm package\n  dependencies (%d):\n", i, n)
		for d := 0; d < n; d++ {
			fmt.Fprintf(&b, "    dep%d ^1.%d.0\n", d, d)
		}
	}
	b.WriteString("go.mod: Go module\n  (no dependencies declared)\n")
	lim := Limits{Chars: 1200, Lines: 30}
	got := PreviewKind(Deps, testRef, []byte(b.String()), lim)
	lines := strings.Split(got, "\n")
	if !headerRE.MatchString(lines[0]) {
		t.Fatalf("no header: %q", lines[0])
	}
	if want := "[345 dependencies in 3 manifests; most: dir1/package.json 300, dir2/package.json 40, dir0/package.json 5]"; lines[1] != want {
		t.Errorf("digest = %q, want %q", lines[1], want)
	}
	if lines[2] != "3 dependency manifests in the repository at head" {
		t.Errorf("the output does not follow the digest:\n%s", got)
	}
	if c := utf8.RuneCountInString(got); c > lim.Chars || len(lines) > lim.Lines {
		t.Errorf("%d characters, %d lines", c, len(lines))
	}
}
