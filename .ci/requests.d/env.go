package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/reviewdev/review/review/reviewtest"
)

// env is one scenario's run with one binary: a home, a repository and the
// requests recorded so far.
type env struct {
	bin  string
	dir  string // the scenario's directory: home, tmp and repo under it
	repo string
	vars []string
	out  *outcome
}

// outcome is what a scenario's run sent, in a canonical order, and the
// notes worth a word on its line.
type outcome struct {
	bodies [][]byte
	notes  []string
}

// newEnv makes dir's home, temporary directory and empty repository, with
// git isolated from the machine's configuration and commits dated, so
// that both sides make the same commits.
func newEnv(bin, dir string) (*env, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	home := filepath.Join(dir, "home")
	e := &env{bin: bin, dir: dir, repo: filepath.Join(dir, "repo"), out: &outcome{}}
	for _, d := range []string{home, filepath.Join(dir, "tmp"), e.repo} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	gitconfig := filepath.Join(home, ".gitconfig")
	cfg := "[user]\n\tname = Ada Example\n\temail = ada@example.com\n[init]\n\tdefaultBranch = main\n"
	if err := os.WriteFile(gitconfig, []byte(cfg), 0o644); err != nil {
		return nil, err
	}
	// Nothing of the caller's environment but PATH reaches git or review:
	// no key, endpoint, model, CI variable or configuration of the user's.
	e.vars = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"TMPDIR=" + filepath.Join(dir, "tmp"),
		"TZ=UTC",
		"GIT_CONFIG_GLOBAL=" + gitconfig,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z",
		"GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
		"OPENAI_API_KEY=sk-requests",
	}
	return e, e.git("init", "-q", "-b", "main")
}

// git runs git in the repository.
func (e *env) git(args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = e.repo, e.vars
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

// write writes files of the repository: name, content, name, content...
func (e *env) write(pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		p := filepath.Join(e.repo, pairs[i])
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(pairs[i+1]), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// commit commits every change of the work tree.
func (e *env) commit(msg string) error {
	if err := e.git("add", "-A"); err != nil {
		return err
	}
	return e.git("commit", "-q", "-m", msg)
}

// call is one run of the binary against a scripted model.
type call struct {
	script string   // the model's script, as reviewtest takes it
	args   []string // review's arguments
	// record keeps the requests for the comparison; the others only set
	// the scene (a review a question follows).
	record bool
	// byUnit orders the requests by the unit they belong to ("This is
	// unit 2 of 6"), then as they came: units side by side send theirs in
	// whatever order they run.
	byUnit bool
}

// review runs the binary with c's arguments against a fresh scripted
// server and returns its standard output. A failed run is an error: each
// scenario is scripted to finish.
func (e *env) review(c call) (string, error) {
	s, err := reviewtest.ParseScript([]byte(c.script))
	if err != nil {
		return "", fmt.Errorf("script of review %s: %v", strings.Join(c.args, " "), err)
	}
	srv := reviewtest.NewServer(s, "")
	defer srv.Close()
	cmd := exec.Command(e.bin, c.args...)
	cmd.Dir = e.repo
	cmd.Env = append(append([]string{}, e.vars...), "OPENAI_BASE_URL="+srv.URL)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		return "", err
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		err = fmt.Errorf("no end after 60 s")
		<-done
	}
	srv.Close()
	if c.record {
		reqs := srv.Requests()
		if c.byUnit {
			sort.SliceStable(reqs, func(i, j int) bool { return unitOf(reqs[i].Body) < unitOf(reqs[j].Body) })
		}
		for _, r := range reqs {
			e.out.bodies = append(e.out.bodies, r.Body)
		}
	}
	if err != nil {
		return stdout.String(), fmt.Errorf("review %s: %v: %s", strings.Join(c.args, " "), err, lastLines(stderr.String(), 3))
	}
	return stdout.String(), nil
}

// unitRe finds the unit a request belongs to.
var unitRe = regexp.MustCompile(`This is unit (\d+) of \d+`)

// unitOf is the number of the unit a request's turn reviews, 0 if none.
func unitOf(body []byte) int {
	m := unitRe.FindSubmatch(body)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// runID reads the run ID from a review's JSON output.
func runID(jsonOut string) (string, error) {
	var r struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(jsonOut), &r); err != nil || r.RunID == "" {
		return "", fmt.Errorf("no run_id in the review's JSON output: %.200s", jsonOut)
	}
	return r.RunID, nil
}

// hasFlag reports whether bin's help names --flag.
func hasFlag(bin, flag string) bool {
	out, _ := exec.Command(bin, "--help").CombinedOutput()
	return regexp.MustCompile(`(?m)^\s+(-\w, )?--` + regexp.QuoteMeta(flag) + `(\s|$)`).Match(out)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}
