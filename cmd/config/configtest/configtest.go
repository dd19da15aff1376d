// Package configtest gives tests of the settings a repository and a user
// configuration directory, isolated from the machine's git and user
// configuration.
package configtest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/reviewdev/review/internal/gittest"
)

// Env is a repository (Repo, with its .review.yaml) and a user
// configuration directory (XDG, for XDG_CONFIG_HOME), and the variables
// that point at them.
type Env struct {
	Repo, XDG string
	Vars      map[string]string
}

// New makes an Env in a temporary directory; it skips a test where git
// is not installed.
func New(t testing.TB) *Env {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	gittest.Isolate(t)
	dir := t.TempDir()
	e := &Env{Repo: filepath.Join(dir, "repo"), XDG: filepath.Join(dir, "xdg")}
	gittest.Init(t, e.Repo)
	if err := os.MkdirAll(filepath.Join(e.XDG, "review"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.Vars = map[string]string{"XDG_CONFIG_HOME": e.XDG}
	return e
}

// UserFile is the user's configuration file.
func (e *Env) UserFile() string { return filepath.Join(e.XDG, "review", "config.yaml") }

// Write sets the repository's and the user's files; "" removes one.
func (e *Env) Write(t testing.TB, repo, user string) {
	t.Helper()
	for path, text := range map[string]string{filepath.Join(e.Repo, ".review.yaml"): repo, e.UserFile(): user} {
		if text == "" {
			if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Getenv is the environment: extra, then Vars.
func (e *Env) Getenv(extra map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := extra[k]; ok {
			return v
		}
		return e.Vars[k]
	}
}

// The shown settings' fixture: a repository file and a user file that
// set a value from each kind of source, which CheckTable and CheckJSON
// expect with --max-steps 7 and REVIEW_FAIL_ON=low (the table) or
// --model o3 (the JSON).
const (
	ShowRepo = "fail_on: high\ninstructions: |\n  Line one.\n  Line two.\nignore: [gen/**]\n"
	ShowUser = "model: gpt-4o\nprice: {prompt: 2.5, cached: 1.25, completion: 10}\n"
)

// CheckTable checks the settings table (review config) of the fixture
// with --max-steps 7 and REVIEW_FAIL_ON=low: each row's value and
// source, and the columns lined up for the first rows keys.
func (e *Env) CheckTable(t testing.TB, out string, keys int) {
	t.Helper()
	for _, re := range []string{
		`(?m)^KEY +VALUE +SOURCE$`,
		`(?m)^model +gpt-4o +` + regexp.QuoteMeta(e.UserFile()) + `:1$`,
		`(?m)^base_url +https://api\.openai\.com/v1 +default$`,
		`(?m)^store +` + regexp.QuoteMeta(filepath.Join(e.Repo, ".git", "review")) + ` +default$`,
		`(?m)^max_steps +7 +flag --max-steps$`,
		`(?m)^fail_on +low +env REVIEW_FAIL_ON$`,
		`(?m)^instructions +Line one\. \(2 lines\) +\.review\.yaml:2$`,
		`(?m)^ignore +gen/\*\* +\.review\.yaml:5$`,
		`(?m)^severity +- +default$`,
		`(?m)^price +prompt 2\.5, cached 1\.25, completion 10 \(USD per 1M tokens\) +` + regexp.QuoteMeta(e.UserFile()) + `:2$`,
		`(?m)^repository file: ` + regexp.QuoteMeta(filepath.Join(e.Repo, ".review.yaml")) + `$`,
		`(?m)^user file: ` + regexp.QuoteMeta(e.UserFile()) + `$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("table does not match %s:\n%s", re, out)
		}
	}
	// The columns line up: every value starts where the header's does.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	col := strings.Index(lines[0], "VALUE")
	for _, l := range lines[1:min(keys, len(lines))] {
		if l[col-1] != ' ' || l[col] == ' ' {
			t.Errorf("value not aligned at column %d: %q", col, l)
		}
	}
}

// CheckJSON checks the settings as JSON (review config --json) of the
// fixture with --model o3: keys keys in order, each with its value and
// source.
func (e *Env) CheckJSON(t testing.TB, data []byte, keys int) {
	t.Helper()
	var got map[string]struct {
		Value  any    `json:"value"`
		Source string `json:"source"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("JSON: %v\n%s", err, data)
	}
	if len(got) != keys {
		t.Errorf("%d keys, want %d", len(got), keys)
	}
	for k, want := range map[string][2]any{
		"model":          {"o3", "flag --model"},
		"context_window": {float64(200000), "default"},
		"fail_on":        {"high", ".review.yaml:1"},
		"instructions":   {"Line one.\nLine two.\n", ".review.yaml:2"},
		"ignore":         {[]any{"gen/**"}, ".review.yaml:5"},
		"severity":       {map[string]any{}, "default"},
		"price":          {map[string]any{"prompt": 2.5, "cached": 1.25, "completion": float64(10)}, e.UserFile() + ":2"},
	} {
		if !reflect.DeepEqual(got[k].Value, want[0]) || got[k].Source != want[1] {
			t.Errorf("%s = %#v from %q, want %#v from %q", k, got[k].Value, got[k].Source, want[0], want[1])
		}
	}
	if i, j := bytes.Index(data, []byte(`"model"`)), bytes.Index(data, []byte(`"price"`)); i > j {
		t.Errorf("keys out of order:\n%s", data)
	}
}
