package text

import (
	"bytes"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestSafe(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "model gpt-4o\n", "model gpt-4o\n"},
		{"unicode", "naïve 日本語 ✓\tok", "naïve 日本語 ✓\tok"},
		{"command after LF", "m\n::error::X", "m\n\\::error::X"},
		{"command after CR", "m\r::error::X", "m\n\\::error::X"},
		{"command after CRLF", "m\r\n::error::X", "m\r\n\\::error::X"},
		{"command first", "::add-mask::secret", "\\::add-mask::secret"},
		{"command after spaces", "a\n \t ::warning::x", "a\n \t \\::warning::x"},
		{"command after unicode space", "a\n\u00a0\u2003::notice::x", "a\n\u00a0\u2003\\::notice::x"},
		{"NEL is no line break", "a\u0085::error::x", "a::error::x"},
		{"command hidden by control", "a\n\x01::error::x", "a\n\\::error::x"},
		{"command hidden by escape", "a\n\x1b[0m::error::x", "a\n\\::error::x"},
		{"command mid-line", "see ::error::x", "see ::error::x"},
		{"single colon", ":: :x\n:x", "\\:: :x\n:x"},
		{"legacy command", "ok ##[error]x", "ok #\\#[error]x"},
		{"legacy command run", "###[x", "##\\#[x"},
		{"csi colour", "\x1b[31mred\x1b[0m", "red"},
		{"csi private", "\x1b[?1049h\x1b[2J\x1b[Hx", "x"},
		{"osc title bel", "\x1b]0;pwned\x07after", "after"},
		{"osc hyperlink st", "\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"osc open", "\x1b]0;never closed\nnext", "\nnext"},
		{"dcs", "\x1bPq#0;2;0;0;0\x1b\\x", "x"},
		{"two-byte escapes", "\x1bc\x1b7\x1b(Bx", "x"},
		{"lone esc", "x\x1b", "x"},
		{"c1 csi", "\u009b31mred", "red"},
		{"c1 osc", "\u009d0;t\u009cx", "x"},
		{"c1 other", "a\u0085b\u0080c", "abc"},
		{"c0 and del", "a\x00b\x07c\x08d\x7fe\x0bf\x0cg", "abcdefg"},
		{"bare cr", "100%\rdone", "100%\ndone"},
		{"invalid utf8", "a\xffb\xc2", "a\ufffdb\ufffd"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Safe(tc.in); got != tc.want {
				t.Errorf("Safe(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"a\r\n::error::x":       "a\r\n::error::x",
		"a\rb":                  "a\rb",
		"\x1b[1mbold\x1b[0m\tx": "bold\tx",
		"##[error]":             "##[error]",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWriterSplits writes text in every two-piece split and checks the
// output is Safe's, so a command split across writes is still caught.
func TestWriterSplits(t *testing.T) {
	in := "head\n::error::a\r::warning::b\r\n  ##[group]c\x1b]0;t\x07\x1b[31md\u009b1m\n::e"
	want := Safe(in)
	for i := 0; i <= len(in); i++ {
		var out bytes.Buffer
		w := NewWriter(&out)
		w.Write([]byte(in[:i]))
		w.Write([]byte(in[i:]))
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Fatalf("split at %d: %q, want %q", i, out.String(), want)
		}
	}
}

func TestWriterHoldsUnfinishedLine(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	w.Write([]byte("done\n:"))
	if out.String() != "done\n" {
		t.Fatalf("wrote %q before the line ended", out.String())
	}
	w.Write([]byte(":error::x\n"))
	if out.String() != "done\n\\::error::x\n" {
		t.Fatalf("got %q", out.String())
	}
}

// TestWriterLongLine checks a line longer than the Writer holds back is
// passed on in pieces that stay safe: white space before the cut still
// counts as the line's start.
func TestWriterLongLine(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	w.Write([]byte(strings.Repeat(" ", maxPending+10)))
	if out.Len() == 0 {
		t.Fatal("a long line was held back whole")
	}
	w.Write([]byte("::error::x\n" + strings.Repeat("é", maxPending) + "##"))
	w.Write([]byte("[x\n"))
	w.Flush()
	got := out.String()
	if !strings.Contains(got, " \\::error::x\n") {
		t.Errorf("the command after a long run of spaces was not broken: %q", got[len(got)-200:])
	}
	if strings.Contains(got, "##[") || !utf8.ValidString(got) {
		t.Errorf("a long line was cut unsafely")
	}
}

func FuzzSafe(f *testing.F) {
	for _, s := range []string{"m\n::error::X", "m\r::error::X", "\x1b]0;t\x07", "##[x", "\u009b31m", "a\xffb", " \u00a0::x"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, split int) {
		got := Safe(s)
		if Safe(got) != got {
			t.Fatalf("Safe is not idempotent on %q: %q, then %q", s, got, Safe(got))
		}
		checkSafe(t, got)
		var out bytes.Buffer
		w := NewWriter(&out)
		if split >= 0 && split <= len(s) {
			w.Write([]byte(s[:split]))
			w.Write([]byte(s[split:]))
		} else {
			w.Write([]byte(s))
		}
		w.Flush()
		if out.String() != got {
			t.Fatalf("Writer wrote %q, Safe %q", out.String(), got)
		}
	})
}

// checkSafe fails if s has anything a terminal or the Actions runner would
// act on.
func checkSafe(t *testing.T, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("invalid UTF-8 in %q", s)
	}
	for _, r := range s {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r >= 0x7f && r <= 0x9f {
			t.Fatalf("control character %U in %q", r, s)
		}
	}
	if strings.Contains(s, "##[") {
		t.Fatalf("legacy workflow command in %q", s)
	}
	for _, line := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") {
			t.Fatalf("workflow command line %q in %q", line, s)
		}
	}
}
