package config

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/reviewdev/review/internal/git"
	"github.com/reviewdev/review/review/learn"
)

// loadLearnings reads the team's learnings that the learnings setting
// names: "none" reads nothing; the default, learn.Path, or a path a
// configuration file gives, is read from the repository like .review.yaml
// (at RepoRev in CI, so that a pull request cannot teach the reviewer to
// pass it, else from the work tree); a file a flag or variable names is
// the person's choice, read as it is. A file that is
// missing is no learnings, unless it was named; a file that does not read
// is an error naming its line.
func (e *Effective) loadLearnings(src Sources) error {
	v, ok := e.values["learnings"]
	name := learn.Path
	if ok {
		name, _ = v.v.(string)
	}
	s := &e.Settings
	s.Learnings, s.LearningsFrom = nil, ""
	s.LearningsSetting, s.LearningsChosen = name, ok && isFlagOrEnv(v.src)
	var data []byte
	var err error
	switch {
	case name == "none" || name == "":
		return nil
	case !ok || !isFlagOrEnv(v.src):
		// The default, or a path a configuration file gives: a file of
		// the repository, read where .review.yaml is.
		data, s.LearningsFrom, err = repoLearnings(src, name)
	default:
		s.LearningsFrom = name
		data, err = readCapped(name)
	}
	if err != nil {
		return err
	}
	if data == nil {
		s.LearningsFrom = ""
		return nil
	}
	ls, err := learn.Parse(data)
	if err != nil {
		var pe *learn.ParseError
		if errors.As(err, &pe) {
			return &fileError{file: s.LearningsFrom, line: pe.Line, msg: pe.Msg}
		}
		return fmt.Errorf("%s: %w", s.LearningsFrom, err)
	}
	s.Learnings = ls
	return nil
}

// isFlagOrEnv reports whether a value's source is a flag or a variable.
func isFlagOrEnv(src string) bool {
	return len(src) > 5 && (src[:5] == "flag " || src[:4] == "env ")
}

// repoLearnings reads the repository's learnings file at name (relative
// to its top): at src.RepoRev when set, else in the work tree, where it
// must not lead out of the repository. It returns nil data when there is
// none, and how the file is named for people.
func repoLearnings(src Sources, name string) ([]byte, string, error) {
	top := repoTop(src.Dir)
	if top == "" {
		return nil, "", nil
	}
	if src.RepoRev != "" {
		display := name + "@" + src.RepoRev
		r := git.Runner{Dir: src.Dir}
		ctx := context.Background()
		if kind, err := r.Text(ctx, "cat-file", "-t", src.RepoRev+":"+name); err != nil || kind != "blob" {
			return nil, display, nil
		}
		data, err := r.Output(ctx, "cat-file", "blob", src.RepoRev+":"+name)
		if err != nil {
			return nil, display, fmt.Errorf("cannot read %s: %w", display, err)
		}
		return data, display, nil
	}
	path := filepath.Join(top, filepath.FromSlash(name))
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return nil, name, nil
	}
	if !inside(top, path) {
		return nil, name, fmt.Errorf("%s leads out of the repository: the learnings must be a file in it", name)
	}
	data, err := readCapped(path)
	return data, name, err
}

// readCapped reads a learnings file, refusing one past learn.MaxSize
// without reading it all.
func readCapped(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the learnings: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, learn.MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read the learnings %s: %w", path, err)
	}
	if len(data) > learn.MaxSize {
		return nil, fmt.Errorf("%s: %w", path, learn.ErrTooLarge)
	}
	return data, nil
}
