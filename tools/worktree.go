package tools

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/reviewdev/review/internal/git"
)

// Files are read from the work tree when that is sure to give the
// committed bytes, and unpacked from git otherwise. Whether a work-tree
// file is unmodified is not taken from git's index (git status, stat
// data): that answer is stale as soon as it is given, and it is wrong for
// files that clean and smudge filters or end-of-line conversion rewrite on
// checkout, whose work-tree bytes differ from the blob though git calls
// them unmodified. Instead every file read from disk is hashed as git
// hashes a blob and used only when the hash is the object id in the tree:
// the bytes are then the committed ones by construction, whatever happened
// to the work tree, and a race with an editor costs one unpack, never a
// wrong answer. Hashing runs at over 1 GB/s, several times faster than
// inflating objects. The disk is only tried when the work tree's HEAD is
// the reviewed head, where nearly every file matches; elsewhere the misses
// would cost more than they save.

// worktree reports whether files may be read from the work tree: Root is
// the top level of a work tree whose HEAD is the reviewed head. It asks
// git once per Set.
func (s *Set) worktree(ctx context.Context) bool {
	s.state.mu.Lock()
	known, ok := s.state.disk, s.state.diskKnown
	s.state.mu.Unlock()
	if ok {
		return known
	}
	if !diskReads {
		return false
	}
	head, err := s.resolve(ctx, revHead)
	if err != nil {
		return false
	}
	if c := s.env.Checkout; c != "" {
		// Root is the top level, as the caller found it.
		use := c == head
		s.state.mu.Lock()
		s.state.disk, s.state.diskKnown = use, true
		s.state.mu.Unlock()
		return use
	}
	out, _, err := s.git(ctx, 0, "rev-parse", "--show-toplevel", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil && ctx.Err() != nil {
		return false // not known: ask again on the next call
	}
	use := false
	if lines := strings.Split(strings.TrimSpace(string(out)), "\n"); err == nil && len(lines) == 2 {
		use = lines[1] == head && sameDir(lines[0], s.env.Root)
	}
	s.state.mu.Lock()
	s.state.disk, s.state.diskKnown = use, true
	s.state.mu.Unlock()
	return use
}

// sameDir reports whether two absolute paths name the same directory,
// through symlinks (git prints the resolved path).
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// fromDisk returns the content of a regular file entry read from the work
// tree, or false when the work-tree copy is not exactly the blob. It reads
// into buf when it is large enough (nil: a new buffer).
func (s *Set) fromDisk(e entry, buf []byte) ([]byte, bool) {
	if !e.regular() || e.size < 0 {
		return buf, false
	}
	want, err := hex.DecodeString(e.oid)
	if err != nil {
		return buf, false
	}
	data, ok := readRegular(filepath.Join(s.env.Root, filepath.FromSlash(e.path)), e.size, buf)
	if !ok || !blobHash(want, data) {
		return data[:0], false
	}
	return data, true
}

// blobHash reports whether data is the blob whose id is want, in a SHA-1
// or a SHA-256 repository.
func blobHash(want, data []byte) bool {
	var h hash.Hash
	switch len(want) {
	case sha1.Size:
		h = sha1.New()
	case sha256.Size:
		h = sha256.New()
	default:
		return false
	}
	var hdr [32]byte
	h.Write(strconv.AppendInt(append(hdr[:0], "blob "...), int64(len(data)), 10))
	h.Write([]byte{0})
	h.Write(data)
	var sum [sha256.Size]byte
	return string(h.Sum(sum[:0])) == string(want)
}

// diskSizes gives the files of a listing without sizes (names) their
// sizes, for a search from the work tree: each copy's size there, which
// is the blob's when the copy is unmodified, and the limit that keeps a
// blob read in place of a modified copy from being held whole (see
// scanDisk). Files that are missing, not regular or over limit on disk
// get their blob's size from one git cat-file --batch-check, so that a
// large file is skipped as it would be with the sizes from git.
func (s *Set) diskSizes(ctx context.Context, files []entry, limit int64) error {
	var check []int
	var mu sync.Mutex
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(files) {
					return
				}
				e := &files[i]
				if e.size != sizeUnknown || !e.regular() {
					continue
				}
				fi, err := os.Lstat(filepath.Join(s.env.Root, filepath.FromSlash(e.path)))
				if err == nil && fi.Mode().IsRegular() && fi.Size() <= limit {
					e.size, e.limit = fi.Size(), limit
					continue
				}
				mu.Lock()
				check = append(check, i)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(check) == 0 {
		return nil
	}
	slices.Sort(check)
	var in strings.Builder
	for _, i := range check {
		in.WriteString(files[i].oid + "\n")
	}
	cmd := git.Runner{Dir: s.env.Root}.Command(ctx, "cat-file", "--batch-check")
	cmd.Stdin = strings.NewReader(in.String())
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git cat-file --batch-check: %w", err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(check) {
		return fmt.Errorf("git cat-file --batch-check answered %d lines for %d objects", len(lines), len(check))
	}
	for k, i := range check {
		// <oid> SP <type> SP <size>, or <oid> SP missing
		f := strings.Fields(lines[k])
		if len(f) != 3 {
			return fmt.Errorf("git cat-file --batch-check answered %q for %s", lines[k], files[i].path)
		}
		n, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("git cat-file --batch-check answered %q for %s", lines[k], files[i].path)
		}
		files[i].size = n
	}
	return nil
}
