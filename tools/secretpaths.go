package tools

import (
	"context"
	"strings"
)

// A path that holds a secret reaches the model as its placeholder: the
// diff context, findings and the tools' outputs show
// "notes/[secret:github-pat#3f2a].txt" (see diffctx.Diff.RedactPaths and
// Answer, which redacts every output). The model then names the file so,
// and the tools find it: reveal resolves a placeholder path to the path
// it stands for, inside the process only. What the tools return holds the
// real path, and is redacted before it is stored or sent like any output;
// the call's arguments are stored as the model sent them, redacted too.

// reveal returns the path of revision r that p, a clean path argument,
// names with placeholders: the file, or the directory, whose path reads
// as p when redacted. A path without a placeholder, or one that names
// nothing (which the tool then reports missing, by its placeholder), is
// returned as it is.
func (s *Set) reveal(ctx context.Context, r revision, p string) string {
	red := s.env.Redact
	if red == nil || !strings.Contains(p, "[secret:") {
		return p
	}
	t, err := s.names(ctx, r)
	if err != nil {
		return p
	}
	depth := strings.Count(p, "/")
	for _, e := range t.entries {
		if red.Names(p, e.path) {
			return e.path
		}
		// A directory: the file's first depth+1 parts.
		if strings.Count(e.path, "/") > depth {
			parts := strings.SplitN(e.path, "/", depth+2)
			dir := strings.Join(parts[:depth+1], "/")
			if red.Names(p, dir) {
				return dir
			}
		}
	}
	return p
}

// revealChange is reveal for a path of the change: the file at head, or
// for a file the change deletes, at base.
func (s *Set) revealChange(ctx context.Context, p string) string {
	if q := s.reveal(ctx, revHead, p); q != p {
		return q
	}
	if s.env.Base == "" {
		return p
	}
	return s.reveal(ctx, revBase, p)
}
