package diffctx

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/reviewdev/review/internal/git"
	"github.com/reviewdev/review/internal/glob"
	"github.com/reviewdev/review/internal/lazy"
)

// Options says what Load diffs.
type Options struct {
	Dir    string   // any directory inside the repository ("" = the current directory)
	Base   string   // the revision the branch is reviewed against; required
	Head   string   // the revision under review; "" means "HEAD"
	Ignore []string // globs on repository paths, matched as glob.Match does; matching files are left out
	// FindCopies has git look for copies as well as renames (git diff -C).
	// Off, as in git diff, a new file is added even when a changed file
	// is like it.
	FindCopies bool
	// ReviewData reviews bulk files (see TagBulk) in priority order like
	// code, instead of after every other file.
	ReviewData bool
	// Since, when set, narrows the review to the commits since this
	// revision, which must be an ancestor of head: the hunks they changed
	// stay in Files, the other files of the change move to Earlier. Line
	// numbers are head's either way.
	Since string
	// CI says the run is in CI, where clones are shallow by default: the
	// hints for a revision or merge base that is missing say how to fetch
	// there. The caller decides it; Load reads no environment.
	CI bool
	// Label, when set, is the name the diff gives its head (Diff.Head)
	// instead of Head: "the work tree" for a commit Snapshot made.
	Label string
	// Resolved, when set, waits for base and head as ResolveSoon read
	// them: Load takes them when they are of its Base and Head, and
	// resolves the names itself otherwise, or when they failed.
	Resolved func() (Revisions, bool)
	// Patches bounds the bytes of file sections kept whole (File.Patch),
	// from which a tool answers a file's diff without starting git: the
	// first files in the diff's order, each up to 256 KiB. 0 keeps none,
	// for a run that calls no tool (a dry run); a review keeps
	// DefaultPatches.
	Patches int
}

// Revisions are a base and a head, the commits they name and their merge
// base.
type Revisions struct {
	Base, Head                  string // the names
	BaseSHA, HeadSHA, MergeBase string
}

// ResolveSoon starts resolving base and head (HEAD when empty) in dir, as
// Load does, and returns what waits for them: a caller that knows the
// names before it can call Load (while it reads its settings) gives it to
// Load (Options.Resolved), which then waits for one git process fewer.
// It reports false when anything is unusual; Load then says what. The
// same git process answers the repository's top level, which the
// settings wait for (git.Runner.RevParseDirsSoon).
func ResolveSoon(ctx context.Context, dir, base, head string) func() (Revisions, bool) {
	head = cmp.Or(head, "HEAD")
	args, usual := symmetric(base, head)
	if !usual {
		return func() (Revisions, bool) { return Revisions{}, false }
	}
	// Asked before the caller goes on, so that the settings' question
	// of the top level finds it asked.
	answer := git.Runner{Dir: cmp.Or(dir, ".")}.RevParseDirsSoon(ctx, 3, args)
	done := make(chan struct{})
	var (
		r  Revisions
		ok bool
	)
	go func() {
		defer close(done)
		d := &Diff{Base: base, Head: head}
		if !setRevisions(d, answer) {
			return
		}
		r, ok = Revisions{Base: base, Head: head, BaseSHA: d.BaseSHA, HeadSHA: d.HeadSHA, MergeBase: d.MergeBase}, true
	}()
	return func() (Revisions, bool) {
		<-done
		return r, ok
	}
}

