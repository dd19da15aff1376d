package tools

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/reviewdev/review/internal/git"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/internal/toolname"
)

// diffListMax bounds the changed files named when a path did not change.
const diffListMax = 30

type diffArgs struct {
	Path string `json:"path"`
}

// diffMaxBytes bounds one file's diff: a huge file (a data dump, a
// generated bundle) is read in part, and the rest with read_file_hunk,
// rather than held whole in memory, in the store and in the preview's
// making.
const diffMaxBytes = 16 << 20

func (s *Set) diffTool() Tool {
	return s.repoTool(Spec{
		Name:        toolname.GetFileDiff,
		Description: "The unified diff of a changed file (old or new path) whose hunks are not in the diff context; for a directory, its changed files (\".\" for all).",
		Params: []Param{
			String("path", `A changed file, e.g. "src/main.go", or a directory.`).Required().Example("src/main.go"),
		},
	}, func(ctx context.Context, args Args) (Result, error) {
		var a diffArgs
		if err := args.Decode(&a); err != nil {
			return Result{}, err
		}
		return s.diff(ctx, a)
	})
}

// change is one entry of git diff --name-status.
type change struct {
	status   string
	old, new string // equal unless renamed or copied
}

func (s *Set) diff(ctx context.Context, a diffArgs) (Result, error) {
	if strings.TrimSpace(a.Path) == "" {
		return Result{}, fmt.Errorf("path is empty; send a changed file's path such as \"src/main.go\", or \".\" to list every changed file")
	}
	p, err := s.cleanPath("path", a.Path, true)
	if err != nil {
		return Result{}, err
	}
	p = s.revealChange(ctx, p)
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
		if list, ok, err := s.listChanges(ctx, base, head, p, changes); ok || err != nil {
			return list, err
		}
		return Result{}, s.unchanged(p, changes)
	}
	// The diff context's own patch, so that a file's diff reads the same
	// here and there.
	limit := min(s.env.MaxBytes, diffMaxBytes)
	out, cut, err := s.patch(ctx, base, head, found, limit)
	if err != nil {
		return Result{}, fmt.Errorf("diffing %q: %w", p, err)
	}
	text := string(out)
	if cut {
		text = capText(text, limit-200) + "\n[the diff is larger than this result holds (" + strconv.Itoa(limit>>20) + " MiB); read the file's changed regions with " + toolname.ReadFileHunk + "]"
	}
	if strings.TrimSpace(text) == "" {
		text = fmt.Sprintf("%q changed (%s) but git shows no textual difference", p, found.status)
	}
	return Result{Output: text}, nil
}

// patch returns a changed file's diff from base to head, cut at limit
// bytes as git.Runner.Capped cuts: from the diff context's patch when it
// holds the file's (Env.Patches), else from git.
func (s *Set) patch(ctx context.Context, base, head string, c *change, limit int) ([]byte, bool, error) {
	if b, ok := s.env.Patches[c.new]; ok && base == s.env.Base && head == s.env.Head && fromPatch(c.status) {
		if limit > 0 && len(b) > limit {
			return b[:limit:limit], true, nil
		}
		return b, false, nil
	}
	paths := []string{c.new}
	if c.old != c.new {
		paths = []string{c.old, c.new}
	}
	return s.git(ctx, limit, git.PatchArgs(base, head, s.env.FindCopies, paths...)...)
}

// fromPatch says whether a change of git's --name-status status reads the
// same in a section of the whole diff as in git's diff of its own paths:
// a modification, an addition, a deletion or a rename (the pair is paired
// alike, with the same score), not a copy, whose source's paths bring the
// source's own change, nor a change of type, printed as two sections.
func fromPatch(status string) bool {
	if status == "" {
		return false
	}
	switch status[:1] {
	case "M", "A", "D", "R":
		return true
	}
	return false
}

