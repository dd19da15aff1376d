package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/reviewdev/review/diffctx/git"
)

// diffListMax bounds the changed files named when a path did not change.
const diffListMax = 30

type diffArgs struct {
	Path string `json:"path"`
}

func (s *Set) diffTool() *tool {
	t := newTool("get_file_diff",
		"Get the unified diff (3 lines of context) of one changed file between the base and head revisions under review. Use it for changed files whose hunks are not in the diff context. A renamed file can be named by its old or new path.",
		`{"path": "src/main.go"}`,
		[]param{
			{name: "path", typ: typeString, required: true, desc: `Path of a changed file relative to the repository root, e.g. "src/main.go".`},
		}, nil)
	t.run = func(ctx context.Context, raw json.RawMessage) (Result, error) {
		var a diffArgs
		if err := t.decode(raw, &a); err != nil {
			return Result{}, err
		}
		return s.diff(ctx, a)
	}
	return t
}

// change is one entry of git diff --name-status.
type change struct {
	status   string
	old, new string // equal unless renamed or copied
}

func (s *Set) diff(ctx context.Context, a diffArgs) (Result, error) {
	p, err := s.cleanPath("path", a.Path, false)
	if err != nil {
		return Result{}, err
	}
	base, err := s.resolve(ctx, revBase)
	if err != nil {
		return Result{}, err
	}
	head, err := s.resolve(ctx, revHead)
	if err != nil {
		return Result{}, err
	}
	changes, err := s.changes(ctx, base, head)
	if err != nil {
		return Result{}, err
	}
	// A path is first the file as it is at head; failing that, the old
	// name of a renamed file. (The source of a copy is its own file.)
	var found *change
	for i, c := range changes {
		if c.new == p {
			found = &changes[i]
			break
		}
	}
	for i, c := range changes {
		if found == nil && c.old == p && strings.HasPrefix(c.status, "R") {
			found = &changes[i]
		}
	}
	if found == nil {
		return Result{}, s.unchanged(p, changes)
	}
	paths := []string{found.new}
	if found.old != found.new {
		paths = []string{found.old, found.new}
	}
	// The diff context's own patch, so that a file's diff reads the same
	// here and there.
	out, cut, err := s.git(ctx, s.env.MaxBytes, git.PatchArgs(base, head, s.env.FindCopies, paths...)...)
	if err != nil {
		return Result{}, fmt.Errorf("diffing %q: %w", p, err)
	}
	text := string(out)
	if cut {
		text = capText(text, s.env.MaxBytes-200) + "\n[the diff is larger than this result can hold; read the file's changed regions with read_file_hunk]"
	}
	if strings.TrimSpace(text) == "" {
		text = fmt.Sprintf("%q changed (%s) but git shows no textual difference", p, found.status)
	}
	return Result{Output: text}, nil
}

// changes lists the files that differ between two commits, with renames.
func (s *Set) changes(ctx context.Context, base, head string) ([]change, error) {
	args := []string{"diff", "-z", "--name-status", "--no-ext-diff", "--no-relative", "-M", "--ignore-submodules=none"}
	if s.env.FindCopies {
		args = append(args, "-C")
	}
	out, _, err := s.git(ctx, 0, append(args, base, head)...)
	if err != nil {
		return nil, fmt.Errorf("listing changed files: %w", err)
	}
	fields := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	var changes []change
	for i := 0; i+1 < len(fields); {
		st := fields[i]
		if (strings.HasPrefix(st, "R") || strings.HasPrefix(st, "C")) && i+2 < len(fields) {
			changes = append(changes, change{status: st, old: fields[i+1], new: fields[i+2]})
			i += 3
			continue
		}
		changes = append(changes, change{status: st, old: fields[i+1], new: fields[i+1]})
		i += 2
	}
	return changes, nil
}

// unchanged explains that a path is not part of the change, listing what is.
func (s *Set) unchanged(p string, changes []change) error {
	var under, all []string
	for _, c := range changes {
		if s.hidden(c.new) {
			continue
		}
		all = append(all, c.new)
		if strings.HasPrefix(c.new, p+"/") {
			under = append(under, c.new)
		}
	}
	if len(under) > 0 {
		return fmt.Errorf("%q is a directory; get_file_diff takes one file; changed files under it: %s", p, listSome(under, diffListMax))
	}
	if len(all) == 0 {
		return fmt.Errorf("%q did not change: base and head have no differences", p)
	}
	return fmt.Errorf("%q did not change between base and head (read it with read_file_hunk); changed files: %s", p, listSome(all, diffListMax))
}

// listSome joins at most n items, saying how many were left out.
func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s, … and %d more", strings.Join(items[:n], ", "), len(items)-n)
}