// Load diffs head against the merge base of base and head, as git diff
// base...head does, and parses the result. Only committed changes count: the
// work tree and index are not looked at. An empty diff is not an error; the
// Diff then has no files.
//
// Errors match ErrGitMissing, ErrNotRepo or ErrNoMergeBase with errors.Is,
// or are a *RepoError, *RevError, *SinceError or *ParseError for
// errors.As.
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
	g := &runner{Runner: git.Runner{Dir: dir}, ci: opts.CI}

	root, err := g.TopLevel(ctx)
	if err != nil {
		err = g.fail(ctx, err)
		abs, _ := filepath.Abs(dir)
		switch msg := err.Error(); {
		case strings.Contains(msg, "not a git repository"):
			return nil, &RepoError{Dir: abs}
		case strings.Contains(msg, "must be run in a work tree"):
			// A bare repository, or the inside of .git.
			return nil, &RepoError{Dir: abs, Bare: true}
		}
		return nil, err
	}
	d := &Diff{Root: root, Base: opts.Base, Head: opts.Head}
	g.Dir = root
	if r, ok := ResolvedFor(opts.Resolved, opts.Base, opts.Head); ok {
		d.BaseSHA, d.HeadSHA, d.MergeBase = r.BaseSHA, r.HeadSHA, r.MergeBase
	} else if err := g.resolveWithBase(ctx, d); err != nil {
		return nil, err
	}
	if opts.Head == "HEAD" {
		d.Checkout = d.HeadSHA
	}

	var skip func(*File) bool
	if len(opts.Ignore) > 0 {
		// The tools hide the same files, so both must match alike: a glob
		// without a slash matches a name at any depth, as in .gitignore.
		skip = func(f *File) bool { return glob.Match(opts.Ignore, f.Path) }
	}
	d.Files, d.Warnings, err = g.diff(ctx, d.MergeBase, d.HeadSHA, opts.FindCopies, skip, opts.Patches)
	if err != nil {
		var perr *ParseError
		if errors.As(err, &perr) {
			return nil, fmt.Errorf("%w; compare with git diff %.12s %.12s and report it if that diff looks normal", err, d.MergeBase, d.HeadSHA)
		}
		return nil, err
	}
	if err := g.contentless(ctx, d.MergeBase, d.HeadSHA, d.Files); err != nil {
		return nil, err
	}
	if opts.Since != "" {
		if err := g.narrowSince(ctx, d, opts.Since, opts.FindCopies, skip); err != nil {
			return nil, err
		}
	}
	if !opts.ReviewData {
		markBulk(d.Files)
	}
	if opts.Label != "" {
		d.Head = opts.Label
	}
	return d, nil
}

