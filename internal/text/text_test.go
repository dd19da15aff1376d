package text

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestOneLine(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"a\n b\t\tc ", 0, "a b c"},
		{"", 5, ""},
		{"abcdef", 3, "abc…"},
		{"abc", 3, "abc"},
		{"héllo wörld", 4, "héll…"},
		{"日本語のテキスト", 3, "日本語…"},
	} {
		if got := OneLine(tc.in, tc.n); got != tc.want {
			t.Errorf("OneLine(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "ab…"},
		{"日本語のテキスト", 4, "日本語…"},
		{"日本語", 3, "日本語"},
		{"abc", 0, ""},
	} {
		got := Truncate(tc.in, tc.n)
		if got != tc.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
		if !utf8.ValidString(got) || utf8.RuneCountInString(got) > max(tc.n, 0) {
			t.Errorf("Truncate(%q, %d) = %q: not valid or too long", tc.in, tc.n, got)
		}
	}
}

func TestFirstLine(t *testing.T) {
	for in, want := range map[string]string{"": "", "  one \ntwo": "one", "\n\n x\r\ny": "x"} {
		if got := FirstLine(in); got != want {
			t.Errorf("FirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPluralShortSHA(t *testing.T) {
	if Plural(1, "file") != "1 file" || Plural(0, "file") != "0 files" || Plural(2, "turn") != "2 turns" {
		t.Error("Plural")
	}
	if ShortSHA("0123456789abcdef") != "0123456789ab" || ShortSHA("abc") != "abc" {
		t.Error("ShortSHA")
	}
}

func FuzzTruncate(f *testing.F) {
	f.Add("日本語のテキスト", 4)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= 1000
		got := Truncate(s, n)
		if utf8.ValidString(s) && (!utf8.ValidString(got) || utf8.RuneCountInString(got) > max(n, 0)) {
			t.Fatalf("Truncate(%q, %d) = %q", s, n, got)
		}
	})
}

func TestJoinOr(t *testing.T) {
	for want, in := range map[string][]string{"": nil, "a": {"a"}, "a or b": {"a", "b"}, "a, b or c": {"a", "b", "c"}} {
		if got := JoinOr(in); got != want {
			t.Errorf("JoinOr(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWrap(t *testing.T) {
	got := Wrap("the keys a, bb, ccc and dddd.\nnext", 12)
	want := "the keys a,\nbb, ccc and\ndddd.\nnext"
	if got != want {
		t.Errorf("Wrap = %q, want %q", got, want)
	}
	if Wrap("averyveryverylongword x", 5) != "averyveryverylongword\nx" {
		t.Error("long word")
	}
}

func TestQuotePath(t *testing.T) {
	for _, c := range []struct{ path, shown string }{
		{"src/main.go", "src/main.go"},
		{"sp ace.go", "sp ace.go"},
		{"é.go", "é.go"},
		{"a\nb.go", `"a\nb.go"`},
		{"tab\there", `"tab\there"`},
		{"bad\xffbyte", `"bad\xffbyte"`},
		{`"quoted".go`, `"quoted".go`},
		{`"plain"`, `"plain"`}, // a name with quotes stays itself
	} {
		if got := QuotePath(c.path); got != c.shown {
			t.Errorf("QuotePath(%q) = %q, want %q", c.path, got, c.shown)
		}
		if got := UnquotePath(c.shown); got != c.path {
			t.Errorf("UnquotePath(%q) = %q, want %q", c.shown, got, c.path)
		}
	}
}

func TestJSONPath(t *testing.T) {
	for _, c := range []struct{ path, written string }{
		{"src/main.go", "src/main.go"},
		{"a\nb.go", "a\nb.go"}, // JSON carries a newline exactly
		{"é.go", "é.go"},
		{"caf\xe9.txt", `"caf\xe9.txt"`},
		{"dir\xff/x.go", `"dir\xff/x.go"`},
		{`"plain"`, `"plain"`},
		{`"a\nb.go"`, `"a\nb.go"`}, // a UTF-8 name with quotes stays itself
	} {
		got := JSONPath(c.path)
		if got != c.written || !utf8.ValidString(got) {
			t.Errorf("JSONPath(%q) = %q, want %q", c.path, got, c.written)
		}
		if back := PathFromJSON(got); back != c.path {
			t.Errorf("PathFromJSON(%q) = %q, want %q", got, back, c.path)
		}
		if !utf8.ValidString(c.path) && UnquotePath(got) != c.path {
			t.Errorf("the tools read %q as %q, want %q", got, UnquotePath(got), c.path)
		}
	}
}

func TestCodeFence(t *testing.T) {
	for code, want := range map[string]string{
		"":               "```",
		"a `b` c":        "```",
		"x ```` y `` z":  "`````",
		"```\ncode\n```": "````",
	} {
		if got := CodeFence(code); got != want {
			t.Errorf("CodeFence(%q) = %q, want %q", code, got, want)
		}
	}
	if n := LongestRun([]byte("a``b```"), '`'); n != 3 {
		t.Errorf("LongestRun = %d, want 3", n)
	}
}

// oneLineFolded is OneLine as folding first would make it.
func oneLineFolded(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if n > 0 && utf8.RuneCountInString(s) > n {
		return string([]rune(s)[:n]) + "…"
	}
	return s
}

// FuzzOneLine holds OneLine, which cuts before it folds, to the text that
// folding first makes.
func FuzzOneLine(f *testing.F) {
	for _, s := range []string{"", " ", "a b", "  a \n\t b  ", "héllo   wörld", "a\u00a0b", "x\u2028y", strings.Repeat("ab ", 100)} {
		for _, n := range []int{0, 1, 2, 3, 5, 200} {
			f.Add(s, n)
		}
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = n % 1000
		if got, want := OneLine(s, n), oneLineFolded(s, n); got != want {
			t.Errorf("OneLine(%q, %d) = %q, want %q", s, n, got, want)
		}
	})
}
