package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/toolmem"
)

// Limits of list_project_files. A listing is whole by default: it is
// stored in tool memory, and the conversation carries its preview (files
// per directory, then the first paths).
const (
	// listDirs bounds the directory summary shown when a listing is cut.
	listDirs = 40
)

type listArgs struct {
	PathPrefix *string `json:"path_prefix"`
	Glob       *string `json:"glob"`
	Limit      int     `json:"limit"`
	Offset     int     `json:"offset"`
}

func (s *Set) listTool() Tool {
	return s.repoTool(Spec{
		Name:        toolname.ListProjectFiles,
		Description: "Every file tracked at head with its size in bytes, in path order (the preview counts files per directory).",
		Preview:     toolmem.Paths,
		Params: []Param{
			String("path_prefix", `Directory or file to list, e.g. "src/api". Null for all.`).Example("src"),
			String("glob", `Glob: without a slash it matches names at any depth ("*.go"), with one the whole path ("cmd/**/*.go"). Null for all.`).Example("*.go"),
			Integer("limit", "Most files to list. Null for all.").Min(1).Example(nil),
			Integer("offset", "Number of matching files to skip.").Min(0).Default(0).Example(0),
		},
	}, func(ctx context.Context, args Args) (Result, error) {
		var a listArgs
		if err := args.Decode(&a); err != nil {
			return Result{}, err
		}
		return s.list(ctx, a, args.Notes())
	})
}

func (s *Set) list(ctx context.Context, a listArgs, notes []string) (Result, error) {
	prefix, glob, err := s.listScope(ctx, a)
	if err != nil {
		return Result{}, err
	}
	limit, offset := a.Limit, a.Offset
	t, err := s.tree(ctx, revHead)
	if err != nil {
		return Result{}, err
	}
	match := s.matching(t.entries, prefix, glob)
	scope := describeScope(prefix, glob)
	if len(match) == 0 {
		if prefix != "" && !t.isDir(prefix) {
			if _, ok := t.file(prefix); !ok {
				return Result{}, fmt.Errorf("no tracked file or directory %q at head; list the repository without path_prefix, or use "+toolname.SearchInProject, prefix)
			}
		}
		return Result{Output: fmt.Sprintf("no tracked files%s at head", scope)}, nil
	}
	if offset >= len(match) {
		return Result{}, fmt.Errorf("offset %d is past the end: %s%s match; use an offset below %d", offset, plural(len(match), "file"), scope, len(match))
	}
	end := len(match)
	if limit > 0 {
		end = min(offset+limit, end)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s at head; showing %d-%d (path, then size in bytes)\n", plural(len(match), "file"), scope, offset+1, end)
	for _, n := range notes {
		fmt.Fprintf(&b, "(%s)\n", n)
	}
	writeEntries(&b, match[offset:end])
	if end < len(match) {
		writeMore(&b, match, prefix, glob, limit, end)
	}
	return Result{Output: b.String()}, nil
}

// listScope checks and returns a listing's filters: the directory (as the
// repository spells it) and the glob, each "" for none.
func (s *Set) listScope(ctx context.Context, a listArgs) (prefix, glob string, err error) {
	if a.PathPrefix != nil {
		p, err := s.cleanPath("path_prefix", *a.PathPrefix, true)
		if err != nil {
			return "", "", err
		}
		prefix = s.reveal(ctx, revHead, p)
	}
	if a.Glob != nil && *a.Glob != "" {
		glob = *a.Glob
		if err := checkGlob("glob", glob); err != nil {
			return "", "", err
		}
	}
	return prefix, glob, nil
}

// matching are the entries under prefix that glob matches, hidden files
// left out.
func (s *Set) matching(entries []entry, prefix, glob string) []entry {
	var match []entry
	for _, e := range entries {
		if prefix != "" && e.path != prefix && !strings.HasPrefix(e.path, prefix+"/") {
			continue
		}
		if glob != "" && !globMatch(glob, e.path) {
			continue
		}
		if s.hidden(e.path) {
			continue
		}
		match = append(match, e)
	}
	return match
}

// writeEntries writes a line per entry: its path, then its size, or what
// it is when it has none.
func writeEntries(b *strings.Builder, es []entry) {
	for _, e := range es {
		switch {
		case e.symlink():
			fmt.Fprintf(b, "%s symlink\n", text.QuotePath(e.path))
		case e.submodule():
			fmt.Fprintf(b, "%s submodule\n", text.QuotePath(e.path))
		default:
			fmt.Fprintf(b, "%s %d\n", text.QuotePath(e.path), e.size)
		}
	}
}

// writeMore says how many matching files a listing that ends at end left
// out, the call that lists the next, and where they are.
func writeMore(b *strings.Builder, match []entry, prefix, glob string, limit, end int) {
	next := []any{}
	if prefix != "" {
		next = append(next, "path_prefix", prefix)
	}
	if glob != "" {
		next = append(next, "glob", glob)
	}
	next = append(next, "limit", limit, "offset", end)
	fmt.Fprintf(b, "%d more files: call %s %s, or narrow path_prefix or glob.\n", len(match)-end, toolname.ListProjectFiles, jsonArgs(next...))
	if dirs := dirSummary(match, prefix); dirs != "" {
		fmt.Fprintf(b, "Matching files by directory: %s\n", dirs)
	}
}

// describeScope renders the filters of a listing for its header.
func describeScope(prefix, glob string) string {
	var s string
	if prefix != "" {
		s += fmt.Sprintf(" under %q", prefix)
	}
	if glob != "" {
		s += fmt.Sprintf(" matching %q", glob)
	}
	return s
}

// dirSummary counts matching files per directory one level below prefix,
// to show where to narrow a listing that did not fit.
func dirSummary(match []entry, prefix string) string {
	var dirs []string
	counts := map[string]int{}
	for _, e := range match {
		rest := e.path
		if prefix != "" {
			rest = strings.TrimPrefix(strings.TrimPrefix(e.path, prefix), "/")
		}
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			continue
		}
		d := rest[:i]
		if prefix != "" {
			d = prefix + "/" + d
		}
		if counts[d] == 0 {
			dirs = append(dirs, d)
		}
		counts[d]++
	}
	var parts []string
	for i, d := range dirs {
		if i == listDirs {
			parts = append(parts, fmt.Sprintf("… %d more directories", len(dirs)-listDirs))
			break
		}
		parts = append(parts, fmt.Sprintf("%s/ (%d)", d, counts[d]))
	}
	return strings.Join(parts, ", ")
}