// resolveWithBase sets d's base and head commits and their merge base.
// Usually one git process answers all three: rev-parse of the symmetric
// difference prints the head's commit, the base's and, with a caret, each
// merge base. On anything unusual (a name that looks like an option or a
// range, an unknown revision, unrelated histories, several merge bases)
// the names are resolved one by one, and the merge base asked for by the
// commits, which says exactly what is wrong and picks git merge-base's
// one base among several.
func (g *runner) resolveWithBase(ctx context.Context, d *Diff) error {
	if g.resolveAtOnce(ctx, d) {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	a, b := d.Base, d.Head
	var err error
	if d.BaseSHA, err = g.resolve(ctx, a); err != nil {
		return err
	}
	if d.HeadSHA, err = g.resolve(ctx, b); err != nil {
		return err
	}
	d.MergeBase, err = g.mergeBase(ctx, d)
	return err
}

// resolveAtOnce sets d's base and head commits and their merge base with
// one git process, rev-parse of the symmetric difference, and reports
// whether it could: not for a name that looks like an option or a range,
// nor an unknown revision, unrelated histories or several merge bases.
func (g *runner) resolveAtOnce(ctx context.Context, d *Diff) bool {
	args, usual := symmetric(d.Base, d.Head)
	return usual && setRevisions(d, g.RevParseDirsSoon(ctx, 3, args))
}

// symmetric is rev-parse's argument for the symmetric difference of base
// and head, whose answer is head's commit, base's and, with a caret, their
// merge base; false for a name that looks like an option or a range, or no
// base.
func symmetric(base, head string) (string, bool) {
	if base == "" || strings.HasPrefix(base, "-") || strings.HasPrefix(head, "-") || strings.Contains(base+head, "..") {
		return "", false
	}
	return base + "^{commit}..." + head + "^{commit}", true
}

// setRevisions sets d's commits from the answer to symmetric's argument,
// and reports whether it was one: three commits, the last with a caret.
func setRevisions(d *Diff, answer func() ([]string, error)) bool {
	lines, err := answer()
	if err != nil || !isSHA(lines[0]) || !isSHA(lines[1]) || !strings.HasPrefix(lines[2], "^") || !isSHA(lines[2][1:]) {
		return false
	}
	d.HeadSHA, d.BaseSHA, d.MergeBase = lines[0], lines[1], lines[2][1:]
	return true
}

// ResolvedFor waits for the revisions resolved read (ResolveSoon's), and
// returns them when they were read and are of base and head (HEAD when
// empty); nil resolved has none.
func ResolvedFor(resolved func() (Revisions, bool), base, head string) (Revisions, bool) {
	if resolved == nil {
		return Revisions{}, false
	}
	r, ok := resolved()
	return r, ok && r.Base == base && r.Head == cmp.Or(head, "HEAD")
}

// runner runs the git commands Load needs in one directory.
type runner struct {
	git.Runner
	ci bool // see Options.CI
}

// output runs git and returns its trimmed standard output.
func (g *runner) output(ctx context.Context, args ...string) (string, error) {
	out, err := g.Text(ctx, args...)
	if err != nil {
		return out, g.fail(ctx, err)
	}
	return out, nil
}

// fail returns the context's error alone when the caller stopped Load: git
// did not fail then, it was stopped. Otherwise git's own error says what
// went wrong.
func (g *runner) fail(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// resolve returns the commit a revision names.
func (g *runner) resolve(ctx context.Context, rev string) (string, error) {
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

// isSHA reports whether s is a full SHA-1 or SHA-256 object name.
func isSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Resolve returns the commit rev names in the repository at dir, or a
// *RevError saying how to make it resolvable.
func Resolve(ctx context.Context, dir, rev string) (string, error) {
	return (&runner{Runner: git.Runner{Dir: dir}}).resolve(ctx, rev)
}

// hexRev matches what can only be an abbreviated or full commit ID.
var hexRev = lazy.Regexp(`^[0-9a-fA-F]{7,64}$`)

// revHint says how to make rev resolvable. Fetching from a remote is
// advice for a branch name only: not for a commit ID, and not for a
// revision expression such as HEAD~3 or HEAD:path.
func (g *runner) revHint(ctx context.Context, rev string) string {
	if _, err := g.output(ctx, "rev-parse", "--verify", "--quiet", "HEAD"); err != nil && ctx.Err() == nil {
		return "the repository has no commits yet; commit the changes to review first"
	}
	var hint string
	remotes, _ := g.output(ctx, "remote")
	names := strings.Fields(remotes)
	remote, branch, qualified := strings.Cut(rev, "/")
	switch {
	case hexRev().MatchString(rev):
		hint = "no commit has this ID here; fetch the commit, or check the ID with git log"
	case strings.ContainsAny(rev, ":~^@{}"):
		hint = "the expression names no commit; check it with git rev-parse"
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
func (g *runner) shallowHint(ctx context.Context) string {
	shallow, _ := g.output(ctx, "rev-parse", "--is-shallow-repository")
	switch {
	case g.ci:
		return "in CI the clone is often shallow: check out with fetch-depth: 0 (actions/checkout) or run git fetch --unshallow"
	case shallow == "true":
		return "this clone is shallow: run git fetch --unshallow"
	}
	return ""
}

func (g *runner) mergeBase(ctx context.Context, d *Diff) (string, error) {
	base, err := g.Text(ctx, "merge-base", d.BaseSHA, d.HeadSHA)
	var gerr *git.Error
	switch {
	case err == nil:
		return base, nil
	case errors.As(err, &gerr) && gerr.ExitCode() == 1 && len(bytes.TrimSpace(gerr.Stderr)) == 0:
		why := "the histories are unrelated; review against a base that shares history with the head"
		if h := g.shallowHint(ctx); h != "" {
			why = "the clone may lack the common history; " + h
		}
		return "", fmt.Errorf("%w between %q and %q: %s", ErrNoMergeBase, d.Base, d.Head, why)
	default:
		return "", g.fail(ctx, err)
	}
}

// diff runs git diff and parses its output as it streams, so the raw diff
// is never held whole. It returns the warnings git printed, such as rename
// detection skipped past diff.renameLimit.
func (g *runner) diff(ctx context.Context, from, to string, copies bool, skip func(*File) bool, patches int) ([]*File, []string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := g.Command(ctx, git.PatchArgs(from, to, copies)...)
	out, err := c.StdoutPipe()
	if err != nil {
		return nil, nil, fmt.Errorf("running git diff: %w", err)
	}
	if err := c.Start(); err != nil {
		return nil, nil, fmt.Errorf("running git diff: %w", err)
	}
	files, perr := parse(out, skip, patches)
	if perr != nil {
		cancel() // stop git; its exit status no longer matters
		_ = c.Wait()
		return nil, nil, perr
	}
	if err := c.Wait(); err != nil {
		return nil, nil, g.fail(ctx, err)
	}
	return files, c.Warnings(), nil
}

// pathsPerRun bounds the paths given to one git diff --raw --numstat,
// well below any limit on the length of a command line.
const pathsPerRun = 1000

// contentless completes the files git printed without content, which the
// patch alone cannot fully describe: an exact rename or copy has no index
// line, so neither its mode nor whether it is a submodule or a symlink
// (git writes mode lines only when the mode changed); and neither it nor a
// change of mode only says whether the file is binary. git diff --raw
// --numstat of their new paths, without rename detection, answers both
// with the same attributes and rules as any other file: a moved file reads
// as added there, with its mode, and "-" counts mark binary content.
func (g *runner) contentless(ctx context.Context, from, to string, files []*File) error {
	var todo []*File
	for _, f := range files {
		if len(f.Hunks) == 0 && !f.Binary && f.Status != Added && f.Status != Deleted {
			todo = append(todo, f)
		}
	}
	for len(todo) > 0 {
		n := min(len(todo), pathsPerRun)
		batch := todo[:n]
		todo = todo[n:]
		args := []string{"diff", "-z", "--raw", "--numstat", "--no-renames", "--no-ext-diff", "--no-textconv", "--no-relative",
			"--ignore-submodules=none", from, to, "--"}
		for _, f := range batch {
			args = append(args, f.Path)
		}
		out, err := g.Output(ctx, args...)
		if err != nil {
			return fmt.Errorf("reading the modes and content type of moved files: %w", g.fail(ctx, err))
		}
		modes, binary, err := rawNumstat(out)
		if err != nil {
			return err
		}
		for _, f := range batch {
			if f.OldMode == "" && f.NewMode == "" {
				// Same content, same mode, on both sides.
				f.OldMode, f.NewMode = modes[f.Path], modes[f.Path]
				f.Symlink = f.OldMode == "120000" || f.NewMode == "120000"
				f.Submodule = f.OldMode == "160000" || f.NewMode == "160000"
			}
			f.Binary = binary[f.Path] && !f.Submodule
			tag(f)
		}
	}
	return nil
}

// rawNumstat reads git diff -z --raw --numstat without rename detection:
// the new mode of each path, and the paths whose counts are "-", git's
// mark of binary content.
func rawNumstat(out []byte) (modes map[string]string, binary map[string]bool, err error) {
	modes, binary = map[string]string{}, map[string]bool{}
	recs := strings.Split(string(out), "\x00")
	for i := 0; i < len(recs); i++ {
		rec := recs[i]
		switch {
		case rec == "":
		case strings.HasPrefix(rec, ":"):
			// ":<old mode> <new mode> <old oid> <new oid> <status>", then the path.
			f := strings.Fields(rec[1:])
			if len(f) != 5 || i+1 >= len(recs) {
				return nil, nil, fmt.Errorf("unexpected git diff --raw record %q", clip([]byte(rec)))
			}
			i++
			modes[recs[i]] = realMode(f[1])
		default:
			add, rest, ok1 := strings.Cut(rec, "\t")
			del, p, ok2 := strings.Cut(rest, "\t")
			if !ok1 || !ok2 {
				return nil, nil, fmt.Errorf("unexpected git diff --numstat record %q", clip([]byte(rec)))
			}
			binary[p] = add == "-" && del == "-"
		}
	}
	return modes, binary, nil
}

// realMode is a mode of git's raw output, or "" for the side of a path
// that does not exist (000000), as File records it.
func realMode(m string) string {
	if strings.Trim(m, "0") == "" {
		return ""
	}
	return m
}
