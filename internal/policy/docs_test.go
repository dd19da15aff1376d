package policy

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The documents the tests below hold to the repository: the README, the
// contributing guide and the reference in docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "CONTRIBUTING.md", "SECURITY.md", "CHANGELOG.md"}
	more, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(more) == 0 {
		t.Fatal("docs/ holds no Markdown file")
	}
	return append(files, more...)
}

func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDocsReadmeLength keeps the README a newcomer's guide: the
// reference lives in docs/.
func TestDocsReadmeLength(t *testing.T) {
	const most = 250
	if n := strings.Count(readDoc(t, "README.md"), "\n"); n > most {
		t.Errorf("README.md has %d lines, more than %d: move reference material into docs/", n, most)
	}
}

var (
	scriptRef = regexp.MustCompile(`\b([a-z0-9_]+)\.txtar\b`)
	testRef   = regexp.MustCompile(`\b((?:Test|Benchmark|Fuzz)[A-Z0-9][A-Za-z0-9_]*)`)
	goFunc    = regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz)[A-Za-z0-9_]*)\(`)
)

// TestDocsNameWhatExists holds every end-to-end script and every test,
// benchmark or fuzz target a document names to the repository: a script
// named as NAME.txtar is testdata/script/NAME.txtar, and a TestXxx,
// BenchmarkXxx or FuzzXxx is declared in some _test.go file.
func TestDocsNameWhatExists(t *testing.T) {
	declared := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (name == ".git" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range goFunc.FindAllSubmatch(b, -1) {
			declared[string(m[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !declared["TestDocsNameWhatExists"] {
		t.Fatal("the walk found no test functions: is the test run from the repository root?")
	}
	for _, doc := range docFiles(t) {
		text := readDoc(t, doc)
		for _, m := range uniq(scriptRef.FindAllStringSubmatch(text, -1)) {
			_, err := os.Stat(filepath.Join("testdata", "script", m+".txtar"))
			if _, lerr := os.Stat(filepath.Join("testdata", "long", m+".txtar")); err != nil && lerr != nil {
				t.Errorf("%s names %s.txtar, which neither testdata/script nor testdata/long holds", doc, m)
			}
		}
		for _, m := range testNames(text) {
			if !declared[m] {
				t.Errorf("%s names %s, which no _test.go file declares", doc, m)
			}
		}
	}
}

// testNames returns the test, benchmark and fuzz names text mentions,
// leaving out those that open a regular expression (the
// BenchmarkRender of -bench 'BenchmarkRender(1k|100k)$'), which name a
// family rather than one function.
func testNames(text string) []string {
	var ms [][]string
	for _, ix := range testRef.FindAllStringSubmatchIndex(text, -1) {
		if end := ix[3]; end < len(text) && strings.ContainsRune("(|*[?+", rune(text[end])) {
			continue
		}
		ms = append(ms, []string{"", text[ix[2]:ix[3]]})
	}
	return uniq(ms)
}

// uniq returns the first submatches, each once, in order.
func uniq(ms [][]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	sort.Strings(out)
	return out
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsLinks holds every relative link of the documents to a file
// that exists (anchors are not checked; addresses with a scheme are
// left alone).
func TestDocsLinks(t *testing.T) {
	for _, doc := range docFiles(t) {
		text := readDoc(t, doc)
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			path := filepath.Join(filepath.Dir(doc), filepath.FromSlash(target))
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s links to %s, which does not exist", doc, m[1])
			}
		}
	}
}
