package tools

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/reviewdev/review/internal/text"
)

func TestSearchInProject(t *testing.T) {
	f := sharedFixture(t)
	s := f.set()
	tests := []struct {
		name, args string
		want, lack []string
	}{
		{
			name: "matches at head in path order",
			args: `{"pattern": "needle"}`,
			want: []string{
				"secret/key.pem:1: needle secret\nspace name.txt:1: spaced needle\nunicodé.txt:1: héllo needle\n",
				"3 matching lines in 3 files for",
				"[skipped 1 binary file and 1 file over 1048576 bytes]",
			},
			// Not in the binary, the huge file, the work tree or ignored files.
			lack: []string{"bin/data.bin:", "big/huge.txt:", "debug.log"},
		},
		{
			name: "head, not the work tree",
			args: `{"pattern": "world|uncommitted", "path_glob": "*.go"}`,
			want: []string{"main.go:10: \tfmt.Println(util.Hello(), \"world\")"},
			lack: []string{"// uncommitted"},
		},
		{
			name: "anchors are per line",
			args: `{"pattern": "^func \\w+\\(\\) string {$"}`,
			want: []string{"util/util.go:4: func Hello() string {"},
		},
		{
			name: "text anchors are per line too",
			args: `{"pattern": "\\Aline 100\\z", "path_glob": "long.txt"}`,
			want: []string{"long.txt:100: line 100\n", "1 matching line in 1 file"},
		},
		{
			name: "a match spanning lines is no match",
			args: `{"pattern": "first\\s+second"}`,
			want: []string{"no matches"},
		},
		{
			name: "case-insensitive flag",
			args: `{"pattern": "(?i)TODO: WRITE"}`,
			want: []string{"README.md:3: TODO: write docs"},
		},
		{
			name: "crlf lines are shown without the carriage return",
			args: `{"pattern": "^two", "path_glob": "crlf.txt"}`,
			want: []string{"crlf.txt:2: two\n"},
		},
		{
			name: "last line without newline",
			args: `{"pattern": "second$"}`,
			want: []string{"noeol.txt:2: second\n"},
		},
		{
			name: "path glob with slash",
			args: `{"pattern": "api", "path_glob": "web/src/*.ts"}`,
			want: []string{"web/src/index.ts:1:", "web/src/index.ts:3:"},
			lack: []string{"app.tsx", "other.js", "lib/api.ts"},
		},
		{
			name: "context lines like grep",
			args: `{"pattern": "^line (10|12|20)$", "path_glob": "long.txt", "context_lines": 1}`,
			want: []string{"long.txt-9- line 9\nlong.txt:10: line 10\nlong.txt-11- line 11\nlong.txt:12: line 12\nlong.txt-13- line 13\n--\nlong.txt-19- line 19\nlong.txt:20: line 20\nlong.txt-21- line 21\n"},
		},
		{
			name: "context clipped at file edges, groups separated across files",
			args: `{"pattern": "^(first|spaced)", "context_lines": 3}`,
			want: []string{"noeol.txt:1: first\nnoeol.txt-2- second\n--\nspace name.txt:1: spaced needle\n"},
		},
		{
			name: "stops at max_results and says how to get more",
			args: `{"pattern": "^line", "max_results": 5}`,
			want: []string{"first 5 matching lines", "long.txt:5: line 5\n", "[stopped after long.txt:5 at max_results=5; more matches follow", "raise max_results (up to 20000)"},
			lack: []string{"long.txt:6:"},
		},
		{
			name: "huge max_results lowered",
			args: `{"pattern": "^line 100$", "max_results": 99999999}`,
			want: []string{"max_results 99999999 lowered to the maximum, 20000", "long.txt:100:"},
		},
		{
			name: "no matches",
			args: `{"pattern": "zzzznotthere"}`,
			want: []string{`no matches for "zzzznotthere"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustOK(t, call(t, s, "search_in_project", tt.args))
			contains(t, out, tt.want...)
			lacks(t, out, tt.lack...)
		})
	}
}

func TestSearchInProjectErrors(t *testing.T) {
	f := sharedFixture(t)
	s := f.set()
	mustErr(t, call(t, s, "search_in_project", `{"pattern": "a(b"}`), "not a valid RE2", "missing closing )")
	mustErr(t, call(t, s, "search_in_project", `{"pattern": "(?<=x)y"}`), "not a valid RE2")
	mustErr(t, call(t, s, "search_in_project", `{"pattern": ""}`), "pattern is empty")
	mustErr(t, call(t, s, "search_in_project", `{"pattern": "`+strings.Repeat("a", 2000)+`"}`), "at most 1000")
	mustErr(t, call(t, s, "search_in_project", `{"pattern": "x", "max_results": 0}`), `search_in_project argument "max_results" must be at least 1 (or null for 20000), got 0`)
	mustErr(t, call(t, s, "search_in_project", `{"pattern": "x", "context_lines": -2}`), `search_in_project argument "context_lines" must be at least 0 (or null for 0), got -2`)
	mustErr(t, call(t, s, "search_in_project", `{"pattern": "x", "path_glob": "{a,"}`), "not a valid glob")
	mustErr(t, call(t, s, "search_in_project", `{}`), `argument "pattern" is missing`)
}

func TestSearchInProjectIgnore(t *testing.T) {
	f := sharedFixture(t)
	s := f.set(func(e *Env) { e.Ignore = []string{"secret/**"} })
	out := mustOK(t, call(t, s, "search_in_project", `{"pattern": "needle"}`))
	lacks(t, out, "secret/key.pem")
	contains(t, out, "space name.txt:1:")
}

// TestSearchMatchesGitGrep compares search_in_project with git grep on a
// generated repository, for patterns both read the same way.
func TestSearchMatchesGitGrep(t *testing.T) {
	r := newRepo(t, t.TempDir())
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"alpha", "beta", "gamma", "delta", "Alpha", "func", "return", "x", "", "  "}
	files := map[string]string{}
	for i := range 150 {
		var b strings.Builder
		for range rng.IntN(40) {
			for range rng.IntN(6) {
				b.WriteString(words[rng.IntN(len(words))] + " ")
			}
			b.WriteString("\n")
		}
		if i%7 == 0 {
			b.WriteString("no final newline alpha")
		}
		files[fmt.Sprintf("d%d/f%03d.txt", i%5, i)] = b.String()
	}
	r.write(files)
	head := r.commit("files")
	s := New(Env{Root: r.root, Head: head})
	for _, pattern := range []string{"alpha", "^beta", "gamma $", "^$", "(?i)alpha beta", "a.p", "^ *$", "delta\\b", "x x x"} {
		t.Run(pattern, func(t *testing.T) {
			args := fmt.Sprintf(`{"pattern": %s, "max_results": 500}`, text.QuoteJSON(pattern))
			out := mustOK(t, call(t, s, "search_in_project", args))
			got := hitsOf(out)
			gitPattern := strings.ReplaceAll(pattern, "(?i)", "")
			gitArgs := []string{"grep", "-n", "-I", "-P", gitPattern, head}
			if strings.HasPrefix(pattern, "(?i)") {
				gitArgs = []string{"grep", "-n", "-I", "-i", "-P", gitPattern, head}
			}
			cmd := r.gitAllowFail(gitArgs...)
			var want []string
			for line := range strings.SplitSeq(strings.TrimSpace(cmd), "\n") {
				if line == "" {
					continue
				}
				// <head>:<path>:<n>:<text>
				rest := strings.TrimPrefix(line, head+":")
				parts := strings.SplitN(rest, ":", 3)
				want = append(want, parts[0]+":"+parts[1])
			}
			if len(want) == 0 {
				t.Fatalf("git grep found nothing for %q (%s); the comparison would be vacuous", pattern, cmd)
			}
			if len(want) > 500 {
				want = want[:500]
			}
			if !slices.Equal(got, want) {
				t.Errorf("search_in_project and git grep differ for %q:\n got %d: %.400v\nwant %d: %.400v", pattern, len(got), got, len(want), want)
			}
		})
	}
}

// gitAllowFail runs git and returns its output even when it exits 1
// (git grep without matches).
func (r *repo) gitAllowFail(args ...string) string {
	out, _ := r.Run(args...)
	return out
}

// hitsOf extracts "path:line" of the match lines of a search result.
func hitsOf(out string) []string {
	re := regexp.MustCompile(`(?m)^(\S+\.txt):(\d+): `)
	var hits []string
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		hits = append(hits, m[1]+":"+m[2])
	}
	return hits
}

// TestMatcherAgreesWithPerLine checks the whole-file fast path against the
// plain per-line loop.
func TestMatcherAgreesWithPerLine(t *testing.T) {
	contents := []string{"", "\n", "a", "a\n", "a\nb", "a\nb\n", "\n\n\n", "ab\ncd\r\nef\n\nx", "x\ny\nx\ny\n", "abc abc\nxxyy\nabbbc\nABC\n"}
	patterns := []string{"", "a", "^", "$", "^$", "b$", "^b", "a\\nb", "a\\sb", "[^z]+", "(?s)a.b", "(?m)^x$", "\\Ax", "y\\z", "(?-m)^y", "\\bx\\b", "(?i)X", "x|^$",
		"abc", "\\Aabc", "abc$", "ab+c", "(?i)abc", "x{2,}yy", "(abc)+", "c\\nxxy", "b{3}c"}
	for _, c := range contents {
		for _, p := range patterns {
			m, err := newMatcher(p)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := m.find([]byte(c), 1000)
			if want := perLine(m.line, []byte(c)); !slices.Equal(got, want) {
				t.Errorf("find(%q, %q) = %v, want %v", p, c, got, want)
			}
		}
	}
}

func perLine(re *regexp.Regexp, data []byte) []int {
	var out []int
	n := 0
	for line := range bytes.Lines(data) {
		n++
		if re.Match(bytes.TrimSuffix(line, []byte("\n"))) {
			out = append(out, n)
		}
	}
	return out
}

// FuzzMatcher checks the fast path against per-line matching on arbitrary
// patterns and contents.
func FuzzMatcher(f *testing.F) {
	f.Add("a$", "a\nb\na")
	f.Add("^$", "\n\n")
	f.Add("\\Ab", "a\nb\n")
	f.Add("[^x]", "x\nx\n")
	f.Add("(?s).", "\n")
	f.Add("abc$", "abc\nabcabc\nab")
	f.Fuzz(func(t *testing.T, pattern, content string) {
		m, err := newMatcher(pattern)
		if err != nil {
			return
		}
		got, more := m.find([]byte(content), 5)
		want := perLine(m.line, []byte(content))
		if len(want) > 5 {
			if !more || !slices.Equal(got, want[:5]) {
				t.Fatalf("find(%q, %q) = %v, %v; want %v", pattern, content, got, more, want)
			}
			return
		}
		if more || !slices.Equal(got, want) {
			t.Fatalf("find(%q, %q) = %v, %v; want %v", pattern, content, got, more, want)
		}
	})
}

func TestLineCount(t *testing.T) {
	for in, want := range map[string]int{"": 0, "a": 1, "a\n": 1, "a\nb": 2, "\n\n": 2} {
		if got := lineCount([]byte(in)); got != want {
			t.Errorf("lineCount(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestSearchInProjectSizeBudget(t *testing.T) {
	f := sharedFixture(t)
	s := f.set(func(e *Env) { e.MaxBytes = 4096 })
	out := mustOK(t, call(t, s, "search_in_project", `{"pattern": "^line", "max_results": 500, "context_lines": 3}`))
	if len(out) > 4096 {
		t.Errorf("result is %d bytes, over MaxBytes", len(out))
	}
	contains(t, out, "(more exist)", "the result reached its size limit")
	lacks(t, out, "[output cut")
}
