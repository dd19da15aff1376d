package main

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/reviewdev/review/review/reviewtest"
)

func scriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"commit":      cmdCommit,
		"modelserver": cmdModelServer,
		"waitreq":     cmdWaitReq,
		"schema":      cmdSchema,
	}
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
	git(ts, "add", "-A")
	git(ts, "commit", "-q", "--allow-empty", "-m", strings.Join(args, " "))
}

func git(ts *testscript.TestScript, args ...string) string {
	c := exec.Command("git", args...)
	c.Dir = ts.MkAbs(".")
	c.Env = environ(ts)
	out, err := c.CombinedOutput()
	if err != nil {
		ts.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// environ is the script's environment for commands run from Go.
func environ(ts *testscript.TestScript) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE", "TMPDIR"} {
		env = append(env, k+"="+ts.Getenv(k))
	}
	return env
}

type serverKey struct{}

// modelserver starts the scripted OpenAI-compatible server for the rest of
// the script and points OPENAI_BASE_URL at it:
// `modelserver [-record dir] script.json`. Every request body it receives is
// written byte-exact to dir/req-NNN.json.
func cmdModelServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! modelserver")
	}
	fs := flag.NewFlagSet("modelserver", flag.ContinueOnError)
	record := fs.String("record", "", "directory to record requests in")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		ts.Fatalf("usage: modelserver [-record dir] script.json")
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
	ts.Setenv("OPENAI_BASE_URL", srv.URL)
	ts.Setenv("MODEL_URL", srv.URL)
}

// waitreq waits until the recording directory holds n requests:
// `waitreq dir n`. It lets a script act while review is mid-run.
func cmdWaitReq(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: waitreq dir n")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		got, _ := filepath.Glob(filepath.Join(ts.MkAbs(args[0]), "req-*.json"))
		if len(got) >= n {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("timed out waiting for %d requests in %s", n, args[0])
}

// schema validates JSON files: `schema openai-request file...` checks chat
// completion request bodies, `schema sarif file...` SARIF 2.1.0 logs, both
// against the schemas in ../shared/schemas.
func cmdSchema(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: schema openai-request|sarif file...")
	}
	var validate func([]byte) error
	switch args[0] {
	case "openai-request":
		validate = reviewtest.ValidateRequest
	case "sarif":
		c := jsonschema.NewCompiler()
		sch, err := c.Compile(filepath.Join(schemasDir(), "sarif-schema-2.1.0.json"))
		ts.Check(err)
		validate = func(b []byte) error {
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
			if err != nil {
				return err
			}
			return sch.Validate(v)
		}
	default:
		ts.Fatalf("unknown schema %q", args[0])
	}
	for _, f := range args[1:] {
		err := validate([]byte(ts.ReadFile(f)))
		switch {
		case err != nil && !neg:
			ts.Fatalf("%s: %v", f, err)
		case err == nil && neg:
			ts.Fatalf("%s: valid, want invalid", f)
		}
	}
}
