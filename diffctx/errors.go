package diffctx

import (
	"errors"
	"fmt"
)

// Errors Load returns, wrapped with what is wrong; match them with
// errors.Is.
var (
	ErrNotRepo     = errors.New("not a git repository")
	ErrGitMissing  = errors.New("git is not installed")
	ErrNoMergeBase = errors.New("no merge base")
)

// RepoError is a directory with no git work tree to review; it matches
// ErrNotRepo.
type RepoError struct {
	Dir string // absolute
	// Bare is set when Dir is in a repository without a work tree: a bare
	// one, or the inside of .git.
	Bare bool
}

func (e *RepoError) Error() string {
	if e.Bare {
		return fmt.Sprintf("%v: %s has no work tree", ErrNotRepo, e.Dir)
	}
	return fmt.Sprintf("%v: %s is not inside a git work tree", ErrNotRepo, e.Dir)
}

func (e *RepoError) Unwrap() error { return ErrNotRepo }

// RevError reports a revision git cannot resolve to a commit.
type RevError struct {
	Rev  string
	Hint string // what to do, e.g. "fetch it with git fetch origin main"
}

func (e *RevError) Error() string {
	return fmt.Sprintf("unknown revision %q: %s", e.Rev, e.Hint)
}

// ParseError reports a diff that cannot be read or does not hold together.
type ParseError struct {
	File   string // the file whose section is at fault; empty before the first file
	Line   int    // 1-based line of the diff where the problem was found
	Reason string
}

func (e *ParseError) Error() string {
	where := "the diff"
	if e.File != "" {
		where = fmt.Sprintf("the diff of %q", e.File)
	}
	return fmt.Sprintf("cannot read %s at diff line %d: %s", where, e.Line, e.Reason)
}
