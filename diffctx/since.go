package diffctx

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/reviewdev/review/internal/git"
)

// ErrSinceNotAncestor is Load's error when Options.Since is not an ancestor
// of head: a force-push rewrote the history since it, so "the commits since"
// means nothing; the whole change must be reviewed. A *SinceError wraps it.
var ErrSinceNotAncestor = errors.New("not an ancestor of head")

// SinceError is Options.Since not an ancestor of head; it matches
// ErrSinceNotAncestor.
type SinceError struct {
	Since string // the revision as given
	SHA   string // the commit it names
	Head  string // the commit of head
}

func (e *SinceError) Error() string {
	return fmt.Sprintf("%s (%.12s) is %v %.12s (the branch was rebased or force-pushed since)", e.Since, e.SHA, ErrSinceNotAncestor, e.Head)
}

func (e *SinceError) Unwrap() error { return ErrSinceNotAncestor }

// narrowSince keeps, of the change d holds (merge base to head), what the
// commits since since changed: the hunks whose new lines the diff from
// since to head touches. Both diffs number lines as head has them, so a
// hunk of the whole change is kept when its new range meets a hunk of the
// later diff. The rest of the change moves to d.Earlier: files that the
// later commits did not touch, listed as context. A kept file's counts are
// those of its kept hunks.
func (g *runner) narrowSince(ctx context.Context, d *Diff, since string, copies bool, skip func(*File) bool) error {
	sha, err := g.resolve(ctx, since)
	if err != nil {
		return err
	}
	d.Since, d.SinceSHA = since, sha
	if _, err := g.Text(ctx, "merge-base", "--is-ancestor", sha, d.HeadSHA); err != nil {
		var gerr *git.Error
		if errors.As(err, &gerr) && gerr.ExitCode() == 1 {
			return &SinceError{Since: since, SHA: sha, Head: d.HeadSHA}
		}
		return g.fail(ctx, err)
	}
	later, _, err := g.diff(ctx, sha, d.HeadSHA, copies, skip, 0)
	if err != nil {
		return err
	}
	touched := make(map[string][]Hunk, len(later))
	for _, f := range later {
		if len(f.Hunks) == 0 {
			// Binary, or a change of mode: the whole file counts.
			touched[f.Path] = append(touched[f.Path], Hunk{})
			continue
		}
		touched[f.Path] = append(touched[f.Path], f.Hunks...)
	}
	var kept []*File
	for _, f := range d.Files {
		hs, ok := touched[f.Path]
		if !ok {
			d.Earlier = append(d.Earlier, f)
			continue
		}
		if len(f.Hunks) == 0 {
			kept = append(kept, f)
			continue
		}
		var keep []Hunk
		for _, h := range f.Hunks {
			if meets(h, hs) {
				keep = append(keep, h)
			}
		}
		if len(keep) == 0 {
			d.Earlier = append(d.Earlier, f)
			continue
		}
		if len(keep) < len(f.Hunks) {
			n := *f
			n.Hunks = keep
			n.Additions, n.Deletions = countLines(keep)
			f = &n
		}
		kept = append(kept, f)
	}
	d.Files = kept
	return nil
}

// meets reports whether h's new range meets one of hs. A range of no lines
// (a deletion) stands at its line, so a deletion since is caught by the
// hunk around it.
func meets(h Hunk, hs []Hunk) bool {
	lo, hi := span(h)
	for _, o := range hs {
		if o == (Hunk{}) {
			return true
		}
		olo, ohi := span(o)
		if lo < ohi && olo < hi {
			return true
		}
	}
	return false
}

// span is the half-open range of h's new lines, at least one line wide.
func span(h Hunk) (int, int) {
	lo := h.NewStart
	if h.NewLines == 0 {
		// git numbers a hunk of no new lines by the line before it.
		lo++
	}
	return lo, lo + max(h.NewLines, 1)
}

// countLines counts the added and deleted lines of hs.
func countLines(hs []Hunk) (add, del int) {
	for _, h := range hs {
		for _, l := range strings.SplitAfter(h.Body, "\n") {
			switch {
			case strings.HasPrefix(l, "+"):
				add++
			case strings.HasPrefix(l, "-"):
				del++
			}
		}
	}
	return add, del
}
