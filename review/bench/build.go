package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/reviewdev/review/internal/git"
	"github.com/reviewdev/review/internal/lazy"
)

// Workspace is where cases are built. Repositories named by URL are cloned
// once into Cache and reused; every case is built in a clone of its own
// under Scratch that borrows the source's objects (git clone --shared), so
// a local repository is read, never written.
type Workspace struct {
	Cache   string
	Scratch string
	// Dir is what a case's relative repo path is relative to: the
	// corpus's directory.
	Dir string

	mu      sync.Mutex
	remotes map[string]*remote
}

// remote is a repository cloned into the cache, with the lock that keeps
// two cases from cloning or fetching it at once.
type remote struct {
	mu      sync.Mutex
	dir     string
	fetched bool
}

// Built is a case made ready for review: a scratch clone checked out at
// Head, and what a review of Base..Head is expected to find.
type Built struct {
	Case Case
	// Dir is the scratch clone, checked out at Head.
	Dir string
	// Base and Head are the commits reviewed, by full SHA.
	Base, Head string
	// Expected is the case's, or, for a revert_of case that lists none,
	// the lines the revert changes in the files it touches outside tests
	// and documentation.
	Expected []Expected
	// Derived says Expected came from the revert's hunks.
	Derived bool
}

// Remove deletes the scratch clone.
func (b *Built) Remove() error { return os.RemoveAll(b.Dir) }

// BuildError is a case that could not be built: its repository or
// revisions are not there, or its fix does not revert.
type BuildError struct {
	ID  string
	Err error
}

func (e *BuildError) Error() string { return fmt.Sprintf("case %s: %v", e.ID, e.Err) }
func (e *BuildError) Unwrap() error { return e.Err }

// Build makes c ready for review.
func (w *Workspace) Build(ctx context.Context, c Case) (*Built, error) {
	b, err := w.build(ctx, c)
	if err != nil {
		return nil, &BuildError{ID: c.ID, Err: err}
	}
	return b, nil
}

func (w *Workspace) build(ctx context.Context, c Case) (*Built, error) {
	src, err := w.source(ctx, c)
	if err != nil {
		return nil, err
	}
	revs := []string{c.Base, c.Head}
	if c.RevertOf != "" {
		revs = []string{c.RevertOf}
	}
	shas, err := w.resolve(ctx, src, c.Repo, revs)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(w.Scratch, 0o755); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(w.Scratch, c.ID+"-")
	if err != nil {
		return nil, err
	}
	b := &Built{Case: c, Dir: dir, Expected: c.Expected}
	ok := false
	defer func() {
		if !ok {
			b.Remove()
		}
	}()
	if _, err := (git.Runner{Dir: dir}).Output(ctx, "clone", "--quiet", "--shared", "--no-checkout", "--", src, "."); err != nil {
		return nil, err
	}
	g := git.Runner{Dir: dir}
	if c.RevertOf == "" {
		b.Base, b.Head = shas[0], shas[1]
		if _, err := g.Output(ctx, "checkout", "--quiet", "--detach", b.Head); err != nil {
			return nil, err
		}
	} else if err := b.revert(ctx, g, shas[0]); err != nil {
		return nil, err
	}
	if c.RevertOf != "" && len(c.Expected) == 0 && !c.Clean {
		exp, err := revertedLines(ctx, g, b.Base, b.Head)
		if err != nil {
			return nil, err
		}
		b.Expected, b.Derived = exp, true
	}
	ok = true
	return b, nil
}

