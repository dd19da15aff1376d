package git

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// globalArgs come before every subcommand. Each pins a setting that the
// user's or the repository's configuration could otherwise change in the
// output review parses or shows, or that could make a read write something.
var globalArgs = []string{
	"--no-pager",
	// A path like "*.go" or ":(exclude)x" is a file name, not pathspec
	// magic: paths come from the model and from diffs, never patterns.
	"--literal-pathspecs",
	"-c", "core.quotePath=false",
	"-c", "core.fsmonitor=false",
	"-c", "color.ui=never",
	"-c", "color.diff=never",
	"-c", "diff.noprefix=false",
	"-c", "diff.mnemonicPrefix=false",
	"-c", "diff.relative=false",
	"-c", "diff.suppressBlankEmpty=false",
}

// dropEnv are variables of the caller's environment git never sees: they
// change diff output (an external diff, -u options), start a pager,
// translate the messages matched below, or clash with --literal-pathspecs
// (git refuses glob and literal pathspecs together).
var dropEnv = map[string]bool{
	"GIT_DIFF_OPTS":         true,
	"GIT_EXTERNAL_DIFF":     true,
	"GIT_PAGER":             true,
	"PAGER":                 true,
	"LANG":                  true,
	"LANGUAGE":              true,
	"LC_ALL":                true,
	"GIT_GLOB_PATHSPECS":    true,
	"GIT_NOGLOB_PATHSPECS":  true,
	"GIT_ICASE_PATHSPECS":   true,
	"GIT_LITERAL_PATHSPECS": true,
}

// setEnv are added to what is left of the environment.
var setEnv = []string{"LC_ALL=C", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0"}

// stderrLimit bounds what is kept of git's standard error: its first line
// is what errors show, and a chatty git must not grow memory.
const stderrLimit = 64 << 10

// waitDelay bounds how long Wait waits for the output pipes once git has
// exited or been cancelled: a helper git started (ssh, a remote helper)
// may hold them open after git is gone.
const waitDelay = 5 * time.Second

// Env returns the environment git runs with: the caller's, without the
// variables that change output or messages, with prompts, pagers and
// optional locks off and messages in the C locale.
func Env() []string {
	environ := os.Environ()
	env := make([]string, 0, len(environ)+len(setEnv))
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if !dropEnv[k] {
			env = append(env, kv)
		}
	}
	return append(env, setEnv...)
}

// Runner runs git in one directory. The zero Runner runs in the current
// directory.
type Runner struct {
	Dir string
}

// Cmd is a git command built by Runner.Command. Its standard error is
// kept (the first 64 KiB) for the error that Run and Wait return.
type Cmd struct {
	*exec.Cmd
	ctx    context.Context
	dir    string
	args   []string
	stderr capWriter
}

// Command builds a hardened git command for callers that stream its input
// or output through pipes. ctx kills git when it is done. Run and Wait
// return an *Error; Start's errors are exec's own.
func (r Runner) Command(ctx context.Context, args ...string) *Cmd {
	c := &Cmd{ctx: ctx, dir: r.Dir, args: args, stderr: capWriter{limit: stderrLimit}}
	c.Cmd = exec.CommandContext(ctx, "git", append(append([]string(nil), globalArgs...), args...)...)
	c.Cmd.Dir = r.Dir
	c.Cmd.Env = Env()
	c.Cmd.Stderr = &c.stderr
	c.Cmd.WaitDelay = waitDelay
	return c
}

// Run starts git and waits for it.
func (c *Cmd) Run() error { return c.fail(c.Cmd.Run()) }

// Wait waits for a started git to exit.
func (c *Cmd) Wait() error { return c.fail(c.Cmd.Wait()) }

// Warnings returns the warnings git wrote on its standard error, without
// their "warning: " prefix: a run that succeeds may still have skipped
// work, as rename detection does past diff.renameLimit.
func (c *Cmd) Warnings() []string {
	var out []string
	for line := range strings.SplitSeq(c.stderr.buf.String(), "\n") {
		if w, ok := strings.CutPrefix(strings.TrimSpace(line), "warning: "); ok && w != "" {
			out = append(out, w)
		}
	}
	return out
}

func (c *Cmd) fail(err error) error {
	if err == nil {
		return nil
	}
	e := &Error{Dir: c.dir, Args: c.args, Stderr: c.stderr.buf.Bytes(), Err: err}
	if ctxErr := c.ctx.Err(); ctxErr != nil {
		// Killed because the caller gave up: that is the reason, not the
		// signal.
		e.Err = ctxErr
	}
	return e
}

// Capped runs git and returns its standard output, keeping at most limit
// bytes of it (limit <= 0: all) and reporting whether some were cut. The
// rest is read and discarded, so git never blocks on a full pipe.
func (r Runner) Capped(ctx context.Context, limit int, args ...string) (out []byte, cut bool, err error) {
	c := r.Command(ctx, args...)
	w := &capWriter{limit: limit}
	c.Stdout = w
	if err := c.Run(); err != nil {
		return nil, false, err
	}
	return w.buf.Bytes(), w.cut, nil
}

