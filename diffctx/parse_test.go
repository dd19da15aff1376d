package diffctx

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseGolden parses hand-written diffs of cases real git output covers
// less easily (header-only combinations, -U0 hunks, octal quoting) and
// compares them with golden JSON.
func TestParseGolden(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "parse", "*.diff"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			files, err := Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, strings.TrimSuffix(p, ".diff")+".json", goldenJSON(t, files))
		})
	}
}

// TestParseInvalid checks that diffs that do not hold together are errors
// naming the file and the line, never a silently wrong result.
func TestParseInvalid(t *testing.T) {
	cases := []struct {
		file, name, reason string
		line               int
	}{
		{"count_mismatch", "short.txt", "holds 1 old and 2 new lines, its header says 2 and 3", 12},
		{"missing_diff_git", "", `expected a "diff --git" line`, 1},
		{"garbage_in_hunk", "x.txt", "bad hunk line", 5},
		{"bad_hunk_header", "x.txt", "bad hunk header", 5},
		{"overlapping", "x.txt", "overlaps", 9},
		{"unknown_header", "x.txt", `unexpected header line "frobnicated index 12"`, 2},
		{"added_deletes", "x.txt", "deletes lines of an added file", 6},
		{"no_hunks", "x.txt", "no hunk follows", 5},
		{"u0_dashes", "q.sql", "bad hunk line", 5},
		{"blank_context", "x.txt", "empty line inside the hunk", 5},
		{"bad_quote", "", "badly quoted path", 3},
		{"binary_with_hunk", "x.bin", "binary file has text hunks", 6},
		{"hunk_without_file_lines", "x.txt", `unexpected header line "@@ -1 +1 @@"`, 3},
		{"rename_half", "y.txt", "lacks its from or to line", 1},
		{"negative_count", "x.txt", "bad line range", 5},
		{"trailing_garbage", "x.txt", "bad hunk line", 5},
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		seen[tc.file+".diff"] = true
		t.Run(tc.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", "invalid", tc.file+".diff"))
			if err != nil {
				t.Fatal(err)
			}
			files, err := Parse(raw)
			var perr *ParseError
			if !errors.As(err, &perr) {
				t.Fatalf("Parse = %d files, %v; want a *ParseError", len(files), err)
			}
			if perr.File != tc.name || perr.Line != tc.line || !strings.Contains(perr.Reason, tc.reason) {
				t.Errorf("error = %+v, want file %q, line %d, reason containing %q", perr, tc.name, tc.line, tc.reason)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("message has several lines: %q", err)
			}
		})
	}
	all, _ := filepath.Glob(filepath.Join("testdata", "invalid", "*.diff"))
	for _, p := range all {
		if !seen[filepath.Base(p)] {
			t.Errorf("%s has no test case", p)
		}
	}
}

func TestParseEmpty(t *testing.T) {
	for _, raw := range []string{"", "\n", "  \n\n"} {
		files, err := Parse([]byte(raw))
		if err != nil || len(files) != 0 {
			t.Errorf("Parse(%q) = %v, %v; want nothing", raw, files, err)
		}
	}
}

// TestParseLongLine checks lines longer than the read buffer.
func TestParseLongLine(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	raw := "diff --git a/l.txt b/l.txt\nindex 1111111..2222222 100644\n--- a/l.txt\n+++ b/l.txt\n@@ -1 +1 @@\n-" +
		long + "\n+" + long + "y\n" + "diff --git a/m.txt b/m.txt\nindex 1111111..2222222 100644\n--- a/m.txt\n+++ b/m.txt\n@@ -1 +1 @@\n-a\n+b\n"
	files, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].Hunks[0].Body != "-"+long+"\n+"+long+"y\n" || files[1].Path != "m.txt" {
		t.Errorf("long line misread: %d files", len(files))
	}
}

func TestUnquoteC(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{`"plain"`, "plain", true},
		{`"a\tb\nc\\d\"e"`, "a\tb\nc\\d\"e", true},
		{`"\a\b\v\f\r"`, "\a\b\v\f\r", true},
		{`"caf\303\251"`, "café", true},
		{`"\377"`, "\xff", true}, // not UTF-8, kept as is
		{`"\400"`, "", false},
		{`"\12"`, "", false},
		{`"\q"`, "", false},
		{`"a"b"`, "", false},
		{`"open`, "", false},
		{`"trailing\"`, "", false},
	} {
		got, ok := unquoteC(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("unquoteC(%s) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestSplitGitLine(t *testing.T) {
	for _, tc := range []struct {
		in, old, new string
	}{
		{"a/x.go b/x.go", "x.go", "x.go"},
		{"a/with space b/with space", "with space", "with space"},
		{"a/trail  b/trail ", "trail ", "trail "},
		{"a/a b/c b/a b/c", "a b/c", "a b/c"},
		{`"a/q\"x" "b/q\"x"`, `q"x`, `q"x`},
		{`a/plain "b/qu\"ote"`, "plain", `qu"ote`},
		{`"a/qu\"ote" b/plain`, `qu"ote`, "plain"},
		{"a/old b/new", "old", "new"},
		{"a/o ld b/n ew", "o ld", "n ew"},
		{"a/x b/y b/z", "", ""}, // ambiguous
		{`"a/open`, "", ""},
	} {
		old, new := splitGitLine(tc.in)
		if old != tc.old || new != tc.new {
			t.Errorf("splitGitLine(%q) = %q, %q; want %q, %q", tc.in, old, new, tc.old, tc.new)
		}
	}
}
