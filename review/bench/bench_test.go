package bench

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/reviewdev/review/internal/git"
	"github.com/reviewdev/review/internal/gittest"
	"github.com/reviewdev/review/review/result"
)

func TestMain(m *testing.M) { os.Exit(gittest.Main(m)) }

func TestReadCorpusErrors(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"id": "a"}`, `corpus c.jsonl:1: case a has no "repo": give a local path or a git URL`},
		{`{"repo": "r", "base": "main"}`, `corpus c.jsonl:1: the case has no "id"`},
		{`{"id": "a b", "repo": "r", "base": "m"}`, `corpus c.jsonl:1: case id "a b": use letters, digits, '.', '_' and '-' (at most 128)`},
		{`{"id": "a", "repo": "r", "base": "m"}`, `corpus c.jsonl:1: case a expects no issue: list them in "expected", or mark the case "clean": true`},
		{`{"id": "a", "repo": "r", "revert_of": "main"}`, `corpus c.jsonl:1: case a: revert_of "main" is not a commit hash: name the fix commit by its SHA`},
		{`{"id": "a", "repo": "r", "revert_of": "abcdef12", "base": "m"}`, `corpus c.jsonl:1: case a gives revert_of and base/head: revert_of builds its own change, give one or the other`},
		{`{"id": "a", "repo": "r", "base": "m", "clean": true, "expected": [{"path": "x", "start_line": 1}]}`, `corpus c.jsonl:1: case a is clean but expects 1 issue(s): a clean change expects none`},
		{`{"id": "a", "repo": "r", "base": "m", "expected": [{"path": "x", "start_line": 0}]}`, `corpus c.jsonl:1: case a: expected[0]: start_line must be 1 or more, not 0`},
		{`{"id": "a", "repo": "r", "base": "m", "expected": [{"path": "x", "start_line": 1, "severity": "urgent"}]}`, `corpus c.jsonl:1: case a: expected[0]: unknown severity "urgent": use info, low, medium, high or critical`},
		{`{"id": "a", "repo": "r", "base": "m", "expected": [{"path": "x", "start_line": "1"}]}`, `corpus c.jsonl:1: expected.start_line must be a int, not a JSON string`},
		{`{"id": "a", "repo": "r", "bsae": "m"}`, `corpus c.jsonl:1: unknown field "bsae": a case has id, repo, base, head, revert_of, clean, description, language and expected`},
		{`{"id": "a", "repo": "r", "base": "m", "clean": true}` + "\n" + `{"id": "a", "repo": "r", "base": "m", "clean": true}`, `corpus c.jsonl:2: case id "a" is already used on line 1`},
		{"# only a comment", `corpus c.jsonl: no cases in it`},
		{`{"id": "a", "repo": "ext::sh -c x://y", "base": "m", "clean": true}`, `corpus c.jsonl:1: case a: repo "ext::sh -c x://y": give an https, http, ssh, git or file URL, or user@host:path`},
		{`{"id": "a",`, `corpus c.jsonl:1: not a JSON object: unexpected EOF`},
	} {
		_, err := ReadCorpus(strings.NewReader(tc.line), "c.jsonl", "")
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", tc.line, err, tc.want)
		}
	}
}

func TestReadCorpusDefaults(t *testing.T) {
	cs, err := ReadCorpus(strings.NewReader(`
# a comment
{"id": "a", "repo": "r", "base": "main", "expected": [{"path": "x.go", "start_line": 4, "severity": "HIGH"}]}
`), "c.jsonl", FormatJSONL)
	if err != nil {
		t.Fatal(err)
	}
	want := Case{ID: "a", Repo: "r", Base: "main", Head: "HEAD", Expected: []Expected{{Path: "x.go", StartLine: 4, EndLine: 4, Severity: result.High}}}
	if !reflect.DeepEqual(cs, []Case{want}) {
		t.Errorf("got %+v\nwant %+v", cs, want)
	}
}

// TestReadAACR reads a sample in AACR-Bench's published shape: base is the
// target commit, head the source commit, and comments on the new side are
// the expected issues.
func TestReadAACR(t *testing.T) {
	f, err := os.Open("testdata/aacr.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cs, err := ReadCorpus(f, "aacr.json", FormatAACR)
	if err != nil {
		t.Fatal(err)
	}
	want := []Case{{
		ID: "example-widgets-17", Repo: "https://github.com/example/widgets",
		Base: "2222222222222222222222222222222222222222", Head: "1111111111111111111111111111111111111111",
		Language:    "go",
		Description: "AACR-Bench https://github.com/example/widgets/pull/17 (1 comment(s) on removed lines left out)",
		Expected: []Expected{
			{Path: "store/file.go", StartLine: 40, EndLine: 42, Description: "The error from Close is dropped: return it."},
			{Path: "store/index.go", StartLine: 88, EndLine: 88, Description: "Off by one in the loop bound."},
		},
	}, {
		ID: "example-tool-py-5", Repo: "https://github.com/example/tool.py",
		Base: "4444444444444444444444444444444444444444", Head: "3333333333333333333333333333333333333333",
		Language: "python", Clean: true, Expected: []Expected{},
		Description: "AACR-Bench https://github.com/example/tool.py/pull/5",
	}}
	if !reflect.DeepEqual(cs, want) {
		t.Errorf("got  %+v\nwant %+v", cs, want)
	}
	_, err = ReadCorpus(strings.NewReader(`[{"githubPrUrl": "https://github.com/a/b/issues/3", "source_commit": "1", "target_commit": "2"}]`), "x.json", FormatAACR)
	if err == nil || err.Error() != `corpus x.json: pull request 1: githubPrUrl "https://github.com/a/b/issues/3": not of the form https://HOST/OWNER/NAME/pull/N` {
		t.Errorf("bad URL: %v", err)
	}
}