// Output runs git and returns all its standard output.
func (r Runner) Output(ctx context.Context, args ...string) ([]byte, error) {
	out, _, err := r.Capped(ctx, 0, args...)
	return out, err
}

// Text runs git and returns its standard output without surrounding white
// space: the answer of rev-parse, merge-base and their like.
func (r Runner) Text(ctx context.Context, args ...string) (string, error) {
	out, err := r.Output(ctx, args...)
	return strings.TrimSpace(string(out)), err
}

// Error is a failed git run.
type Error struct {
	// Dir is where git ran.
	Dir string
	// Args are the subcommand and its arguments, without the options the
	// Runner adds.
	Args []string
	// Stderr is the start of git's standard error.
	Stderr []byte
	// Err is why the run failed: an *exec.ExitError, the context's error
	// when it was cancelled, or why git could not start.
	Err error
}

// Error is one line: the subcommand and git's first line of complaint, or
// how to fix a repository git refuses to read.
func (e *Error) Error() string {
	name := "git"
	if len(e.Args) > 0 {
		name = "git " + e.Args[0]
	}
	if errors.Is(e.Err, context.Canceled) || errors.Is(e.Err, context.DeadlineExceeded) {
		return fmt.Sprintf("%s: %v", name, e.Err)
	}
	if repo, ok := e.Unsafe(); ok {
		return fmt.Sprintf("git refuses to read %s because another user owns it: run git config --global --add safe.directory %s", repo, repo)
	}
	if msg := e.Message(); msg != "" {
		return fmt.Sprintf("%s: %s", name, msg)
	}
	return fmt.Sprintf("%s: %v", name, e.Err)
}

// Unwrap returns Err, so errors.Is finds context.Canceled and errors.As an
// *exec.ExitError.
func (e *Error) Unwrap() error { return e.Err }

// Message returns git's first line of complaint without its "fatal: ", or
// "" when git said nothing.
func (e *Error) Message() string {
	l, _, _ := bytes.Cut(bytes.TrimSpace(e.Stderr), []byte("\n"))
	return strings.TrimPrefix(string(bytes.TrimSpace(l)), "fatal: ")
}

// ExitCode returns git's exit status, or -1 when git did not exit on its
// own (it did not start, or was killed).
func (e *Error) ExitCode() int {
	var exit *exec.ExitError
	if errors.As(e.Err, &exit) {
		return exit.ExitCode()
	}
	return -1
}

// Unsafe reports whether git refused the repository because another user
// owns it (safe.directory), and which directory to declare safe: the one
// git names, else where git ran.
func (e *Error) Unsafe() (repo string, ok bool) {
	const marker = "dubious ownership"
	i := bytes.Index(e.Stderr, []byte(marker))
	if i < 0 {
		return "", false
	}
	// fatal: detected dubious ownership in repository at '/path'
	line, _, _ := bytes.Cut(e.Stderr[i:], []byte("\n"))
	if _, rest, ok := bytes.Cut(line, []byte(" at '")); ok {
		if p, _, ok := bytes.Cut(rest, []byte("'")); ok && len(p) > 0 {
			return string(p), true
		}
	}
	return e.Dir, true
}

// capWriter keeps the first limit bytes written to it (limit <= 0: all)
// and discards the rest, so a huge output cannot exhaust memory.
type capWriter struct {
	buf   bytes.Buffer
	limit int
	cut   bool
}

func (w *capWriter) Write(p []byte) (int, error) {
	if w.limit > 0 {
		room := w.limit - w.buf.Len()
		if room < len(p) {
			w.cut = true
			if room > 0 {
				w.buf.Write(p[:room])
			}
			return len(p), nil
		}
	}
	return w.buf.Write(p)
}

// PatchArgs are the arguments of the patch review parses and shows, from
// one commit to another, limited to paths when any are given. Its flags pin
// everything user configuration could change in the patch beyond what the
// Runner pins: prefixes, colour, external and textconv drivers, relative
// paths, rename and copy detection, context size, merged hunks, submodule
// format and file order. The diff context and the tools' file diff share
// them, so a file's diff reads the same in both. go-diff misreads coloured
// and -U0 output, so neither may ever be used.
//
// Renames are detected as git diff does by default (-M). Copies only when
// asked (-C): git then pairs a new file with any similar file the change
// also touched, so a new file written next to a like one reads as its copy,
// with lines counted against it that were never deleted.
func PatchArgs(from, to string, copies bool, paths ...string) []string {
	args := []string{
		"diff", "--no-color", "--no-ext-diff", "--no-textconv", "--no-relative",
		"--src-prefix=a/", "--dst-prefix=b/", "-M",
	}
	if copies {
		args = append(args, "-C")
	}
	args = append(args, "-U3", "--inter-hunk-context=0",
		"--submodule=short", "--ignore-submodules=none", "-O/dev/null",
		from, to, "--")
	return append(args, paths...)
}

