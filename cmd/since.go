package cmd

import (
	"context"
	"fmt"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/post"
)

// sinceNone is the --since value that reviews the whole change, also where
// a default would narrow it.
const sinceNone = "none"

// sinceFor decides which commits this run reviews, and which findings of
// earlier reviews its gate still counts.
//
// --since REV reviews the commits since REV; --since none the whole change.
// Unset, a run that posts to a pull request in GitHub Actions (or a merge
// request in GitLab CI) starts after the head the newest earlier review of
// it was of, when the branch still
// contains that commit (a force-push rewrites it away: the whole pull request
// is reviewed again). Either way, when posting, the findings earlier runs
// commented on lines still in the pull request are returned: a review of the
// newer commits alone must not let an older blocking finding through.
func (o *ReviewOptions) sinceFor(ctx context.Context, pt *postTarget) (string, []post.OpenFinding) {
	if o.Since == sinceNone {
		return "", nil // a whole review is judged by itself
	}
	if pt == nil || (o.Since == "" && !pt.inCI) {
		return o.Since, nil
	}
	e, err := pt.poster.Earlier(ctx)
	if err != nil {
		if o.Since == "" {
			fmt.Fprintf(o.IO.ErrOut, "review: cannot read the earlier reviews of %s (%s): reviewing all of it\n", pt.poster.Target(), text.OneLine(err.Error(), 300))
		}
		return o.Since, nil
	}
	if o.Since != "" {
		return o.Since, e.Open
	}
	head := pt.head
	if head == "" {
		if head, err = gitOut(ctx, o.Dir, "rev-parse", "--verify", "--quiet", o.Head+"^{commit}"); err != nil {
			return "", nil
		}
	}
	for i := len(e.Heads) - 1; i >= 0; i-- {
		h := e.Heads[i]
		if h != head {
			// Missing (exit 128) or not an ancestor (exit 1): try older.
			if _, err := gitOut(ctx, o.Dir, "merge-base", "--is-ancestor", h, head); err != nil {
				continue
			}
		}
		fmt.Fprintf(o.IO.Info(), "review: reviewing the commits since %s, the head of the last review of %s (--since none reviews all of it)\n", text.ShortSHA(h), pt.poster.Target())
		return h, e.Open
	}
	return "", nil // the first review, or the history was rewritten
}
