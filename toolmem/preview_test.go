package toolmem

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

const testRef = "k3f7a2bc4d"

// numbered returns n lines "<prefix> <i>" (1-based), each ending in "\n".
func numbered(prefix string, n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s %d\n", prefix, i)
	}
	return b.Bytes()
}

var headerRE = regexp.MustCompile(`^\[output ([a-z2-7]+): (\d+) lines?, (\d+) bytes; showing (no lines|lines? [0-9 and-]+(?: \(lines? [0-9 and]+ cut\))?); more: read_tool_output \{"ref": "([a-z2-7]+)", "start_line": (\d+), "line_count": 80\}(?: or \{"ref": "([a-z2-7]+)", "grep": "<regex>"\})?\]$`)

// checkPreview checks the properties every preview has and returns its
// lines.
func checkPreview(t testing.TB, data []byte, lim Limits, got string) []string {
	t.Helper()
	if again := Preview(testRef, data, lim); again != got {
		t.Fatalf("Preview is not deterministic")
	}
	if again := Preview(testRef, []byte(got), lim); again != got {
		t.Fatalf("Preview of a preview changed it:\nfirst:\n%s\nsecond:\n%s", got, again)
	}
	n := lim.Normalized()
	if fits(data, n) {
		if got != string(data) {
			t.Fatalf("output within the limits was changed:\n%q\n%q", data, got)
		}
		return nil
	}
	if !utf8.ValidString(got) {
		t.Fatalf("preview is not valid UTF-8: %q", got)
	}
	if c := utf8.RuneCountInString(got); c > n.Chars {
		t.Fatalf("preview has %d characters, limit %d:\n%s", c, n.Chars, got)
	}
	if l := countLines([]byte(got)); l > n.Lines {
		t.Fatalf("preview has %d lines, limit %d:\n%s", l, n.Lines, got)
	}
	lines := strings.Split(got, "\n")
	m := headerRE.FindStringSubmatch(lines[0])
	if m == nil {
		t.Fatalf("first line is not a preview header: %q", lines[0])
	}
	if m[1] != testRef || m[5] != testRef || (m[7] != "" && m[7] != testRef) {
		t.Fatalf("header names the wrong ref: %q", lines[0])
	}
	if want := fmt.Sprint(countLines(data)); m[2] != want {
		t.Fatalf("header says %s lines, want %s: %q", m[2], want, lines[0])
	}
	if want := fmt.Sprint(len(data)); m[3] != want {
		t.Fatalf("header says %s bytes, want %s: %q", m[3], want, lines[0])
	}
	return lines
}

func TestPreview(t *testing.T) {
	cjk := strings.Repeat("漢字かな交じり文", 10) + "\n"             // 80 characters, 3 bytes each
	emoji := strings.Repeat("👍🏽🚀🇫🇷", 20) + "\n"              // multi-rune graphemes, 4 bytes each
	hugeLine := bytes.Repeat([]byte("abcdefghij"), 1<<20/10) // 1 MB, no newline
	hugeCJK := []byte(strings.Repeat("語", 1<<20/3))
	hugeEmoji := []byte(strings.Repeat("😀", 1<<20/4) + "\n")

	tests := []struct {
		name  string
		data  []byte
		lim   Limits
		want  string   // whole preview, if set
		first string   // line after the header, if set
		last  string   // last line, if set
		has   []string // substrings of the header
	}{
		{name: "empty", data: nil, want: ""},
		{name: "small", data: []byte("hello\nworld\n"), want: "hello\nworld\n"},
		{name: "no trailing newline", data: []byte("a\nb"), want: "a\nb"},
		{name: "exactly the line limit", data: numbered("l", 40), want: string(numbered("l", 40))},
		{name: "exactly the char limit", data: bytes.Repeat([]byte("x"), 2000), want: strings.Repeat("x", 2000)},
		{
			name: "one line over", data: numbered("l", 41),
			first: "l 1", last: "l 41",
			has: []string{"41 lines", "showing lines 1-19 and 23-41", `"start_line": 20`},
		},
		{
			name: "5000 lines", data: numbered("line", 5000),
			first: "line 1", last: "line 5000",
			has: []string{"5000 lines, 48893 bytes", "showing lines 1-19 and 4982-5000", `"start_line": 20`, `"grep": "<regex>"`},
		},
		{
			name: "char limit with few lines", data: bytes.Repeat([]byte(strings.Repeat("y", 99)+"\n"), 30),
			first: strings.Repeat("y", 99), last: strings.Repeat("y", 99),
		},
		{name: "CJK", data: bytes.Repeat([]byte(cjk), 200), first: strings.TrimSuffix(cjk, "\n"), last: strings.TrimSuffix(cjk, "\n")},
		{name: "emoji", data: bytes.Repeat([]byte(emoji), 200), first: strings.TrimSuffix(emoji, "\n"), last: strings.TrimSuffix(emoji, "\n")},
		{name: "1 MB single line", data: hugeLine, has: []string{"1 line, 1048570 bytes", "showing line 1 (line 1 cut)", `"start_line": 1`}},
		{name: "1 MB CJK line", data: hugeCJK, has: []string{"1 line,", "(line 1 cut)"}},
		{name: "1 MB emoji line", data: hugeEmoji, has: []string{"1 line,", "(line 1 cut)"}},
		{
			name: "huge last line", data: append(numbered("l", 5), hugeLine...),
			first: "l 1", has: []string{"6 lines", "(line 6 cut)"},
		},
		{
			name: "huge middle line", data: append(append(numbered("a", 3), append(hugeLine, '\n')...), numbered("z", 3)...),
			first: "a 1", last: "z 3", has: []string{"7 lines", "showing lines 1-3 and 5-7"},
		},
		{name: "invalid UTF-8", data: bytes.Repeat([]byte("ok \xff\xfe bad \xc3\n"), 100), first: "ok \uFFFD bad \uFFFD"},
		{name: "CRLF", data: bytes.Repeat([]byte("dos line\r\n"), 100), first: "dos line\r", last: "dos line\r"},
		{name: "limits raised to the minimum", data: numbered("l", 100), lim: Limits{Chars: 1, Lines: 1}},
		{name: "custom limits", data: numbered("l", 100), lim: Limits{Chars: 500, Lines: 10}, first: "l 1", last: "l 100"},
		{name: "blank lines", data: bytes.Repeat([]byte("\n"), 100), first: "", last: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Preview(testRef, tt.data, tt.lim)
			lines := checkPreview(t, tt.data, tt.lim, got)
			if tt.want != "" || tt.data == nil {
				if got != tt.want {
					t.Fatalf("got %q, want %q", got, tt.want)
				}
				return
			}
			if lines == nil {
				t.Fatalf("output was not previewed")
			}
			if tt.first != "" && lines[1] != tt.first {
				t.Errorf("first shown line %q, want %q", lines[1], tt.first)
			}
			if tt.last != "" && lines[len(lines)-1] != tt.last {
				t.Errorf("last line %q, want %q", lines[len(lines)-1], tt.last)
			}
			for _, h := range tt.has {
				if !strings.Contains(lines[0], h) {
					t.Errorf("header %q lacks %q", lines[0], h)
				}
			}
		})
	}
}

