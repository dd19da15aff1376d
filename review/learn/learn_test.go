package learn

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

const sample = `# Learnings

Prose the team wrote stays as it is.

1. The query builder in ` + "`internal/db`" + ` escapes its arguments:
   concatenation into db.Q is not SQL injection.
   paths: ` + "`internal/db/**`" + `, cmd/report/*.go
   from: pull request #42, thread 1a2b, @alice, 2026-11-30
2. Errors from Close on read-only files are ignored on purpose.

- Logging a request ID is not a secret leak.
  from: #51
not an item
   indented prose after a paragraph
`

func TestParse(t *testing.T) {
	ls, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	want := []Learning{
		{N: 1, Rule: "The query builder in `internal/db` escapes its arguments: concatenation into db.Q is not SQL injection.",
			Paths: []string{"internal/db/**", "cmd/report/*.go"}, From: "pull request #42, thread 1a2b, @alice, 2026-11-30", Line: 5},
		{N: 2, Rule: "Errors from Close on read-only files are ignored on purpose.", Line: 9},
		{N: 3, Rule: "Logging a request ID is not a secret leak.", From: "#51", Line: 11},
	}
	if !reflect.DeepEqual(ls, want) {
		t.Errorf("Parse =\n%+v\nwant\n%+v", ls, want)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"1. x\n   paths: [a\n", ".review/learnings.md:2: learning 1: \"[a\" is not a glob"},
		{"- " + strings.Repeat("x", MaxRule+1), ".review/learnings.md:1: learning 1 is longer than 2000 bytes"},
		{"\xff", "is not UTF-8"},
		{strings.Repeat("x", MaxSize+1), "larger than 256 KiB"},
		{strings.Repeat("- a\n", MaxCount+1), "more than 500 learnings"},
	}
	for _, tt := range tests {
		if _, err := Parse([]byte(tt.in)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%.30q) = %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestAppend(t *testing.T) {
	data, n, err := Append(nil, Learning{Rule: "First  rule\nover lines.", Paths: []string{"a/**"}, From: "review learn add"})
	if err != nil || n != 1 || !strings.HasPrefix(string(data), Header) {
		t.Fatalf("Append to nothing: %d %v\n%s", n, err, data)
	}
	data, n, err = Append([]byte(sample), Learning{Rule: "Fourth."})
	if err != nil || n != 4 || !strings.HasPrefix(string(data), sample[:len(sample)-1]) || !strings.HasSuffix(string(data), "\n\n4. Fourth.\n") {
		t.Fatalf("Append to the sample: %d %v\n%s", n, err, data)
	}
	ls, err := Parse(data)
	if err != nil || len(ls) != 4 || ls[3].Rule != "Fourth." {
		t.Fatalf("read back: %+v %v", ls, err)
	}
	for _, bad := range []Learning{{Rule: " "}, {Rule: "x", Paths: []string{"a b"}}, {Rule: "x", Paths: []string{"[a"}}} {
		if _, _, err := Append(nil, bad); err == nil {
			t.Errorf("Append(%+v) took it", bad)
		}
	}
}

func TestInForceAndSection(t *testing.T) {
	ls, _ := Parse([]byte(sample))
	in := InForce(ls, []string{"internal/db/q.go", "main.go"})
	if got := []int{in[0].N, in[1].N, in[2].N}; !reflect.DeepEqual(got, []int{1, 2, 3}) {
		t.Errorf("in force %v", got)
	}
	if in := InForce(ls, []string{"main.go"}); len(in) != 2 || in[0].N != 2 {
		t.Errorf("in force for main.go: %+v", in)
	}
	words := func(s string) int { return len(strings.Fields(s)) }
	text, held := Section(in, 1000, words)
	if len(held) != 3 || !strings.HasPrefix(text, Intro) || !strings.Contains(text, "1. The query builder") || strings.Contains(text, "left out") {
		t.Errorf("whole section:\n%s", text)
	}
	chars := func(s string) int { return len(s) }
	text, held = Section(in, len(Intro)+1+len(Line(in[1]))+1+leftOutCost, chars)
	if len(held) != 1 || held[0].N != 2 || !strings.Contains(text, "(Learnings 1, 3 are left out") {
		t.Errorf("cut section (%d held):\n%s", len(held), text)
	}
	if text, held := Section(in, 3, chars); text != "" || held != nil {
		t.Errorf("no room: %q", text)
	}
}

// FuzzParse holds that any file reads without a panic into learnings
// within the limits, and that a learning appended reads back as written.
func FuzzParse(f *testing.F) {
	f.Add(sample, "rule", "a/**")
	f.Add("1.\tx\n\tpaths: ,,`\n", "r\nr", "")
	f.Fuzz(func(t *testing.T, file, rule, path string) {
		ls, err := Parse([]byte(file))
		if err != nil {
			return
		}
		for i, l := range ls {
			if l.N != i+1 || len(l.Rule) > MaxRule || l.Rule == "" || !utf8.ValidString(l.Rule) {
				t.Fatalf("learning %+v", l)
			}
		}
		var paths []string
		if path != "" {
			paths = []string{path}
		}
		data, n, err := Append([]byte(file), Learning{Rule: rule, Paths: paths})
		if err != nil {
			return
		}
		back, err := Parse(data)
		if err != nil || len(back) != n || back[n-1].Rule != strings.Join(strings.Fields(rule), " ") {
			t.Fatalf("appended %q to %q: %+v %v", rule, file, back, err)
		}
	})
}