// tops remembers, by directory, the top level of the work tree holding it
// (rev-parse --show-toplevel) and the common directory of its repository
// (rev-parse --git-common-dir, as printed there), asked for together: a
// *dirsCall, answered or being answered.
var tops sync.Map // absolute directory -> *dirsCall

type repoDirs struct{ top, common string }

// dirsCall is one asking of a directory's top level and common directory.
// done is closed once it is answered (ok) or has failed; a failed call is
// forgotten, so that the next question asks git itself.
type dirsCall struct {
	done chan struct{}
	dirs repoDirs
	ok   bool
}

// key is the directory the answers are remembered by.
func (r Runner) key() string {
	key, err := filepath.Abs(cmp.Or(r.Dir, "."))
	if err != nil {
		return r.Dir
	}
	return key
}

// asked returns the directories of r's directory when they were asked
// for, waiting while they are being asked.
func (r Runner) asked(ctx context.Context) (repoDirs, bool) {
	v, ok := tops.Load(r.key())
	if !ok {
		return repoDirs{}, false
	}
	c := v.(*dirsCall)
	select {
	case <-c.done:
		return c.dirs, c.ok
	case <-ctx.Done():
		return repoDirs{}, false
	}
}

// remember keeps dirs as the answer for r's directory.
func (r Runner) remember(dirs repoDirs) {
	c := &dirsCall{done: make(chan struct{}), dirs: dirs, ok: true}
	close(c.done)
	tops.Store(r.key(), c)
}

// TopLevel returns the top level of the work tree holding dir, as git
// rev-parse --show-toplevel prints it. An answer is remembered for the
// process: the configuration, the diff and the store all ask for it, and
// it does not change while review runs. Errors are not remembered. The
// repository's common directory is asked for by the same process, for
// CommonDir: the store's directory is found from it. While
// RevParseDirsSoon asks for them, TopLevel waits for its answer.
func (r Runner) TopLevel(ctx context.Context) (string, error) {
	if dirs, ok := r.asked(ctx); ok {
		return dirs.top, nil
	}
	out, err := r.Text(ctx, "rev-parse", "--show-toplevel", "--git-common-dir")
	if err != nil {
		return "", err
	}
	top, common, ok := strings.Cut(out, "\n")
	if !ok || strings.Contains(common, "\n") {
		// A path holding a line break: each is asked alone.
		if top, err = r.Text(ctx, "rev-parse", "--show-toplevel"); err != nil {
			return top, err
		}
		if common, err = r.Text(ctx, "rev-parse", "--git-common-dir"); err != nil {
			return "", err
		}
	}
	r.remember(repoDirs{top: top, common: common})
	return top, nil
}

// RevParseDirsSoon starts git rev-parse with args, whose answer is lines
// lines, and returns what waits for them. Unless they are known or asked
// already, the process also prints the top level and the common directory
// that TopLevel and CommonDir return, which from now on wait for it rather
// than start a git process of their own: a review's first git processes
// start together, and its settings wait for the top level. When git
// fails, or its answer is not two paths and lines lines, the directories
// are left for TopLevel to ask, and the error is git's or a *linesError.
func (r Runner) RevParseDirsSoon(ctx context.Context, lines int, args ...string) func() ([]string, error) {
	key := r.key()
	c := &dirsCall{done: make(chan struct{})}
	if _, loaded := tops.LoadOrStore(key, c); loaded {
		c = nil
		args = append([]string{"rev-parse"}, args...)
	} else {
		args = append([]string{"rev-parse", "--show-toplevel", "--git-common-dir"}, args...)
		lines += 2
	}
	var (
		got  []string
		err  error
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		out, rerr := r.Text(ctx, args...)
		got, err = splitLines(out, lines, rerr)
		if c == nil {
			return
		}
		if err != nil {
			tops.CompareAndDelete(key, c)
		} else {
			c.dirs, c.ok, got = repoDirs{top: got[0], common: got[1]}, true, got[2:]
		}
		close(c.done)
	}()
	return func() ([]string, error) {
		<-done
		return got, err
	}
}

// linesError is an answer of git's that is not the lines asked for.
type linesError struct{ want, got int }

func (e *linesError) Error() string {
	return fmt.Sprintf("git answered %d lines, not %d", e.got, e.want)
}

// splitLines splits out, git's answer, into n lines.
func splitLines(out string, n int, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	lines := strings.Split(out, "\n")
	if len(lines) != n {
		return nil, &linesError{want: n, got: len(lines)}
	}
	return lines, nil
}

// CommonDir returns the common directory of the repository holding dir as
// git rev-parse --git-common-dir prints it (relative to dir, or absolute):
// TopLevel's companion answer when it was asked, else git's.
func (r Runner) CommonDir(ctx context.Context) (string, error) {
	if dirs, ok := r.asked(ctx); ok {
		return dirs.common, nil
	}
	return r.Text(ctx, "rev-parse", "--git-common-dir")
}
