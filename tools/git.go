package tools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/reviewdev/review/internal/git"
)

// git runs a git command in the repository and returns its standard
// output, keeping at most limit bytes of it (limit <= 0: all) and reporting
// whether some were cut.
func (s *Set) git(ctx context.Context, limit int, args ...string) ([]byte, bool, error) {
	return git.Runner{Dir: s.env.Root}.Capped(ctx, limit, args...)
}

// Modes of tree entries, as git prints them.
const (
	modeSymlink   = "120000"
	modeSubmodule = "160000"
)

// entry is one tracked path of a tree.
type entry struct {
	path string
	mode string
	oid  string
	size int64 // -1 for submodules, sizeUnknown in a listing without sizes
	// limit, when above 0, marks a size taken from the work tree's copy
	// (see diskSizes), which may not be the blob's: a blob read in its
	// place is not kept past limit bytes, and size is then corrected.
	limit int64
}

// sizeUnknown is the size of a file listed without sizes.
const sizeUnknown = -2

func (e entry) symlink() bool   { return e.mode == modeSymlink }
func (e entry) submodule() bool { return e.mode == modeSubmodule }
func (e entry) regular() bool   { return !e.symlink() && !e.submodule() }

// tree is the listing of one revision: every tracked path, sorted bytewise.
type tree struct {
	rev     string // full commit SHA
	entries []entry
	// index and dirs are built on first use: a search or a listing walks
	// entries and needs neither.
	maps  sync.Once
	index map[string]int
	dirs  map[string]int // directory -> number of files below it
	// lazy is set on a tree that holds no listing and resolves paths one
	// at a time (see pathTree); the fields above are then empty.
	lazy *pathCache
	// sized says the regular files' sizes are known: from git, or from
	// the work tree for a listing without them (see sizedNames).
	sized bool
}

func (t *tree) build() {
	t.maps.Do(func() {
		t.index = make(map[string]int, len(t.entries))
		t.dirs = map[string]int{}
		for i, e := range t.entries {
			t.index[e.path] = i
			for d := parentDir(e.path); d != ""; d = parentDir(d) {
				t.dirs[d]++
			}
		}
	})
}

func (t *tree) file(p string) (entry, bool) {
	t.build()
	i, ok := t.index[p]
	if !ok {
		return entry{}, false
	}
	return t.entries[i], true
}

func (t *tree) isDir(p string) bool {
	if p == "" {
		return true
	}
	t.build()
	_, ok := t.dirs[p]
	return ok
}

// parseTree parses the output of git ls-tree -r -l -z --full-tree.
func parseTree(rev string, out []byte) (*tree, error) {
	t := &tree{rev: rev}
	t.entries = make([]entry, 0, bytes.Count(out, []byte{0}))
	if err := parseLsTree(out, func(e entry) { t.entries = append(t.entries, e) }); err != nil {
		return nil, err
	}
	// git lists paths in tree order, which is bytewise path order: sorting
	// is for a git that would not.
	cmp := func(a, b entry) int { return strings.Compare(a.path, b.path) }
	if !slices.IsSortedFunc(t.entries, cmp) {
		slices.SortFunc(t.entries, cmp)
	}
	return t, nil
}

// parseLsTree parses the records of git ls-tree -l -z, calling fn for each.
func parseLsTree(out []byte, fn func(entry)) error {
	// Modes repeat: one string each, not one per file.
	modes := map[string]string{}
	for len(out) > 0 {
		i := bytes.IndexByte(out, 0)
		if i < 0 {
			i = len(out)
		}
		rec := out[:i]
		out = out[min(i+1, len(out)):]
		if len(rec) == 0 {
			continue
		}
		// <mode> SP <type> SP <object> SP+ <size> TAB <path>
		bad := func() error { return fmt.Errorf("unexpected ls-tree record %q", rec) }
		tab := bytes.IndexByte(rec, '\t')
		if tab < 0 {
			return bad()
		}
		// Without -l there is no size field.
		var fields [4][]byte
		n := 0
		for f := range bytes.FieldsSeq(rec[:tab]) {
			if n == len(fields) {
				return bad()
			}
			fields[n] = f
			n++
		}
		if n < 3 {
			return bad()
		}
		mode, ok := modes[string(fields[0])]
		if !ok {
			mode = string(fields[0])
			modes[mode] = mode
		}
		e := entry{path: string(rec[tab+1:]), mode: mode, oid: string(fields[2]), size: -1}
		if n == 3 {
			e.size = sizeUnknown
		} else if string(fields[3]) != "-" {
			n, err := strconv.ParseInt(string(fields[3]), 10, 64)
			if err != nil || n < 0 {
				return fmt.Errorf("unexpected size in ls-tree record %q", rec)
			}
			e.size = n
		}
		fn(e)
	}
	return nil
}

