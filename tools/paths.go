package tools

import (
	"context"
	"fmt"
	"sync"
)

// modeTree is the mode git prints for a directory.
const modeTree = "040000"

// pathCache is what a lazy tree has learnt of its revision: the entries
// on the paths asked about, directories included, asked for one path (and
// its parents) at a time. Resolving one path from a 20,000-file tree this
// way costs one small git ls-tree instead of listing every file.
type pathCache struct {
	mu      sync.Mutex
	entries map[string]entry
	asked   map[string]bool
}

// pathTree returns a tree of a revision for resolving single paths with
// lookup: the whole listing when the run already has it, else a lazy tree
// that asks git for the paths lookup needs. Its entries field is empty;
// callers that walk every file use tree.
func (s *Set) pathTree(ctx context.Context, r revision) (*tree, error) {
	sha, err := s.resolve(ctx, r)
	if err != nil {
		return nil, err
	}
	s.state.mu.Lock()
	defer s.state.mu.Unlock()
	if t, ok := s.state.trees[sha]; ok {
		return t, nil
	}
	t, ok := s.state.lazy[sha]
	if !ok {
		t = &tree{rev: sha, lazy: &pathCache{entries: map[string]entry{}, asked: map[string]bool{}}}
		s.state.lazy[sha] = t
	}
	return t, nil
}

// stat returns the entry of a file (not a directory) at a path of t.
func (s *Set) stat(ctx context.Context, t *tree, p string) (entry, bool, error) {
	if t.lazy == nil {
		e, ok := t.file(p)
		return e, ok, nil
	}
	e, ok, err := s.ask(ctx, t, p)
	if err != nil || !ok || e.mode == modeTree {
		return entry{}, false, err
	}
	return e, true, nil
}

// dirAt reports whether a path of t is a directory.
func (s *Set) dirAt(ctx context.Context, t *tree, p string) (bool, error) {
	if t.lazy == nil || p == "" {
		return t.isDir(p), nil
	}
	e, ok, err := s.ask(ctx, t, p)
	return ok && e.mode == modeTree, err
}

// ask returns the entry at p of a lazy tree, asking git for it and for
// each of its parent directories not asked about yet, in one git ls-tree
// -t (which prints the trees on the way to a path).
func (s *Set) ask(ctx context.Context, t *tree, p string) (entry, bool, error) {
	c := t.lazy
	c.mu.Lock()
	var want []string
	for q := p; q != ""; q = parentDir(q) {
		if !c.asked[q] {
			want = append(want, q)
		}
	}
	c.mu.Unlock()
	if len(want) > 0 {
		args := append([]string{"ls-tree", "-t", "-l", "-z", "--full-tree", t.rev, "--"}, want...)
		out, _, err := s.git(ctx, 0, args...)
		if err != nil {
			return entry{}, false, fmt.Errorf("looking up %q: %w", p, err)
		}
		found := map[string]entry{}
		err = parseLsTree(out, func(e entry) { found[e.path] = e })
		if err != nil {
			return entry{}, false, fmt.Errorf("looking up %q: %w", p, err)
		}
		c.mu.Lock()
		for _, q := range want {
			c.asked[q] = true
		}
		for k, e := range found {
			c.entries[k] = e
		}
		c.mu.Unlock()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[p]
	return e, ok, nil
}

// content returns the bytes of a regular file entry: from the work tree
// when they are sure to be the blob's, else from the run's cat-file. One
// file is worth trying on disk whether or not the head is checked out:
// the try costs less than asking git whether to make it, and the hash
// check makes its answer the blob's either way.
func (s *Set) content(ctx context.Context, e entry) ([]byte, error) {
	if diskReads {
		if data, ok := s.fromDisk(e, nil); ok {
			return data, nil
		}
	}
	return s.blob(ctx, e.oid)
}

// Close ends the git process the set keeps for reading files. The set
// stays usable: the next read starts another. Sets made by With share it.
func (s *Set) Close() {
	s.state.cat.close()
}
