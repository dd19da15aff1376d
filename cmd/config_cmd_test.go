package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/reviewdev/review/cmd/config"
)

func TestConfigCommand(t *testing.T) {
	c := newConfigEnv(t)
	c.write(t, "fail_on: high\ninstructions: |\n  Line one.\n  Line two.\nignore: [gen/**]\n", "model: gpt-4o\nprice: {prompt: 2.5, cached: 1.25, completion: 10}\n")
	runCmd := func(t *testing.T, env map[string]string, args ...string) (string, string, int) {
		t.Helper()
		var out, errOut bytes.Buffer
		f := &Factory{IO: &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Getenv: c.getenv(env), Dir: c.repo}
		code := run(context.Background(), f, append([]string{"config"}, args...))
		return out.String(), errOut.String(), code
	}

	out, errOut, code := runCmd(t, map[string]string{"REVIEW_FAIL_ON": "low"}, "--max-steps", "7")
	if code != ExitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, re := range []string{
		`(?m)^KEY +VALUE +SOURCE$`,
		`(?m)^model +gpt-4o +` + regexp.QuoteMeta(c.userFile()) + `:1$`,
		`(?m)^base_url +https://api\.openai\.com/v1 +default$`,
		`(?m)^store +` + regexp.QuoteMeta(filepath.Join(c.repo, ".git", "review")) + ` +default$`,
		`(?m)^max_steps +7 +flag --max-steps$`,
		`(?m)^fail_on +low +env REVIEW_FAIL_ON$`,
		`(?m)^instructions +Line one\. \(2 lines\) +\.review\.yaml:2$`,
		`(?m)^ignore +gen/\*\* +\.review\.yaml:5$`,
		`(?m)^severity +- +default$`,
		`(?m)^price +prompt 2\.5, cached 1\.25, completion 10 \(USD per 1M tokens\) +` + regexp.QuoteMeta(c.userFile()) + `:2$`,
		`(?m)^repository file: ` + regexp.QuoteMeta(filepath.Join(c.repo, ".review.yaml")) + `$`,
		`(?m)^user file: ` + regexp.QuoteMeta(c.userFile()) + `$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output does not match %s:\n%s", re, out)
		}
	}
	// The columns line up: every value starts where the header's does.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	col := strings.Index(lines[0], "VALUE")
	for _, l := range lines[1:len(config.Keys())] {
		if l[col-1] != ' ' || l[col] == ' ' {
			t.Errorf("value not aligned at column %d: %q", col, l)
		}
	}

	out, _, code = runCmd(t, nil, "--json", "--model", "o3")
	if code != ExitOK {
		t.Fatalf("--json: exit %d", code)
	}
	var got map[string]struct {
		Value  any    `json:"value"`
		Source string `json:"source"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	if len(got) != len(config.Keys()) {
		t.Errorf("%d keys, want %d", len(got), len(config.Keys()))
	}
	for k, want := range map[string][2]any{
		"model":          {"o3", "flag --model"},
		"context_window": {float64(200000), "default"},
		"fail_on":        {"high", ".review.yaml:1"},
		"instructions":   {"Line one.\nLine two.\n", ".review.yaml:2"},
		"ignore":         {[]any{"gen/**"}, ".review.yaml:5"},
		"severity":       {map[string]any{}, "default"},
		"price":          {map[string]any{"prompt": 2.5, "cached": 1.25, "completion": float64(10)}, c.userFile() + ":2"},
	} {
		if !reflect.DeepEqual(got[k].Value, want[0]) || got[k].Source != want[1] {
			t.Errorf("%s = %#v from %q, want %#v from %q", k, got[k].Value, got[k].Source, want[0], want[1])
		}
	}
	if i, j := strings.Index(out, `"model"`), strings.Index(out, `"price"`); i > j {
		t.Errorf("keys out of order:\n%s", out)
	}

	c.write(t, "fail_on: high\nmodle: x\n", "")
	_, errOut, code = runCmd(t, nil)
	if code != ExitError || errOut != "review: .review.yaml:2: unknown key \"modle\" (did you mean \"model\"?)\n" {
		t.Errorf("bad file: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = runCmd(t, nil, "--static-share", "2")
	if code != ExitUsage || !strings.Contains(errOut, "--static-share must be more than 0 and at most 1, got 2 (it is the static share of the input budget)") {
		t.Errorf("bad flag: exit %d, stderr %q", code, errOut)
	}
}

// TestConfigHelpNamesKeys keeps the help's list of keys in step with the
// keys configuration files accept.
func TestConfigHelpNamesKeys(t *testing.T) {
	long := strings.Join(strings.Fields(NewCmdConfig(&Factory{}, nil).Long), " ")
	for _, k := range config.FileKeys() {
		if !regexp.MustCompile(`\b` + k + `\b`).MatchString(long) {
			t.Errorf("review config --help does not name %s", k)
		}
	}
}
