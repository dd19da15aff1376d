package scripttest

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/reviewdev/review/review/reviewtest"
)

// Cmds are the commands this package gives a script: commit, modelserver,
// screen, corruptstore, storesum, mounttmpfs and fill. A harness adds its
// own to the map it returns.
func Cmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"commit":       cmdCommit,
		"modelserver":  cmdModelServer,
		"screen":       cmdScreen,
		"corruptstore": cmdCorruptStore,
		"storesum":     cmdStoreSum,
		"mounttmpfs":   cmdMountTmpfs,
		"fill":         cmdFill,
	}
}

// Condition adds [root]: the script runs as the superuser, whom
// file permissions do not stop; and [mount]: it can mount a tmpfs
// (mounttmpfs).
func Condition(cond string) (bool, error) {
	if cond == "root" {
		return os.Geteuid() == 0, nil
	}
	if cond == "mount" {
		return canMount(), nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// Setup isolates each script from the machine: git reads a config file
// of the script's own, and no variable of the user's reaches review.
func Setup(env *testscript.Env) error {
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

// commit stages everything in the current directory and commits it:
// `commit message words...`.
func cmdCommit(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! commit")
	}
	if len(args) == 0 {
		ts.Fatalf("usage: commit message")
	}
	Git(ts, "add", "-A")
	Git(ts, "commit", "-q", "--allow-empty", "-m", strings.Join(args, " "))
}

// Git runs git in the script's directory, in its environment, and
// returns what it printed; it fails the script if git fails.
func Git(ts *testscript.TestScript, args ...string) string {
	c := exec.Command("git", args...)
	c.Dir = ts.MkAbs(".")
	c.Env = Environ(ts)
	out, err := c.CombinedOutput()
	if err != nil {
		ts.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Environ is the script's environment for commands run from Go.
func Environ(ts *testscript.TestScript) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE", "TMPDIR"} {
		env = append(env, k+"="+ts.Getenv(k))
	}
	return env
}

// modelserver starts the scripted OpenAI-compatible server for the rest of
// the script and points OPENAI_BASE_URL at it, with credentials in the URL
// if asked: `modelserver [-record dir] [-userinfo u:p] [-query q]
// script.json`. Every request body it receives is written byte-exact to
// dir/req-NNN.json.
func cmdModelServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! modelserver")
	}
	fs := flag.NewFlagSet("modelserver", flag.ContinueOnError)
	record := fs.String("record", "", "directory to record requests in")
	userinfo := fs.String("userinfo", "", "user:password to put in OPENAI_BASE_URL")
	query := fs.String("query", "", "query to put in OPENAI_BASE_URL")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		ts.Fatalf("usage: modelserver [-record dir] [-userinfo u:p] [-query q] script.json")
	}
	script, err := reviewtest.LoadScript(ts.MkAbs(fs.Arg(0)))
	ts.Check(err)
	dir := ""
	if *record != "" {
		dir = ts.MkAbs(*record)
		ts.Check(os.MkdirAll(dir, 0o755))
	}
	srv := reviewtest.NewServer(script, dir)
	ts.Defer(srv.Close)
	base := srv.URL
	if *userinfo != "" {
		base = strings.Replace(base, "://", "://"+*userinfo+"@", 1)
	}
	if *query != "" {
		base += "?" + *query
	}
	ts.Setenv("OPENAI_BASE_URL", base)
	ts.Setenv("MODEL_URL", srv.URL)
}