// revert checks out the fix and commits its revert on top of it: the
// change under review puts the bug back. The commit's message says
// nothing of the fix (a review never sees it, but a replay does), and its
// dates are the fix's, so the same case builds the same commit.
func (b *Built) revert(ctx context.Context, g git.Runner, fix string) error {
	parents, err := g.Text(ctx, "rev-list", "--parents", "-n", "1", fix)
	if err != nil {
		return err
	}
	if n := len(strings.Fields(parents)) - 1; n != 1 {
		return fmt.Errorf("revert_of %s has %d parents: name a commit with one parent (the fix itself, not a merge)", shortSHA(fix), n)
	}
	if _, err := g.Output(ctx, "checkout", "--quiet", "--detach", fix); err != nil {
		return err
	}
	if _, err := g.Output(ctx, "revert", "--no-commit", fix); err != nil {
		return fmt.Errorf("revert_of %s does not revert cleanly on itself: %w", shortSHA(fix), err)
	}
	date, err := g.Text(ctx, "show", "-s", "--format=%cI", fix)
	if err != nil {
		return err
	}
	cmd := g.Command(ctx, "-c", "user.name=review bench", "-c", "user.email=bench@review.invalid", "-c", "commit.gpgsign=false",
		"commit", "--quiet", "--no-verify", "--allow-empty-message", "-m", "Change under review")
	cmd.Env = append(cmd.Env, "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("revert_of %s: committing the revert: %w", shortSHA(fix), err)
	}
	head, err := g.Text(ctx, "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	b.Base, b.Head = fix, head
	return nil
}

// source is the repository a case's commits are read from: a local path
// as it is, or the cache's clone of a URL, made on first use.
func (w *Workspace) source(ctx context.Context, c Case) (string, error) {
	if !IsURL(c.Repo) {
		dir := c.Repo
		if !filepath.IsAbs(dir) && w.Dir != "" {
			dir = filepath.Join(w.Dir, dir)
		}
		dir, err := filepath.Abs(dir)
		if err != nil {
			return "", err
		}
		if _, err := os.Stat(dir); err != nil {
			return "", fmt.Errorf("repo %s: %w", c.Repo, errors.Unwrap(err))
		}
		// The git directory, which clones alike from a work tree, a
		// folder inside one or a bare repository.
		gd, err := (git.Runner{Dir: dir}).Text(ctx, "rev-parse", "--absolute-git-dir")
		if err != nil {
			return "", fmt.Errorf("repo %s is not a git repository", c.Repo)
		}
		return gd, nil
	}
	r := w.remote(c.Repo)
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := os.Stat(filepath.Join(r.dir, "HEAD")); err == nil {
		return r.dir, nil
	}
	if err := os.MkdirAll(filepath.Dir(r.dir), 0o755); err != nil {
		return "", err
	}
	tmp := r.dir + ".partial"
	os.RemoveAll(tmp)
	if _, err := (git.Runner{Dir: filepath.Dir(r.dir)}).Output(ctx, "clone", "--quiet", "--bare", "--", c.Repo, tmp); err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("cloning %s: %w", c.Repo, err)
	}
	if err := os.Rename(tmp, r.dir); err != nil {
		return "", err
	}
	r.fetched = true
	return r.dir, nil
}

// remote returns the cache entry of url.
func (w *Workspace) remote(url string) *remote {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.remotes == nil {
		w.remotes = map[string]*remote{}
	}
	if r, ok := w.remotes[url]; ok {
		return r
	}
	r := &remote{dir: filepath.Join(w.Cache, "repos", cacheName(url))}
	w.remotes[url] = r
	return r
}

// cacheName is a directory name for url: readable, and unique by a hash.
func cacheName(url string) string {
	h := sha256.Sum256([]byte(url))
	base := strings.TrimSuffix(url[strings.LastIndexAny(url, "/:")+1:], ".git")
	base = regexp.MustCompile(`[^A-Za-z0-9._-]+`).ReplaceAllString(base, "_")
	return base + "-" + hex.EncodeToString(h[:6]) + ".git"
}

