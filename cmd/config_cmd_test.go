package cmd

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/reviewdev/review/cmd/config"
	"github.com/reviewdev/review/cmd/config/configtest"
)

func TestConfigCommand(t *testing.T) {
	c := newConfigEnv(t)
	c.Write(t, configtest.ShowRepo, configtest.ShowUser)
	runCmd := func(t *testing.T, env map[string]string, args ...string) (string, string, int) {
		t.Helper()
		var out, errOut bytes.Buffer
		f := &Factory{IO: &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Getenv: c.Getenv(env), Dir: c.Repo}
		code := run(context.Background(), f, append([]string{"config"}, args...))
		return out.String(), errOut.String(), code
	}

	out, errOut, code := runCmd(t, map[string]string{"REVIEW_FAIL_ON": "low"}, "--max-steps", "7")
	if code != ExitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	c.CheckTable(t, out, len(config.Keys()))

	out, _, code = runCmd(t, nil, "--json", "--model", "o3")
	if code != ExitOK {
		t.Fatalf("--json: exit %d", code)
	}
	c.CheckJSON(t, []byte(out), len(config.Keys()))

	c.Write(t, "fail_on: high\nmodle: x\n", "")
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
	long := strings.Join(strings.Fields(NewCmdConfig(&Factory{}).Long), " ")
	for _, k := range config.FileKeys() {
		if !regexp.MustCompile(`\b` + k + `\b`).MatchString(long) {
			t.Errorf("review config --help does not name %s", k)
		}
	}
}
