package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/reviewdev/review/review/scripttest"
)

func TestMain(m *testing.M) {
	testscript.Main(cleanBin{m}, map[string]func(){
		"ttyrun": func() { os.Exit(scripttest.TTYRun(os.Args[1:])) },
	})
}

// cleanBin removes the review binary the scripts ran once the tests are
// done.
type cleanBin struct{ m *testing.M }

func (c cleanBin) Run() int {
	defer func() {
		if binDir != "" {
			os.RemoveAll(binDir)
		}
	}()
	return c.m.Run()
}

// TestScript runs the end-to-end scripts in testdata/script against the real
// review binary, real git repositories and a scripted model server.
func TestScript(t *testing.T) {
	bin := reviewBinary(t)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			if err := scripttest.Setup(env); err != nil {
				return err
			}
			env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
			return nil
		},
		Cmds:      scriptCmds(),
		Condition: scripttest.Condition,
	})
}

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// reviewBinary builds the review command once per test process, into a
// folder of its own, and returns the folder: the scripts start it some
// 1,200 times, and a start of this test binary (which testscript's
// commands would run) cost twice the CPU of the command's own, 45 ms
// against 20 (perf stat, review --version): it is half as large again
// and runs the init of every package only the tests link (the JSON
// schema compiler compiles its meta-schemas). It is built as this test
// binary was (race detector, -trimpath, cgo and tags alike, so that .ci/long's
// race run races the scripts too and Go's build cache serves its
// packages), and without the commit (-buildvcs=false), as a test binary
// is, so that `review --version` says what it said.
func reviewBinary(t *testing.T) string {
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "review-scripts-")
		if binErr != nil {
			return
		}
		args := []string{"build", "-buildvcs=false", "-o", filepath.Join(binDir, "review")}
		env := os.Environ()
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, s := range bi.Settings {
				switch s.Key {
				case "-race", "-trimpath":
					if s.Value == "true" {
						args = append(args, s.Key)
					}
				case "-tags":
					args = append(args, "-tags="+s.Value)
				case "CGO_ENABLED":
					env = append(env, "CGO_ENABLED="+s.Value)
				}
			}
		}
		c := exec.Command("go", append(args, ".")...)
		c.Env = env
		if out, err := c.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go %v: %v\n%s", args, err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binDir
}
