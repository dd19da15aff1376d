package diffctx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/reviewdev/review/tools"
)

// Options says what Load diffs.
type Options struct {
	Dir    string   // any directory inside the repository ("" = the current directory)
	Base   string   // the revision the branch is reviewed against; required
	Head   string   // the revision under review; "" means "HEAD"
	Ignore []string // globs on repository paths, matched as tools.Ignored does; matching files are left out
}

// Load diffs head against the merge base of base and head, as git diff
// base...head does, and parses the result. Only committed changes count: the
// work tree and index are not looked at. An empty diff is not an error; the
// Diff then has no files.
//
// Errors match ErrGitMissing, ErrNotRepo or ErrNoMergeBase with errors.Is,
// or are a *RevError or *ParseError for errors.As.
func Load(ctx context.Context, opts Options) (*Diff, error) {
	if opts.Base == "" {
		return nil, errors.New("no base revision given: name the branch or commit to review against")
	}
	if opts.Head == "" {
		opts.Head = "HEAD"
	}
	for _, p := range opts.Ignore {
		if !doublestar.ValidatePattern(p) {
			return nil, fmt.Errorf("ignore pattern %q is not a valid glob: fix it in the configuration", p)
		}
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil, fmt.Errorf("%w (not found in PATH): install git, review reads the changes with it", ErrGitMissing)
	}
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	g := &git{dir: dir}

	root, err := g.output(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		abs, _ := filepath.Abs(dir)
		switch msg := err.Error(); {
		case strings.Contains(msg, "not a git repository"):
			return nil, fmt.Errorf("%w: %s is not inside a git work tree; run review in a clone of the repository", ErrNotRepo, abs)
		case strings.Contains(msg, "must be run in a work tree"):
			// A bare repository, or the inside of .git.
			return nil, fmt.Errorf("%w: %s has no work tree; run review in a clone of the repository", ErrNotRepo, abs)
		}
		return nil, err
	}
	d := &Diff{Root: root, Base: opts.Base, Head: opts.Head}
	g.dir = root
	if d.BaseSHA, err = g.resolve(ctx, opts.Base); err != nil {
		return nil, err
	}
	if d.HeadSHA, err = g.resolve(ctx, opts.Head); err != nil {
		return nil, err
	}
	if d.MergeBase, err = g.mergeBase(ctx, d); err != nil {
		return nil, err
	}

	var skip func(*File) bool
	if len(opts.Ignore) > 0 {
		// The tools hide the same files, so both must match alike: a glob
		// without a slash matches a name at any depth, as in .gitignore.
		skip = func(f *File) bool { return tools.Ignored(opts.Ignore, f.Path) }
	}
	d.Files, err = g.diff(ctx, d.MergeBase, d.HeadSHA, skip)
	if err != nil {
		var perr *ParseError
		if errors.As(err, &perr) {
			return nil, fmt.Errorf("%w; compare with git diff %.12s %.12s and report it if that diff looks normal", err, d.MergeBase, d.HeadSHA)
		}
		return nil, err
	}
	return d, nil
}

// diffArgs are the arguments of the diff Load parses. The -c settings and
// flags pin everything user configuration could change in the output:
// prefixes, colour, external and textconv drivers, blank context lines,
// file order, relative paths, rename and copy detection, context size and
// submodule format. go-diff misreads coloured and -U0 output, so neither may
// ever be used.
func diffArgs(from, to string) []string {
	return []string{
		"-c", "core.quotePath=false",
		"-c", "diff.noprefix=false",
		"-c", "diff.mnemonicPrefix=false",
		"-c", "diff.suppressBlankEmpty=false",
		"-c", "color.ui=never",
		"-c", "color.diff=never",
		"diff", "--no-color", "--no-ext-diff", "--no-textconv", "--no-relative",
		"--src-prefix=a/", "--dst-prefix=b/", "-M", "-C", "-U3", "--inter-hunk-context=0",
		"--submodule=short", "--ignore-submodules=none", "-O/dev/null",
		from, to, "--",
	}
}

// git runs git in one directory with an environment that keeps output
// parseable: no pager, no prompts, untranslated messages, and no
// environment variables that change diff output.
type git struct {
	dir string
}

func (g *git) cmd(ctx context.Context, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, "git", args...)
	c.Dir = g.dir
	env := make([]string, 0, len(os.Environ())+4)
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIFF_OPTS", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER", "LANG", "LANGUAGE", "LC_ALL":
			continue
		}
		env = append(env, kv)
	}
	c.Env = append(env, "LC_ALL=C", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	return c
}

