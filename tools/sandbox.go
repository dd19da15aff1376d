package tools

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/reviewdev/review/internal/glob"
	"github.com/reviewdev/review/internal/lazy"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/internal/toolname"
)

// maxLinkHops bounds symlink chains, as the kernel's ELOOP does.
const maxLinkHops = 40

// drivePath matches Windows absolute paths, which are never repository paths.
var drivePath = lazy.Regexp(`^[A-Za-z]:[\\/]`)

// cleanPath checks a path argument from the model and returns it in
// canonical form: slash-separated, relative to the repository root, without
// "." or ".." elements; "" is the root itself, accepted only when root is
// true. Every refusal says what to send instead.
func (s *Set) cleanPath(arg, p string, root bool) (string, error) {
	// A path with a newline or bytes that are not UTF-8 is shown quoted
	// in the diff context and in tool outputs; take that form back.
	p = text.UnquotePath(p)
	if strings.IndexByte(p, 0) >= 0 {
		return "", fmt.Errorf("%s %q contains a NUL byte; send a plain repository-relative path such as \"src/main.go\"", arg, p)
	}
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || drivePath().MatchString(p) {
		hint := "src/main.go"
		if rel, ok := strings.CutPrefix(p, strings.TrimSuffix(s.env.Root, "/")+"/"); ok && rel != "" {
			hint = rel
		}
		return "", fmt.Errorf("%s %q is absolute; paths are relative to the repository root, e.g. %q", arg, p, hint)
	}
	c := path.Clean(p)
	if c == "." {
		c = ""
	}
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("%s %q leaves the repository; only files inside it can be read (paths are relative to its root)", arg, p)
	}
	if gitInternal(c) {
		return "", fmt.Errorf("%s %q is inside .git; git internals are not available: use "+toolname.GetFileDiff+" for changes and "+toolname.ReadFileHunk+" or "+toolname.ListProjectFiles+" for files", arg, p)
	}
	if c == "" && !root {
		return "", fmt.Errorf("%s is empty; send a repository-relative file path such as \"src/main.go\"", arg)
	}
	if c != "" && s.hidden(c) {
		return "", fmt.Errorf("%s %q is excluded from this review by the repository's ignore settings; it cannot be listed, searched or read", arg, p)
	}
	return c, nil
}

// gitInternal reports whether a clean path names .git or something in it,
// at any depth (a nested .git belongs to another repository) and in any
// case (case-insensitive file systems treat .GIT as .git).
func gitInternal(p string) bool {
	for elem := range strings.SplitSeq(p, "/") {
		if strings.EqualFold(elem, ".git") {
			return true
		}
	}
	return false
}

// hidden reports whether the configured ignore globs hide a path.
func (s *Set) hidden(p string) bool {
	return len(s.env.Ignore) > 0 && glob.Match(s.env.Ignore, p)
}

// globMatch matches a glob argument against a path. A glob without a slash
// matches the file name at any depth, so "*.go" finds every Go file; one
// with a slash matches the whole path ("cmd/**/*.go").
func globMatch(g, p string) bool {
	if !strings.Contains(g, "/") {
		return doublestar.MatchUnvalidated(g, path.Base(p))
	}
	return doublestar.MatchUnvalidated(g, p)
}

// checkGlob validates a glob argument.
func checkGlob(arg, g string) error {
	if strings.IndexByte(g, 0) >= 0 {
		return fmt.Errorf("%s %q contains a NUL byte", arg, g)
	}
	if !doublestar.ValidatePattern(g) {
		return fmt.Errorf("%s %q is not a valid glob; use * for any name, ** for any depth, e.g. \"*.go\" or \"cmd/**/*_test.go\"", arg, g)
	}
	return nil
}