// parentDir is the directory of a slash path, "" at the top.
func parentDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// revision names the two revisions a tool may read.
type revision string

const (
	revHead revision = "head"
	revBase revision = "base"
)

// repoState caches what a Set learns about the repository: resolved
// revisions and their trees. The trees never change during a review, and a
// listing of a 20k-file repository is worth keeping between calls.
type repoState struct {
	mu    sync.Mutex
	revs  map[revision]string
	trees map[string]*tree
	names map[string]*tree // listings without sizes (see names)
	// warming is closed when the listing Warm reads in the background is
	// ready; nil when Warm was not called.
	warming chan struct{}
	lazy    map[string]*tree // trees resolving one path at a time
	// disk says whether files are read from the work tree, once known.
	disk, diskKnown bool
	// cat reads single objects for the whole run.
	cat *catFile
	// symbols is the head's symbol index once a question asked for it.
	symbols *symbolState
	// changed holds the files that differ between two commits, by
	// the pair, each read once: units side by side ask at once.
	changed map[[2]string]*changedList
}

// resolve returns the full commit SHA of a revision.
func (s *Set) resolve(ctx context.Context, r revision) (string, error) {
	s.state.mu.Lock()
	sha, ok := s.state.revs[r]
	s.state.mu.Unlock()
	if ok {
		return sha, nil
	}
	name := s.env.Head
	if r == revBase {
		name = s.env.Base
		if name == "" {
			return "", errors.New(`no base revision is set for this review, so revision "base" and diffs are unavailable; read files at "head"`)
		}
	}
	out, _, err := s.git(ctx, 0, "rev-parse", "--verify", "--quiet", "--end-of-options", name+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("resolving %s revision %q: %w", r, name, err)
	}
	sha = strings.TrimSpace(string(out))
	s.state.mu.Lock()
	s.state.revs[r] = sha
	s.state.mu.Unlock()
	return sha, nil
}

// tree returns the listing of a revision, read once per Set.
func (s *Set) tree(ctx context.Context, r revision) (*tree, error) {
	s.warmed(ctx)
	return s.listing(ctx, r, true)
}

// names returns the listing of a revision without file sizes, or the one
// with sizes when it was read already. git must look up every object of a
// tree for its size, which made that listing six times slower than the
// paths alone (60 ms against 10 ms on 13,000 files) and most of the first
// search of a run: a search from the work tree takes its sizes there
// (diskSizes).
func (s *Set) names(ctx context.Context, r revision) (*tree, error) {
	return s.listing(ctx, r, false)
}

// listing returns the listing of a revision with or without sizes, each
// read once per Set; one with sizes serves for one without.
func (s *Set) listing(ctx context.Context, r revision, sizes bool) (*tree, error) {
	sha, err := s.resolve(ctx, r)
	if err != nil {
		return nil, err
	}
	cache := s.state.names
	args := []string{"ls-tree", "-r", "-z", "--full-tree", sha}
	if sizes {
		cache = s.state.trees
		args = []string{"ls-tree", "-r", "-l", "-z", "--full-tree", sha}
	}
	s.state.mu.Lock()
	t, ok := s.state.trees[sha]
	if !ok && !sizes {
		t, ok = s.state.names[sha]
	}
	s.state.mu.Unlock()
	if ok {
		return t, nil
	}
	out, _, err := s.git(ctx, 0, args...)
	if err != nil {
		return nil, fmt.Errorf("listing files at %s: %w", r, err)
	}
	if t, err = parseTree(sha, out); err != nil {
		return nil, fmt.Errorf("listing files at %s: %w", r, err)
	}
	t.sized = sizes
	s.state.mu.Lock()
	cache[sha] = t
	s.state.mu.Unlock()
	return t, nil
}