// output runs git and returns its trimmed standard output, or an error
// carrying the first line of its standard error.
func (g *git) output(ctx context.Context, args ...string) (string, error) {
	c := g.cmd(ctx, args...)
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		return stdout.String(), g.fail(ctx, args, err, stderr.Bytes())
	}
	return strings.TrimSpace(stdout.String()), nil
}

// fail turns a failed git run into an error a person can act on.
func (g *git) fail(ctx context.Context, args []string, err error, stderr []byte) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	msg := firstLine(stderr)
	if bytes.Contains(stderr, []byte("dubious ownership")) {
		return fmt.Errorf("git refuses to read %s because another user owns it: run git config --global --add safe.directory %s", g.dir, g.dir)
	}
	if msg == "" {
		msg = err.Error()
	}
	return fmt.Errorf("git %s: %s", args[0], msg)
}

// resolve returns the commit a revision names.
func (g *git) resolve(ctx context.Context, rev string) (string, error) {
	if strings.HasPrefix(rev, "-") {
		return "", &RevError{Rev: rev, Hint: "a revision cannot start with \"-\""}
	}
	sha, err := g.output(ctx, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil || sha == "" {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", &RevError{Rev: rev, Hint: g.revHint(ctx, rev)}
	}
	return sha, nil
}

// revHint says how to make rev resolvable.
func (g *git) revHint(ctx context.Context, rev string) string {
	var hint string
	remotes, _ := g.output(ctx, "remote")
	names := strings.Fields(remotes)
	remote, branch, qualified := strings.Cut(rev, "/")
	switch {
	case rev == "HEAD":
		hint = "the repository has no commits yet; commit the changes to review first"
	case qualified && slices.Contains(names, remote):
		hint = fmt.Sprintf("fetch it first: git fetch %s %s", remote, branch)
	case len(names) > 0:
		r := names[0]
		if slices.Contains(names, "origin") {
			r = "origin"
		}
		hint = fmt.Sprintf("check the name; if it is a branch of the remote, fetch it (git fetch %s %s) or use %s/%s", r, rev, r, rev)
	default:
		hint = "check the name with git branch --all or git log"
	}
	if h := g.shallowHint(ctx); h != "" {
		hint += "; " + h
	}
	return hint
}

// shallowHint explains what a shallow clone lacks, in CI terms when running
// in CI, where shallow clones are the default.
func (g *git) shallowHint(ctx context.Context) string {
	shallow, _ := g.output(ctx, "rev-parse", "--is-shallow-repository")
	ci := os.Getenv("CI") != "" || os.Getenv("GITHUB_ACTIONS") != ""
	switch {
	case ci:
		return "in CI the clone is often shallow: check out with fetch-depth: 0 (actions/checkout) or run git fetch --unshallow"
	case shallow == "true":
		return "this clone is shallow: run git fetch --unshallow"
	}
	return ""
}

func (g *git) mergeBase(ctx context.Context, d *Diff) (string, error) {
	c := g.cmd(ctx, "merge-base", d.BaseSHA, d.HeadSHA)
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	err := c.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return strings.TrimSpace(stdout.String()), nil
	case errors.As(err, &exit) && exit.ExitCode() == 1 && len(bytes.TrimSpace(stderr.Bytes())) == 0:
		why := "the histories are unrelated; review against a base that shares history with the head"
		if h := g.shallowHint(ctx); h != "" {
			why = "the clone may lack the common history; " + h
		}
		return "", fmt.Errorf("%w between %q and %q: %s", ErrNoMergeBase, d.Base, d.Head, why)
	default:
		return "", g.fail(ctx, []string{"merge-base"}, err, stderr.Bytes())
	}
}

// diff runs git diff and parses its output as it streams, so the raw diff
// is never held whole.
func (g *git) diff(ctx context.Context, from, to string, skip func(*File) bool) ([]*File, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	args := diffArgs(from, to)
	c := g.cmd(ctx, args...)
	var stderr bytes.Buffer
	c.Stderr = &limited{w: &stderr, n: 64 << 10}
	out, err := c.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("running git diff: %w", err)
	}
	if err := c.Start(); err != nil {
		return nil, fmt.Errorf("running git diff: %w", err)
	}
	files, perr := parse(out, skip)
	if perr != nil {
		cancel() // stop git; its exit status no longer matters
		_ = c.Wait()
		return nil, perr
	}
	if err := c.Wait(); err != nil {
		return nil, g.fail(ctx, []string{"diff"}, err, stderr.Bytes())
	}
	return files, nil
}

// limited keeps at most n bytes written to it and discards the rest, so a
// chatty git cannot grow memory.
type limited struct {
	w *bytes.Buffer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func firstLine(b []byte) string {
	l, _, _ := bytes.Cut(bytes.TrimSpace(b), []byte("\n"))
	return strings.TrimPrefix(string(bytes.TrimSpace(l)), "fatal: ")
}
