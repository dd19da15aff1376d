package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/reviewdev/review/cmd"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"review": func() { os.Exit(cmd.Main()) },
		"ttyrun": func() { os.Exit(ttyRun(os.Args[1:])) },
	})
}

// TestScript runs the end-to-end scripts in testdata/script against the real
// review binary, real git repositories and a scripted model server.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup:               setupScript,
		Cmds:                scriptCmds(),
		Condition:           scriptCondition,
	})
}

// scriptCondition adds [root]: the script runs as the superuser, whom
// file permissions do not stop; and [mount]: it can mount a tmpfs
// (mounttmpfs).
func scriptCondition(cond string) (bool, error) {
	if cond == "root" {
		return os.Geteuid() == 0, nil
	}
	if cond == "mount" {
		return canMount(), nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// setupScript isolates each script from the machine: git reads a config file
// of the script's own, and no variable of the user's reaches review.
func setupScript(env *testscript.Env) error {
	home := filepath.Join(env.WorkDir, ".home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	gitconfig := filepath.Join(home, ".gitconfig")
	cfg := "[user]\n\tname = Test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n[protocol \"file\"]\n\tallow = always\n"
	if err := os.WriteFile(gitconfig, []byte(cfg), 0o644); err != nil {
		return err
	}
	for k, v := range map[string]string{
		"HOME":                home,
		"XDG_CONFIG_HOME":     filepath.Join(home, ".config"),
		"GIT_CONFIG_GLOBAL":   gitconfig,
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_DATE":     "2026-01-01T00:00:00Z",
		"GIT_COMMITTER_DATE":  "2026-01-01T00:00:00Z",
	} {
		env.Setenv(k, v)
	}
	return nil
}
