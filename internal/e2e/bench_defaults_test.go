package e2e

// TestBenchDefaults is the measurement behind the defaults of --ungrounded
// and --verify (docs/bench.md, "The measurement behind the defaults"). It
// is opt-in: it needs local copies of the shipped corpus's repositories,
// one bare or working clone a repository, named owner+name (or
// owner+name/repo) under the directory REVIEW_BENCH_MIRRORS names:
//
//	REVIEW_BENCH_MIRRORS=/path/to/mirrors go test -run TestBenchDefaults -v ./internal/e2e
//
// It builds the binary, points the shipped corpus at the local copies,
// and runs `review bench` over it four ways (default, --ungrounded keep,
// --ungrounded drop, --verify, and --verify with --ungrounded keep, which
// shows what verification removes on its own) against a scripted model: for each case it
// reads the first expected issue's lines with read_file_hunk and reports
// one finding there (grounded), and reports one or two wrong findings on
// lines of the same file it never read and the diff never showed
// (ungrounded); on a clean case it reports one such wrong finding. Its
// verifier keeps the finding whose lines it was shown and rejects the
// others. A scripted model measures the mechanism, not a model's judgment.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/reviewdev/review/review/reviewtest"
)

// benchCase is a case of the corpus as the scripted model sees it.
type benchCase struct {
	id, repo, base, head string
	clean                bool
	// path, start, end: the first expected issue; for a clean case the
	// first changed file.
	path       string
	start, end int
	// wrong are the lines of path the wrong findings cite.
	wrong []int
}