// Warm reads, in the background, the listing the first search of the
// head will want, so that the search does not wait for it: a review calls
// it when it starts, and the model's first answer takes longer than the
// listing. A tool that lists the head meanwhile waits for it rather than
// list it a second time. It never fails: an error is met again, and
// reported, by the tool that needs the listing.
func (s *Set) Warm() {
	done := make(chan struct{})
	s.state.mu.Lock()
	if s.state.warming != nil {
		s.state.mu.Unlock()
		return
	}
	s.state.warming = done
	s.state.mu.Unlock()
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(context.Background(), s.env.Timeout)
		defer cancel()
		if s.env.Resolved && s.env.Base != "" {
			// The file diff's list of changes, which a review's
			// first reads want, beside the listing.
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), s.env.Timeout)
				defer cancel()
				s.changes(ctx, s.env.Base, s.env.Head)
			}()
		}
		if s.worktree(ctx) {
			s.sizedNamesNow(ctx, revHead)
		} else {
			s.listing(ctx, revHead, true)
		}
	}()
}

// warmed waits for Warm's listing, if one is being read.
func (s *Set) warmed(ctx context.Context) {
	s.state.mu.Lock()
	w := s.state.warming
	s.state.mu.Unlock()
	if w == nil {
		return
	}
	select {
	case <-w:
	case <-ctx.Done():
	}
}

// sizedNames is names with the sizes of the regular files taken from the
// work tree (diskSizes), once per run: the listing a search from the work
// tree uses.
func (s *Set) sizedNames(ctx context.Context, r revision) (*tree, error) {
	s.warmed(ctx)
	return s.sizedNamesNow(ctx, r)
}

func (s *Set) sizedNamesNow(ctx context.Context, r revision) (*tree, error) {
	t, err := s.names(ctx, r)
	if err != nil || t.sized {
		return t, err
	}
	entries := slices.Clone(t.entries)
	if err := s.diskSizes(ctx, entries, searchMaxFile); err != nil {
		return nil, err
	}
	sized := &tree{rev: t.rev, entries: entries, sized: true}
	s.state.mu.Lock()
	if full, ok := s.state.trees[t.rev]; ok {
		sized = full // listed with sizes meanwhile
	} else {
		s.state.names[t.rev] = sized
	}
	s.state.mu.Unlock()
	return sized, nil
}

// blob reads one object whole, through the run's cat-file process.
// Callers check its size first.
func (s *Set) blob(ctx context.Context, oid string) ([]byte, error) {
	return s.state.cat.blob(ctx, oid)
}

// streamBlobs streams the contents of files through one git cat-file --batch
// process, in order, calling fn for each from the reading goroutine. Asking
// for all objects up front on one pipe and reading the answers on another is
// what makes reading thousands of files cheap: one process, no per-file
// start-up. It stops early, without error, when ctx is cancelled by the
// caller; fn must not block forever.
func (s *Set) streamBlobs(ctx context.Context, files []entry, fn func(i int, data []byte)) error {
	if len(files) == 0 {
		return nil
	}
	cmd := git.Runner{Dir: s.env.Root}.Command(ctx, "cat-file", "--batch")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("git cat-file: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("git cat-file: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git cat-file: %w", err)
	}
	writeErr := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(stdin, 64<<10)
		for _, f := range files {
			if _, err := w.WriteString(f.oid + "\n"); err != nil {
				writeErr <- err
				stdin.Close()
				return
			}
		}
		err := w.Flush()
		stdin.Close()
		writeErr <- err
	}()
	readErr := readBatch(ctx, bufio.NewReaderSize(stdout, 256<<10), files, fn)
	if readErr != nil {
		// Unblock the writer and reap the process; the read error (or
		// the context's) is the one worth reporting.
		cmd.Process.Kill()
	}
	io.Copy(io.Discard, stdout)
	<-writeErr
	waitErr := cmd.Wait()
	if ctx.Err() != nil {
		return nil
	}
	if readErr != nil {
		return fmt.Errorf("git cat-file: %w", readErr)
	}
	return waitErr
}

// readBatch reads git cat-file --batch answers for files in order.
func readBatch(ctx context.Context, r *bufio.Reader, files []entry, fn func(i int, data []byte)) error {
	for i, f := range files {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		header, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("reading %s: %w", f.path, err)
		}
		// <oid> SP <type> SP <size> LF, or <oid> SP missing LF
		fields := strings.Fields(header)
		if len(fields) != 3 {
			return fmt.Errorf("reading %s: git answered %q", f.path, strings.TrimSpace(header))
		}
		size, err := strconv.Atoi(fields[2])
		if err != nil || size < 0 {
			return fmt.Errorf("reading %s: git answered %q", f.path, strings.TrimSpace(header))
		}
		data := make([]byte, size+1) // the content and its trailing LF
		if _, err := io.ReadFull(r, data); err != nil {
			return fmt.Errorf("reading %s: %w", f.path, err)
		}
		fn(i, data[:size])
	}
	return nil
}