// TestPreviewExample pins the whole format of a typical preview.
func TestPreviewExample(t *testing.T) {
	got := Preview(testRef, numbered("line", 12), Limits{Chars: 1000, Lines: 8})
	want := `[output k3f7a2bc4d: 12 lines, 87 bytes; showing lines 1-3 and 10-12; more: read_tool_output {"ref": "k3f7a2bc4d", "start_line": 4, "line_count": 80} or {"ref": "k3f7a2bc4d", "grep": "<regex>"}]
line 1
line 2
line 3
[... 6 lines omitted ...]
line 10
line 11
line 12`
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestPreviewCutLines checks that cut lines keep what they show exact and
// say how much they left out.
func TestPreviewCutLines(t *testing.T) {
	line := []byte(strings.Repeat("é", 5000)) // 10000 bytes
	got := Preview(testRef, line, Limits{})
	lines := checkPreview(t, line, Limits{}, got)
	shown, note, ok := strings.Cut(lines[1], " [... ")
	if !ok {
		t.Fatalf("cut line has no note: %q", lines[1])
	}
	if !strings.HasPrefix(string(line), shown) {
		t.Fatalf("cut line is not a prefix of the line")
	}
	if want := fmt.Sprintf("%d more bytes]", len(line)-len(shown)); note != want {
		t.Fatalf("note %q, want %q", note, want)
	}

	data := append([]byte("first\n"), line...)
	got = Preview(testRef, data, Limits{})
	lines = checkPreview(t, data, Limits{}, got)
	last := lines[len(lines)-1]
	note, shown, ok = strings.Cut(last, "] ")
	if !ok || !strings.HasPrefix(note, "[... ") {
		t.Fatalf("cut last line has no note: %q", last)
	}
	if !strings.HasSuffix(string(line), shown) {
		t.Fatalf("cut last line is not a suffix of the line")
	}
	if want := fmt.Sprintf("[... %d earlier bytes", len(line)-len(shown)); note != want {
		t.Fatalf("note %q, want %q", note, want)
	}
}

func FuzzPreview(f *testing.F) {
	f.Add([]byte("hello\n"), 0, 0)
	f.Add(numbered("line", 100), 300, 5)
	f.Add([]byte(strings.Repeat("漢", 3000)), 200, 3)
	f.Add([]byte(strings.Repeat("😀\n", 500)), 250, 4)
	f.Add([]byte("\xff\xfe\xfd\n\n\r\n"+strings.Repeat("\xe6\xbc", 900)), 200, 3)
	f.Add(bytes.Repeat([]byte("\n"), 3000), 0, 0)
	f.Add([]byte(strings.Repeat("x", 2001)), 0, 0)
	f.Add(append(numbered("l", 3), bytes.Repeat([]byte("y"), 5000)...), 0, 0)
	f.Fuzz(func(t *testing.T, data []byte, chars, lines int) {
		lim := Limits{Chars: chars % 5000, Lines: lines % 200}
		got := Preview(testRef, data, lim)
		checkPreview(t, data, lim, got)
	})
}

// TestWithheld names the output and how to page it from its first line,
// and shows none of it.
func TestWithheld(t *testing.T) {
	data := numbered("line", 307)
	got := Withheld(testRef, data, "Its diff is this unit's, above, whole.")
	want := `[output k3f7a2bc4d: 307 lines, ` + fmt.Sprint(len(data)) + ` bytes; showing no lines; more: read_tool_output {"ref": "k3f7a2bc4d", "start_line": 1, "line_count": 80} or {"ref": "k3f7a2bc4d", "grep": "<regex>"}]` +
		"\nIts diff is this unit's, above, whole."
	if got != want {
		t.Fatalf("Withheld:\n%s\nwant\n%s", got, want)
	}
}