func TestBenchDefaults(t *testing.T) {
	mirrors := os.Getenv("REVIEW_BENCH_MIRRORS")
	if mirrors == "" {
		t.Skip("set REVIEW_BENCH_MIRRORS to a directory of local copies of the corpus's repositories (owner+name) to run the defaults measurement")
	}
	dir := t.TempDir()
	bin := reviewBinary(t)

	// The shipped corpus, its URLs replaced by the local copies.
	corpus := filepath.Join(dir, "corpus.jsonl")
	repos := localCorpus(t, mirrors, filepath.Join("testdata", "bench", "corpus.jsonl"), corpus)
	cache := filepath.Join(dir, "cache")

	// What each case expects, from the dry run (no model call).
	dry := exec.Command(bin, "bench", "--corpus", corpus, "--cache", cache, "--dry-run")
	out, err := dry.Output()
	if err != nil {
		t.Fatalf("dry run: %v\n%s", err, benchStderr(err))
	}
	cases := parseDryRun(t, out, repos)
	for i := range cases {
		cases[i].plan(t)
	}

	type mode struct {
		name  string
		flags []string
	}
	modes := []mode{
		{"default (--ungrounded summary)", nil},
		{"--ungrounded keep", []string{"--ungrounded", "keep"}},
		{"--ungrounded drop", []string{"--ungrounded", "drop"}},
		{"--verify", []string{"--verify"}},
		{"--verify --ungrounded keep", []string{"--verify", "--ungrounded", "keep"}},
	}
	type row struct {
		name string
		tot  map[string]any
		rej  int
	}
	var rows []row
	for _, m := range modes {
		verify := len(m.flags) > 0 && m.flags[0] == "--verify"
		script := benchScript(cases, verify)
		srv := reviewtest.NewServer(script, "")
		res := filepath.Join(dir, "result-"+strconv.Itoa(len(rows))+".json")
		args := append([]string{"bench", "--corpus", corpus, "--cache", cache, "--jobs", "1", "--format", "json", "-o", res}, m.flags...)
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+srv.URL, "OPENAI_API_KEY=scripted", "NO_COLOR=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("%s", out)
			t.Fatalf("review bench %s: %v", m.name, err)
		}
		srv.Close()
		if err := srv.Err(); err != nil {
			t.Fatalf("%s: scripted server: %v", m.name, err)
		}
		data, err := os.ReadFile(res)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Total map[string]any `json:"total"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		if f, _ := r.Total["failures"].(float64); f != 0 {
			t.Errorf("%s: %v failures", m.name, f)
		}
		rows = append(rows, row{m.name, r.Total, bytes.Count(data, []byte("rejected by verification"))})
	}

	var b strings.Builder
	fmt.Fprintf(&b, "%d cases (%d clean); scripted model: one grounded right finding a defect case, one or two ungrounded wrong ones a case\n\n", len(cases), countClean(cases))
	b.WriteString("| run | tp | fp | fn | precision | recall | F1 | false positives on clean cases | requests | prompt tokens |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s of %s | %s | %s |\n", r.name,
			benchNum(r.tot["tp"]), benchNum(r.tot["fp"]), benchNum(r.tot["fn"]),
			benchRatio(r.tot["precision"]), benchRatio(r.tot["recall"]), benchRatio(r.tot["f1"]),
			benchNum(r.tot["clean_fp"]), benchNum(r.tot["clean_cases"]),
			benchNum(r.tot["requests"]), benchNum(r.tot["prompt_tokens"]))
	}
	t.Logf("\n%s", b.String())

	// The mechanism, checked: dropping or verifying removes exactly the
	// wrong findings, and keeps every right one.
	tp := func(i int) any { return rows[i].tot["tp"] }
	for i := 1; i < len(rows); i++ {
		if tp(i) != tp(0) {
			t.Errorf("%s: tp %v, want %v as the default's", rows[i].name, tp(i), tp(0))
		}
	}
	// The default lists the ungrounded findings in the summary, which the
	// bench scores as reported: as many false positives as keep's.
	if rows[0].tot["fp"] != rows[1].tot["fp"] {
		t.Errorf("default: fp %v, want %v as --ungrounded keep's", rows[0].tot["fp"], rows[1].tot["fp"])
	}
	for _, i := range []int{2, 3, 4} {
		if fp := rows[i].tot["fp"]; fp != 0.0 {
			t.Errorf("%s: fp %v, want 0: every wrong finding is ungrounded", rows[i].name, fp)
		}
	}
}

// localCorpus writes the corpus at src to dst with each repository URL
// replaced by its copy under mirrors, and returns the cases' repositories
// by id.
func localCorpus(t *testing.T, mirrors, src, dst string) map[string]string {
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	repos := map[string]string{}
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var c map[string]any
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		url, _ := c["repo"].(string)
		name := strings.TrimSuffix(strings.TrimPrefix(url, "https://github.com/"), ".git")
		local := ""
		for _, p := range []string{filepath.Join(mirrors, strings.Replace(name, "/", "+", 1), "repo"), filepath.Join(mirrors, strings.Replace(name, "/", "+", 1))} {
			if _, err := os.Stat(p); err == nil {
				local = p
				break
			}
		}
		if local == "" {
			t.Fatalf("no local copy of %s under %s (want %s)", url, mirrors, strings.Replace(name, "/", "+", 1))
		}
		c["repo"] = local
		repos[c["id"].(string)] = local
		js, _ := json.Marshal(c)
		out.Write(js)
		out.WriteByte('\n')
	}
	if err := os.WriteFile(dst, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return repos
}

var (
	dryCase     = regexp.MustCompile(`^(\S+): ([0-9a-f]+)\.\.([0-9a-f]+) · `)
	dryExpected = regexp.MustCompile(`^  (\S+):(\d+)-(\d+) `)
)

// parseDryRun reads the cases and their expected issues from the dry run.
func parseDryRun(t *testing.T, out []byte, repos map[string]string) []benchCase {
	var cases []benchCase
	for _, line := range strings.Split(string(out), "\n") {
		if m := dryCase.FindStringSubmatch(line); m != nil {
			cases = append(cases, benchCase{id: m[1], repo: repos[m[1]], base: m[2], head: m[3], clean: strings.Contains(line, "· 0 expected issues")})
			continue
		}
		if m := dryExpected.FindStringSubmatch(line); m != nil && len(cases) > 0 {
			c := &cases[len(cases)-1]
			if c.path == "" {
				c.path = m[1]
				c.start, _ = strconv.Atoi(m[2])
				c.end, _ = strconv.Atoi(m[3])
			}
		}
	}
	if len(cases) == 0 {
		t.Fatalf("dry run listed no cases:\n%s", out)
	}
	return cases
}

func benchGit(t *testing.T, repo string, args ...string) string {
	out, err := exec.Command("git", append([]string{"--git-dir", gitDir(repo)}, args...)...).Output()
	if err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, repo, err, benchStderr(err))
	}
	return string(out)
}

func gitDir(repo string) string {
	if _, err := os.Stat(filepath.Join(repo, ".git")); err == nil {
		return filepath.Join(repo, ".git")
	}
	return repo
}

var hunkHeader = regexp.MustCompile(`(?m)^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@`)

// plan picks the lines of the case's wrong findings: lines of the file
// far (more than 60 lines) from every hunk of the change, which neither
// the diff nor the scripted reads show. A file too short for one gets its
// findings at the first line farthest from the hunks.
func (c *benchCase) plan(t *testing.T) {
	c.base = strings.TrimSpace(benchGit(t, c.repo, "rev-parse", c.base))
	if c.clean {
		c.head = strings.TrimSpace(benchGit(t, c.repo, "rev-parse", c.head))
	} else {
		// A revert_of case's head is the revert, built in a scratch clone:
		// its files are the fix's parent's.
		c.head = c.base + "^"
	}
	if c.clean {
		files := strings.Fields(benchGit(t, c.repo, "diff", "--name-only", "--diff-filter=AM", c.base, c.head))
		if len(files) == 0 {
			t.Fatalf("%s: no changed file", c.id)
		}
		c.path = files[0]
	}
	n := strings.Count(benchGit(t, c.repo, "show", c.head+":"+c.path), "\n")
	var hunks [][2]int
	for _, m := range hunkHeader.FindAllStringSubmatch(benchGit(t, c.repo, "diff", "-U0", c.base, c.head, "--", c.path), -1) {
		s, _ := strconv.Atoi(m[1])
		l := 1
		if m[2] != "" {
			l, _ = strconv.Atoi(m[2])
		}
		hunks = append(hunks, [2]int{s, s + l})
	}
	if !c.clean {
		hunks = append(hunks, [2]int{c.start, c.end})
	}
	dist := func(line int) int {
		d := 1 << 30
		for _, h := range hunks {
			switch {
			case line < h[0]:
				d = min(d, h[0]-line)
			case line > h[1]:
				d = min(d, line-h[1])
			default:
				return 0
			}
		}
		return d
	}
	// The farthest line after the hunks, and on a defect case a second one
	// before them when there is room.
	best := 0
	for l := n; l >= 1; l-- {
		if dist(l) > dist(best) || best == 0 {
			best = l
		}
	}
	if dist(best) <= 60 {
		t.Logf("%s: %s has no line far from the change; the wrong finding is at %d, %d lines away", c.id, c.path, best, dist(best))
	}
	c.wrong = []int{best}
	if !c.clean && best > c.end && c.start > 1 && dist(1) > 60 {
		c.wrong = append(c.wrong, 1)
	}
}

func countClean(cs []benchCase) int {
	n := 0
	for _, c := range cs {
		if c.clean {
			n++
		}
	}
	return n
}

// benchScript is the scripted model for the cases, run one at a time in
// order: a defect case reads its expected lines and submits; a clean case
// submits at once; with verify, each case's verification keeps the
// grounded finding (the first) and rejects the rest.
func benchScript(cases []benchCase, verify bool) *reviewtest.Script {
	var steps []reviewtest.Step
	finding := func(path string, line int, sev, title, body string) map[string]any {
		return map[string]any{"path": path, "line": line, "end_line": nil, "severity": sev, "category": "correctness",
			"title": title, "body": body, "suggestion": nil, "replacement": nil}
	}
	call := func(name string, args any) reviewtest.ScriptCall {
		js, _ := json.Marshal(args)
		return reviewtest.ScriptCall{Name: name, Arguments: js}
	}
	for _, c := range cases {
		var fs []map[string]any
		if !c.clean {
			steps = append(steps, reviewtest.Step{ToolCalls: []reviewtest.ScriptCall{call("read_file_hunk",
				map[string]any{"path": c.path, "start_line": c.start, "end_line": c.end, "revision": nil})}})
			fs = append(fs, finding(c.path, c.start, "high", "The fix's check is gone", "These lines put back the defect the fix removed."))
		}
		for i, l := range c.wrong {
			fs = append(fs, finding(c.path, l, "medium", fmt.Sprintf("Unchecked error (guess %d)", i+1), "A guess about code the reviewer never read."))
		}
		steps = append(steps, reviewtest.Step{ToolCalls: []reviewtest.ScriptCall{call("submit_review",
			map[string]any{"summary": "Scripted review of " + c.id + ".", "findings": fs})}})
		if verify {
			var vs []map[string]any
			for i := range fs {
				keep := i == 0 && !c.clean
				reason := "The lines shown support it."
				if !keep {
					reason = "The reviewer was never shown these lines."
				}
				vs = append(vs, map[string]any{"finding": i + 1, "keep": keep, "reason": reason})
			}
			steps = append(steps, reviewtest.Step{When: "submit_verdicts", ToolCalls: []reviewtest.ScriptCall{call("submit_verdicts", map[string]any{"verdicts": vs})}})
		}
	}
	return &reviewtest.Script{Steps: steps}
}

func benchNum(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return "-"
}

func benchRatio(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', 2, 64)
	}
	return "-"
}

func benchStderr(err error) []byte {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.Stderr
	}
	return nil
}
