package diffctx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/reviewdev/review/internal/git"
)

// Pending is what a work tree holds that is not committed: tracked files
// with edits, staged or not, and untracked files (those .gitignore does not
// hide).
type Pending struct {
	Changed   []string
	Untracked []string
}

// Uncommitted reads what the work tree holding dir has not committed. A
// repository with no index (nothing was ever checked out) has nothing
// pending, though git status lists every file as deleted: the index is
// looked for only when status lists something, so that a clean work tree,
// the common case, costs one git process.
func Uncommitted(ctx context.Context, dir string) (*Pending, error) {
	g := git.Runner{Dir: orDot(dir)}
	out, err := g.Output(ctx, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
	if err != nil {
		return nil, err
	}
	if len(out) > 0 {
		index, err := g.Text(ctx, "rev-parse", "--path-format=absolute", "--git-path", "index")
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(index); errors.Is(err, os.ErrNotExist) {
			return &Pending{}, nil
		}
	}
	p := &Pending{}
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) < 4 {
			continue
		}
		path := string(rec[3:])
		if string(rec[:2]) == "??" {
			p.Untracked = append(p.Untracked, path)
		} else {
			p.Changed = append(p.Changed, path)
		}
	}
	return p, nil
}

// snapshotIdentity makes the commit of a work tree's content the same for
// the same content: no user's name, no clock.
var snapshotIdentity = []string{
	"GIT_AUTHOR_NAME=review", "GIT_AUTHOR_EMAIL=review@localhost", "GIT_AUTHOR_DATE=1970-01-01T00:00:00Z",
	"GIT_COMMITTER_NAME=review", "GIT_COMMITTER_EMAIL=review@localhost", "GIT_COMMITTER_DATE=1970-01-01T00:00:00Z",
}

// Snapshot commits what the work tree holding dir has, HEAD with its
// staged and unstaged edits (and, with untracked, the files .gitignore does
// not hide), as a commit whose parent is HEAD, and returns it. Nothing the
// user sees changes: the index is copied to a file of its own, and the
// commit is named by no branch. A review of it reads, and its tools read,
// exactly that content. A work tree with nothing pending returns HEAD.
func Snapshot(ctx context.Context, dir string, untracked bool) (string, error) {
	g := git.Runner{Dir: orDot(dir)}
	root, err := g.TopLevel(ctx)
	if err != nil {
		return "", err
	}
	g.Dir = root
	head, err := g.Text(ctx, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil || head == "" {
		return "", errors.New("the work tree has no commit yet: commit once, then review the edits on top of it")
	}
	index, err := g.Text(ctx, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return "", err
	}
	// The copy of the index lives in the git directory: a temporary
	// directory may be inside the work tree, whose files it would join.
	tmp, err := os.MkdirTemp(filepath.Dir(index), "review-index-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	own := filepath.Join(tmp, "index")
	run := func(args ...string) (string, error) {
		c := g.Command(ctx, args...)
		c.Env = append(append(c.Env, "GIT_INDEX_FILE="+own), snapshotIdentity...)
		var out bytes.Buffer
		c.Stdout = &out
		err := c.Run()
		return strings.TrimSpace(out.String()), err
	}
	if data, err := os.ReadFile(index); err == nil {
		if err := os.WriteFile(own, data, 0o600); err != nil {
			return "", err
		}
	} else if _, err := run("read-tree", head); err != nil {
		return "", err
	}
	add := []string{"add", "--update", "--", "."}
	if untracked {
		add = []string{"add", "--all", "--", "."}
	}
	if _, err := run(add...); err != nil {
		return "", fmt.Errorf("reading the work tree: %w", err)
	}
	tree, err := run("write-tree")
	if err != nil {
		return "", err
	}
	if base, err := g.Text(ctx, "rev-parse", head+"^{tree}"); err == nil && base == tree {
		return head, nil
	}
	return run("commit-tree", tree, "-p", head, "-m", "review: the work tree")
}

func orDot(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}