// lookup finds the tracked file a clean path names in a tree, following
// symlinks, at any element of the path, as the file system would. A link
// whose target is absolute, leaves the repository or enters .git is
// refused: reading through it would read outside what is under review. It
// returns the entry and the path it resolved to.
func (s *Set) lookup(ctx context.Context, t *tree, p string, rev revision) (entry, string, error) {
	parts := strings.Split(p, "/")
	cur := ""
	for i, hops := 0, 0; i < len(parts); i++ {
		next := path.Join(cur, parts[i])
		e, ok, err := s.stat(ctx, t, next)
		if err != nil {
			return entry{}, "", err
		}
		if !ok {
			cur = next
			continue
		}
		switch {
		case e.symlink():
			hops++
			if hops > maxLinkHops {
				return entry{}, "", fmt.Errorf("%q: too many levels of symbolic links at %s", p, rev)
			}
			target, err := s.linkTarget(ctx, e)
			if err != nil {
				return entry{}, "", err
			}
			if strings.HasPrefix(target, "/") || drivePath().MatchString(target) {
				return entry{}, "", fmt.Errorf("%q is a symlink to %q, outside the repository; it cannot be read", next, target)
			}
			r := path.Clean(path.Join(parentDir(next), target))
			if r == ".." || strings.HasPrefix(r, "../") {
				return entry{}, "", fmt.Errorf("%q is a symlink to %q, which leaves the repository; it cannot be read", next, target)
			}
			if gitInternal(r) {
				return entry{}, "", fmt.Errorf("%q is a symlink into .git (%q); git internals are not available", next, target)
			}
			if r == "." {
				r = ""
			}
			if r != "" && s.hidden(r) {
				return entry{}, "", fmt.Errorf("%q is a symlink to %q, which is excluded from this review by the repository's ignore settings", next, r)
			}
			// Start over from the link's target with the rest of the path.
			rest := append(strings.Split(r, "/"), parts[i+1:]...)
			if r == "" {
				rest = parts[i+1:]
			}
			parts, cur, i = rest, "", -1
			if len(parts) == 0 {
				return entry{}, "", fmt.Errorf("%q resolves to the repository root, which is a directory; list it with "+toolname.ListProjectFiles, p)
			}
		case i < len(parts)-1:
			return entry{}, "", fmt.Errorf("%q is not a directory at %s, so %q does not exist", next, rev, p)
		default:
			return e, next, nil
		}
	}
	if dir, err := s.dirAt(ctx, t, cur); err != nil {
		return entry{}, "", err
	} else if dir {
		return entry{}, "", fmt.Errorf("%q is a directory at %s; list its files with "+toolname.ListProjectFiles+" {\"path_prefix\": %q}", cur, rev, cur)
	}
	if t.lazy != nil {
		// Suggesting the file meant takes the whole listing: worth it
		// for a mistake, which a lazy tree cannot list.
		full, err := s.tree(ctx, rev)
		if err != nil {
			return entry{}, "", err
		}
		t = full
	}
	return entry{}, "", s.notFound(t, p, rev)
}

// linkTarget reads the target of a symlink entry.
func (s *Set) linkTarget(ctx context.Context, e entry) (string, error) {
	if e.size > 4096 {
		return "", fmt.Errorf("%q is a symlink with an implausibly long target (%d bytes)", e.path, e.size)
	}
	b, err := s.blob(ctx, e.oid)
	if err != nil {
		return "", fmt.Errorf("reading symlink %q: %w", e.path, err)
	}
	if strings.IndexByte(string(b), 0) >= 0 {
		return "", fmt.Errorf("%q is a symlink whose target contains a NUL byte", e.path)
	}
	return string(b), nil
}

// notFound says a path is not tracked and suggests files with the same name.
func (s *Set) notFound(t *tree, p string, rev revision) error {
	base := path.Base(p)
	var similar []string
	for _, e := range t.entries {
		if (path.Base(e.path) == base || strings.EqualFold(e.path, p)) && !s.hidden(e.path) {
			similar = append(similar, e.path)
			if len(similar) == 5 {
				break
			}
		}
	}
	msg := fmt.Sprintf("no tracked file %q at %s", p, rev)
	if len(similar) > 0 {
		return fmt.Errorf("%s; files with that name: %s", msg, strings.Join(similar, ", "))
	}
	return fmt.Errorf("%s; find files with "+toolname.ListProjectFiles+" (glob %q) or "+toolname.SearchInProject, msg, base)
}

// repoTool defines a tool that reads the repository: it answers with an
// error result when the set has no absolute root to read.
func (s *Set) repoTool(spec Spec, run func(context.Context, Args) (Result, error)) Tool {
	return define(spec, func(ctx context.Context, a Args) (Result, error) {
		if s.env.Root == "" || !filepath.IsAbs(s.env.Root) {
			return Result{}, fmt.Errorf("%s is unavailable: the repository root is not set to an absolute path", spec.Name)
		}
		return run(ctx, a)
	})
}