// resolve names revs by full SHA in src. A commit a cached clone lacks is
// fetched for, once per run: the repository has moved on since it was
// cloned.
func (w *Workspace) resolve(ctx context.Context, src, repo string, revs []string) ([]string, error) {
	var out []string
	for _, rev := range revs {
		sha, err := revParse(ctx, src, rev)
		if err != nil && IsURL(repo) {
			r := w.remote(repo)
			r.mu.Lock()
			if !r.fetched {
				r.fetched = true
				_, ferr := (git.Runner{Dir: src}).Output(ctx, "fetch", "--quiet", "origin", "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*")
				if ferr != nil {
					r.mu.Unlock()
					return nil, fmt.Errorf("fetching %s: %w", repo, ferr)
				}
			}
			r.mu.Unlock()
			sha, err = revParse(ctx, src, rev)
		}
		if err != nil {
			return nil, fmt.Errorf("%s has no commit %q", repo, rev)
		}
		out = append(out, sha)
	}
	return out, nil
}

func revParse(ctx context.Context, dir, rev string) (string, error) {
	if strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("bad revision %q", rev)
	}
	return (git.Runner{Dir: dir}).Text(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
}

// notCode are the files whose reverted lines are not where a revert_of
// case's bug is: tests, test data, documentation and changelogs.
var notCode = lazy.Regexp(`(?i)(^|/)(tests?|__tests__|testdata|testing|spec|fixtures)/|_test\.go$|(^|/)test_[^/]*\.py$|_test\.py$|\.(test|spec)\.[cm]?[jt]sx?$|\.(md|rst|txt|adoc)$|(^|/)(changelog|changes|history|news)[^/]*$`)

// hunkHeader is a unified diff hunk header; only the new side is read.
var hunkHeader = lazy.Regexp(`^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@`)

// derivedDescription describes an expected issue derived from a revert's
// hunks: it says where, not what.
const derivedDescription = "reverted lines of the fix"

// mergeGap is how close two reverted hunks of a file must be to count as
// one expected issue: a fix that changed a condition and the return below
// it fixed one bug.
const mergeGap = 6

// revertedLines are the expected issues of a revert_of case that lists
// none: for each file the revert changes outside tests and documentation
// (all files, when it changes only those), the new-side lines of its
// hunks, near ones merged. A hunk that only deletes expects the lines
// around the deletion. Headers are read from a zero-context diff, where
// each hunk is exactly the lines changed; nothing else of it is parsed.
func revertedLines(ctx context.Context, g git.Runner, base, head string) ([]Expected, error) {
	out, err := g.Output(ctx, "diff", "--no-color", "--no-ext-diff", "--no-renames", "-U0", base, head)
	if err != nil {
		return nil, err
	}
	var all, code []Expected
	path := ""
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(line, "+++ "):
			path = diffPath(strings.TrimPrefix(line, "+++ "))
		case strings.HasPrefix(line, "@@ ") && path != "":
			m := hunkHeader().FindStringSubmatch(line)
			if m == nil {
				continue
			}
			start, _ := strconv.Atoi(m[1])
			n := 1
			if m[2] != "" {
				n, _ = strconv.Atoi(m[2])
			}
			end := start + n - 1
			if n == 0 { // a deletion after line start
				start, end = max(start, 1), start+1
			}
			e := Expected{Path: path, StartLine: start, EndLine: end, Description: derivedDescription}
			all = appendMerged(all, e)
			if !notCode().MatchString(path) {
				code = appendMerged(code, e)
			}
		}
	}
	if len(code) == 0 {
		code = all
	}
	if len(code) == 0 {
		return nil, errors.New("the revert changes no lines: the fix commit is empty")
	}
	return code, nil
}

// appendMerged appends e, merged into the last issue when it is of the same
// file and within mergeGap lines of it.
func appendMerged(es []Expected, e Expected) []Expected {
	if n := len(es); n > 0 && es[n-1].Path == e.Path && e.StartLine-es[n-1].EndLine <= mergeGap {
		es[n-1].EndLine = max(es[n-1].EndLine, e.EndLine)
		return es
	}
	return append(es, e)
}

// diffPath reads the path of a "+++ " line: b/PATH, quoted when git quotes
// it, or /dev/null for a deleted file ("").
func diffPath(s string) string {
	if s == "/dev/null" {
		return ""
	}
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			s = u
		}
	}
	return strings.TrimPrefix(s, "b/")
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}