// listChanges lists the changed files under a directory (dir "" for all),
// one a line with status and line counts, in path order; ok is false when
// no file changed under it.
func (s *Set) listChanges(ctx context.Context, base, head, dir string, changes []change) (Result, bool, error) {
	var under []change
	for _, c := range changes {
		if !s.hidden(c.new) && (dir == "" || strings.HasPrefix(c.new, dir+"/")) {
			under = append(under, c)
		}
	}
	if len(under) == 0 {
		return Result{}, false, nil
	}
	counts, err := s.numstat(ctx, base, head)
	if err != nil {
		return Result{}, true, err
	}
	slices.SortFunc(under, func(a, b change) int { return strings.Compare(a.new, b.new) })
	var b strings.Builder
	where := "under " + dir
	if dir == "" {
		where = "in all"
	}
	fmt.Fprintf(&b, "%d changed files %s; a file's diff: "+toolname.GetFileDiff+" {\"path\": \"<file>\"}\n", len(under), where)
	for _, c := range under {
		n := counts[c.new]
		if n == "" {
			n = "+0 -0"
		}
		fmt.Fprintf(&b, "%-8s %-13s %s", statusWord(c.status), n, text.QuotePath(c.new))
		if c.old != c.new {
			fmt.Fprintf(&b, " (from %s, %s%%)", text.QuotePath(c.old), strings.TrimLeft(c.status[1:], "0"))
		}
		b.WriteByte('\n')
	}
	return Result{Output: b.String()}, true, nil
}

// statusWord names a git --name-status letter.
func statusWord(st string) string {
	switch st[:1] {
	case "A":
		return "added"
	case "D":
		return "deleted"
	case "R":
		return "renamed"
	case "C":
		return "copied"
	case "T":
		return "type"
	}
	return "modified"
}

// numstat returns "+a -d" (or "binary") for each changed file's new path.
func (s *Set) numstat(ctx context.Context, base, head string) (map[string]string, error) {
	args := []string{"diff", "-z", "--numstat", "--no-ext-diff", "--no-textconv", "--no-relative", "-M", "--ignore-submodules=none"}
	if s.env.FindCopies {
		args = append(args, "-C")
	}
	out, _, err := s.git(ctx, 0, append(args, base, head)...)
	if err != nil {
		return nil, fmt.Errorf("counting changed lines: %w", err)
	}
	counts := map[string]string{}
	fields := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	for i := 0; i < len(fields); i++ {
		parts := strings.SplitN(fields[i], "\t", 3)
		if len(parts) != 3 {
			continue
		}
		path := parts[2]
		if path == "" && i+2 < len(fields) { // a rename or copy: old, then new
			path = fields[i+2]
			i += 2
		}
		n := "+" + parts[0] + " -" + parts[1]
		if parts[0] == "-" {
			n = "binary"
		}
		counts[path] = n
	}
	return counts, nil
}

// changes lists the files that differ between two commits, with renames,
// asking git once for the pair: a call made while another asks waits for
// its answer. A failure is not kept: the next call asks again.
func (s *Set) changes(ctx context.Context, base, head string) ([]change, error) {
	key := [2]string{base, head}
	s.state.mu.Lock()
	l, ok := s.state.changed[key]
	if !ok {
		if s.state.changed == nil {
			s.state.changed = map[[2]string]*changedList{}
		}
		l = &changedList{done: make(chan struct{})}
		s.state.changed[key] = l
	}
	s.state.mu.Unlock()
	if !ok {
		l.cs, l.err = s.listChanged(ctx, base, head)
		if l.err != nil {
			s.state.mu.Lock()
			delete(s.state.changed, key)
			s.state.mu.Unlock()
		}
		close(l.done)
	}
	select {
	case <-l.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if ok && l.err != nil && ctx.Err() == nil {
		// The one asking failed, perhaps stopped by its own context:
		// ask in turn.
		return s.changes(ctx, base, head)
	}
	return l.cs, l.err
}

// changedList is one pair's list of changes, once read.
type changedList struct {
	done chan struct{}
	cs   []change
	err  error
}

// listChanged asks git for the files that differ between two commits.
func (s *Set) listChanged(ctx context.Context, base, head string) ([]change, error) {
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
	var all []string
	for _, c := range changes {
		if !s.hidden(c.new) {
			all = append(all, c.new)
		}
	}
	if len(all) == 0 {
		return fmt.Errorf("%q did not change: base and head have no differences", p)
	}
	return fmt.Errorf("%q did not change between base and head (read it with "+toolname.ReadFileHunk+"); changed files: %s", p, listSome(all, diffListMax))
}

// listSome joins at most n items, saying how many were left out.
func listSome(items []string, n int) string {
	items = slices.Clone(items)
	for i, p := range items {
		items[i] = text.QuotePath(p)
	}
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s, … and %d more", strings.Join(items[:n], ", "), len(items)-n)
}
