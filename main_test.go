package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/reviewdev/review/cmd"
	"github.com/reviewdev/review/review/scripttest"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"review": func() { os.Exit(cmd.Main()) },
		"ttyrun": func() { os.Exit(scripttest.TTYRun(os.Args[1:])) },
	})
}

// TestScript runs the end-to-end scripts in testdata/script against the real
// review binary, real git repositories and a scripted model server.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup:               scripttest.Setup,
		Cmds:                scriptCmds(),
		Condition:           scripttest.Condition,
	})
}
