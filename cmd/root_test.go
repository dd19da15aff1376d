package cmd

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestSubcommandNames holds each of subcommands to the name of the
// command it makes, and to the full tree's commands: subcommandIn finds the
// command args run by these names.
func TestSubcommandNames(t *testing.T) {
	f := &Factory{IO: &IOStreams{In: strings.NewReader("")}, Getenv: func(string) string { return "" }}
	root := newRoot(f, false)
	var names []string
	for _, c := range root.Commands() {
		if c.Name() != "help" && c.Name() != "completion" {
			names = append(names, c.Name())
		}
	}
	var want []string
	for _, sub := range subcommands {
		if got := sub.make(f).Name(); got != sub.name {
			t.Errorf("subcommands names %q for the command %q", sub.name, got)
		}
		want = append(want, sub.name)
	}
	slices.Sort(want) // as cobra lists them
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("the root's commands are %v, subcommands %v", names, want)
	}
}

// TestRootOfHelp holds every command's help, and its refusal of an
// unknown flag, the same when it is run in the root made for it
// (newRootOf) as in the whole tree.
func TestRootOfHelp(t *testing.T) {
	full := func(args ...string) (string, string, int) {
		var out, errs bytes.Buffer
		f := &Factory{IO: &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errs}, Getenv: func(string) string { return "" }}
		root := newRoot(f, false)
		root.SetArgs(args)
		_, err := root.ExecuteContextC(context.Background())
		code := ExitOK
		if err != nil {
			code = exitCode(err)
		}
		return out.String(), errs.String(), code
	}
	lean := func(args ...string) (string, string, int) {
		var out, errs bytes.Buffer
		f := &Factory{IO: &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errs}, Getenv: func(string) string { return "" }}
		if subcommandIn(args) == nil {
			t.Fatalf("review %s is not run in a root of its own", strings.Join(args, " "))
		}
		code := run(context.Background(), f, args)
		return out.String(), errs.String(), code
	}
	f := &Factory{IO: &IOStreams{In: strings.NewReader("")}, Getenv: func(string) string { return "" }}
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			walk(sub, append(path[:len(path):len(path)], sub.Name()))
		}
	}
	for _, sub := range subcommands {
		walk(sub.make(f), []string{sub.name})
	}
	for _, path := range paths {
		fo, _, fc := full(append(path, "--help")...)
		lo, le, lc := lean(append(path, "--help")...)
		if lo != fo || lc != fc || lc != ExitOK {
			t.Errorf("review %s --help in its own root (exit %d):\n%s%s\nin the whole tree (exit %d):\n%s", strings.Join(path, " "), lc, lo, le, fc, fo)
		}
		if !strings.Contains(lo, "--quiet") {
			t.Errorf("review %s --help does not list the root's --quiet:\n%s", strings.Join(path, " "), lo)
		}
		_, fe, fc := full(append(path, "--no-such-flag")...)
		_, le, lc = lean(append(path, "--no-such-flag")...)
		// The whole tree's error is written by run, not by Execute.
		if lc != fc || lc == ExitOK || !strings.Contains(le, "unknown flag: --no-such-flag") {
			t.Errorf("review %s --no-such-flag in its own root: exit %d, %q; in the whole tree: exit %d, %q", strings.Join(path, " "), lc, le, fc, fe)
		}
	}
}