// TestShippedCorpus holds testdata/bench/corpus.jsonl to what it promises:
// it parses, at least 30 cases put back real fixes in Go, Python and
// JavaScript or TypeScript, at least 10 are clean, every one says what it is, and every
// commit is named by its full SHA.
func TestShippedCorpus(t *testing.T) {
	f, err := os.Open("../../testdata/bench/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cs, err := ReadCorpus(f, "corpus.jsonl", "")
	if err != nil {
		t.Fatal(err)
	}
	reverts, clean := 0, 0
	langs := map[string]int{}
	for _, c := range cs {
		if c.Description == "" {
			t.Errorf("%s has no description", c.ID)
		}
		if !IsURL(c.Repo) {
			t.Errorf("%s: repo %s is not a public URL", c.ID, c.Repo)
		}
		for _, sha := range []string{c.RevertOf, c.Base, c.Head} {
			if sha != "" && (len(sha) != 40 || !shaForm().MatchString(sha)) {
				t.Errorf("%s: %q is not a full SHA", c.ID, sha)
			}
		}
		switch {
		case c.RevertOf != "":
			reverts++
			langs[c.Language]++
		case c.Clean:
			clean++
		}
	}
	if reverts < 30 || clean < 10 {
		t.Errorf("%d revert_of cases and %d clean ones; want at least 30 and 10", reverts, clean)
	}
	langs["javascript"] += langs["typescript"]
	for _, l := range []string{"go", "python", "javascript"} {
		if langs[l] < 5 {
			t.Errorf("%d revert_of cases in %s, want at least 5", langs[l], l)
		}
	}
}

func TestScore(t *testing.T) {
	exp := []Expected{
		{Path: "a.go", StartLine: 10, EndLine: 12, Severity: result.High},
		{Path: "a.go", StartLine: 20, EndLine: 20, Severity: result.Low},
		{Path: "b.go", StartLine: 5, EndLine: 5},
	}
	fs := []result.Finding{
		{Path: "a.go", Line: 14, Severity: result.High},             // 10-12 widened by 3: found
		{Path: "a.go", Line: 11, Severity: result.Medium},           // the same issue again: fp
		{Path: "a.go", Line: 16, EndLine: 18, Severity: result.Low}, // 20 widened to 17: found
		{Path: "b.go", Line: 0, Severity: result.Info},              // a file: matches no line
		{Path: "c.go", Line: 5, Severity: result.Info},              // another file
	}
	dropped := []result.Dropped{
		{Reason: "line 40 of a.go is outside the changed hunks"},
		{Reason: `merged into "x" at a.go:14`},
	}
	s := Score(exp, fs, dropped, 3)
	if s.TP != 2 || s.FP != 3 || s.FN != 1 || s.Unplaced != 2 {
		t.Errorf("tp %d fp %d fn %d unplaced %d, want 2 3 1 2", s.TP, s.FP, s.FN, s.Unplaced)
	}
	if *s.Precision != 0.4 || *s.Recall != 2.0/3 || *s.F1 != 4.0/8 {
		t.Errorf("precision %v recall %v f1 %v", *s.Precision, *s.Recall, *s.F1)
	}
	var matches []int
	for _, f := range s.Findings {
		matches = append(matches, f.Match)
	}
	if !reflect.DeepEqual(matches, []int{0, -1, 1, -1, -1}) {
		t.Errorf("matches %v", matches)
	}
	if r := s.RecallBySeverity[Unrated]; r.Expected != 1 || r.Found != 0 || *r.Recall != 0 {
		t.Errorf("unrated recall %+v", r)
	}
	// A wider slack lets the second finding take the first issue while
	// the first takes nothing else: still one each, never one twice.
	if s := Score(exp, fs, nil, 10); s.TP != 2 {
		t.Errorf("slack 10: tp %d", s.TP)
	}
	// The matching is one to one and as large as can be: a finding that
	// could take either of two issues leaves the one another needs.
	two := []Expected{{Path: "a.go", StartLine: 1, EndLine: 1}, {Path: "a.go", StartLine: 9, EndLine: 9}}
	if s := Score(two, []result.Finding{{Path: "a.go", Line: 5}, {Path: "a.go", Line: 1}}, nil, 4); s.TP != 2 || s.FP != 0 {
		t.Errorf("maximum matching: tp %d fp %d", s.TP, s.FP)
	}
	// Nothing found, nothing to find: rates are not known.
	if s := Score(nil, nil, nil, 3); s.Precision != nil || s.Recall != nil || s.F1 != nil {
		t.Errorf("empty: %v %v %v", s.Precision, s.Recall, s.F1)
	}
}

// TestSummarize: a failed run's findings never count, its cost does; the
// clean case's findings are its false positives.
func TestSummarize(t *testing.T) {
	card := &Scorecard{Cases: []CaseScore{
		{ID: "bug", Runs: []RunScore{
			{RunID: "r1", Counts: Counts{TP: 1, FN: 0, Requests: 2, CostUSD: 0.5, RecallBySeverity: map[string]*SeverityRecall{"high": {Expected: 1, Found: 1}}}},
			{RunID: "r2", Counts: Counts{Failures: 1, Requests: 1, CostUSD: 0.25}, Failure: &Failure{Kind: FailTimeout}},
		}},
		{ID: "clean", Clean: true, Runs: []RunScore{{RunID: "r3", Counts: Counts{FP: 2}}, {RunID: "r4", Counts: Counts{FP: 0}}}},
		{ID: "broken", Error: "case broken: repo x: no such file or directory"},
	}}
	card.Summarize()
	tot := card.Total
	if tot.TP != 1 || tot.FP != 2 || tot.FN != 0 || tot.Failures != 2 || tot.Requests != 3 || tot.CostUSD != 0.75 {
		t.Errorf("total %+v", tot.Counts)
	}
	if tot.CleanCases != 1 || tot.CleanFP != 2 || *tot.CleanFPPerCase != 2 || tot.Scored != 2 || tot.Cases != 3 {
		t.Errorf("clean %d %d scored %d cases %d", tot.CleanCases, tot.CleanFP, tot.Scored, tot.Cases)
	}
	if !reflect.DeepEqual(tot.FailureKinds, map[string]int{FailTimeout: 1, FailBuild: 1}) {
		t.Errorf("kinds %v", tot.FailureKinds)
	}
	if !reflect.DeepEqual(card.Cases[0].RunIDs, []string{"r1", "r2"}) || card.Cases[0].Failures != 1 {
		t.Errorf("case 0: %v %d", card.Cases[0].RunIDs, card.Cases[0].Failures)
	}
	// Repeat 1: tp 1, fp 2, precision 1/3; repeat 2: the bug's run
	// failed and the clean case found nothing, precision unknown, left
	// out of the spread.
	if r := tot.Repeat; r == nil || r.N != 2 || *r.Precision.Mean != 1.0/3 || *r.Precision.StdDev != 0 {
		t.Errorf("repeat %+v", r)
	}
}

func TestMerge(t *testing.T) {
	a := &Scorecard{Meta: Meta{Model: "m", Shard: "1/2", BaseURL: "http://a"}, Cases: []CaseScore{{ID: "x", Index: 3, Runs: []RunScore{{Counts: Counts{TP: 1}}}}}}
	b := &Scorecard{Meta: Meta{Model: "m", Shard: "2/2", BaseURL: "http://b"}, Cases: []CaseScore{{ID: "y", Index: 1, Runs: []RunScore{{Counts: Counts{FP: 1}}}}}}
	m, err := Merge([]*Scorecard{a, b}, []string{"a.json", "b.json"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Cases[0].ID != "y" || m.Total.TP != 1 || m.Total.FP != 1 || m.Meta.Shard != "" || m.Meta.BaseURL != "http://a, http://b" {
		t.Errorf("merged %+v", m)
	}
	b.Meta.Model = "n"
	if _, err := Merge([]*Scorecard{a, b}, []string{"a.json", "b.json"}); err == nil || err.Error() != "a.json and b.json are not shards of one bench: the model (m, n) differs" {
		t.Errorf("different models: %v", err)
	}
}

// TestBuildRevert builds a revert_of case from a repository's fix commit:
// the change reviewed is the revert on top of the fix, and the expected
// lines are the code the revert changes, not the test it removes. The
// source repository is not written.
func TestBuildRevert(t *testing.T) {
	r := gittest.New(t)
	r.Write(map[string]string{"calc.go": "package calc\n\nfunc Add(a, b int) int {\n\treturn a - b\n}\n\n\n\n\n\n\n\n\nfunc Sub(a, b int) int {\n\treturn a + b\n}\n"})
	r.Commit("init")
	r.Write(map[string]string{
		"calc.go":      "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\n\n\n\n\n\n\n\nfunc Sub(a, b int) int {\n\treturn a - b\n}\n",
		"calc_test.go": "package calc\n",
		"README.md":    "fixed\n",
	})
	fix := r.Commit("fix both")
	before := r.Git("for-each-ref")
	w := &Workspace{Cache: t.TempDir(), Scratch: t.TempDir()}
	b, err := w.Build(context.Background(), Case{ID: "calc", Repo: r.Dir, RevertOf: fix})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Remove()
	if b.Base != fix || !b.Derived {
		t.Errorf("base %s derived %v", b.Base, b.Derived)
	}
	want := []Expected{
		{Path: "calc.go", StartLine: 4, EndLine: 4, Description: "reverted lines of the fix"},
		{Path: "calc.go", StartLine: 15, EndLine: 15, Description: "reverted lines of the fix"},
	}
	if !reflect.DeepEqual(b.Expected, want) {
		t.Errorf("expected %+v\nwant %+v", b.Expected, want)
	}
	got, err := os.ReadFile(filepath.Join(b.Dir, "calc.go"))
	if err != nil || !strings.Contains(string(got), "return a - b\n}\n\n") {
		t.Errorf("the clone is not at the revert: %q %v", got, err)
	}
	msg, _ := (git.Runner{Dir: b.Dir}).Text(context.Background(), "log", "-1", "--format=%s")
	if msg != "Change under review" {
		t.Errorf("the revert's message says %q", msg)
	}
	if after := r.Git("for-each-ref"); after != before {
		t.Errorf("the source repository's refs changed:\n%s\n%s", before, after)
	}
	// The same case builds the same commit.
	b2, err := w.Build(context.Background(), Case{ID: "calc", Repo: r.Dir, RevertOf: fix})
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Remove()
	if b2.Head != b.Head {
		t.Errorf("two builds, two commits: %s %s", b.Head, b2.Head)
	}
	if _, err := w.Build(context.Background(), Case{ID: "gone", Repo: r.Dir, RevertOf: strings.Repeat("ab", 20)}); err == nil || !strings.Contains(err.Error(), "has no commit") {
		t.Errorf("missing commit: %v", err)
	}
}

// TestBuildURL clones a repository given by URL once into the cache.
func TestBuildURL(t *testing.T) {
	r := gittest.New(t)
	r.Write(map[string]string{"a.txt": "a\n"})
	base := r.Commit("a")
	r.Write(map[string]string{"a.txt": "b\n"})
	head := r.Commit("b")
	url := "file://" + r.Dir
	w := &Workspace{Cache: t.TempDir(), Scratch: t.TempDir()}
	c := Case{ID: "u", Repo: url, Base: base, Head: head, Clean: true}
	for i := 0; i < 2; i++ {
		b, err := w.Build(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		if b.Base != base || b.Head != head {
			t.Errorf("built %s..%s", b.Base, b.Head)
		}
		b.Remove()
	}
	repos, _ := filepath.Glob(filepath.Join(w.Cache, "repos", "*"))
	if len(repos) != 1 {
		t.Errorf("cache holds %v", repos)
	}
}

// FuzzReadCorpus: whatever a corpus file holds, reading it returns cases
// that can be run, or one error on one line; never a panic.
func FuzzReadCorpus(f *testing.F) {
	f.Add([]byte(`{"id": "a", "repo": "r", "base": "main", "expected": [{"path": "x.go", "start_line": 4, "severity": "high"}]}`), false)
	f.Add([]byte(`{"id": "b", "repo": "https://github.com/a/b", "revert_of": "0123456789abcdef0123456789abcdef01234567", "expected": []}`), false)
	if b, err := os.ReadFile("testdata/aacr.json"); err == nil {
		f.Add(b, true)
	}
	f.Fuzz(func(t *testing.T, data []byte, aacr bool) {
		format := FormatJSONL
		if aacr {
			format = FormatAACR
		}
		cs, err := ReadCorpus(strings.NewReader(string(data)), "c", format)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Errorf("a multi-line error: %q", err)
			}
			return
		}
		for _, c := range cs {
			if c.ID == "" || c.Repo == "" || (c.RevertOf == "" && c.Base == "") {
				t.Errorf("a case that cannot be run: %+v", c)
			}
			for _, e := range c.Expected {
				if e.StartLine < 1 || e.EndLine < e.StartLine {
					t.Errorf("a bad range: %+v", e)
				}
			}
		}
	})
}

// TestWriteHTML: every text from the corpus and the model is escaped, and
// the page loads nothing.
func TestWriteHTML(t *testing.T) {
	yes := true
	card := &Scorecard{Meta: Meta{Corpus: "<c>", Model: "m"}, Cases: []CaseScore{{
		ID: "a", Description: `<script>alert(1)</script>`, Store: "/s",
		Expected: []Expected{{Path: "x.go", StartLine: 1, EndLine: 2, Description: "<img src=x>"}},
		Runs:     []RunScore{{RunID: "r1", Findings: []Scored{{Path: "x.go", Line: 1, Title: `"><b>`, Match: 0, Described: &yes}}, Counts: Counts{TP: 1}}},
	}}}
	card.Summarize()
	var b strings.Builder
	if err := WriteHTML(&b, card, "bench-replays"); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script>", "<img", `"><b>`, "<c>"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
	for _, want := range []string{`<a href="bench-replays/r1.html"><code>r1</code></a>`, "review replay r1 --store /s", `<li class="tp">x.go:1-2`, "described correctly", "&lt;script&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
