package cmd

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/github"
	"github.com/reviewdev/review/review/gitlab"
	"github.com/reviewdev/review/review/post"
	"github.com/reviewdev/review/review/result"
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
//
// What earlier runs posted is kept in pt for the ledger (settle), which
// --since none in CI reads too.
func (o *ReviewOptions) sinceFor(ctx context.Context, pt *postTarget) (string, []post.OpenFinding) {
	asked := o.Since // what --since names, "" for the whole change
	if asked == sinceNone {
		asked = ""
	}
	if pt != nil {
		pt.anchorAt(o)
	}
	if pt == nil || (!pt.inCI && (o.Since == "" || o.Since == sinceNone)) {
		return asked, nil
	}
	e, err := pt.poster.Earlier(ctx)
	if err != nil {
		if o.Since == "" {
			fmt.Fprintf(o.IO.ErrOut, "review: cannot read the earlier reviews of %s (%s): reviewing all of it\n", pt.poster.Target(), text.OneLine(err.Error(), 300))
		}
		return asked, nil
	}
	pt.earlier = &e
	if o.Since == sinceNone {
		return "", nil // a whole review is judged by itself
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

// headRev is the change's head commit as git names it here.
func (t *postTarget) headRev(o *ReviewOptions) string {
	if t.head != "" {
		return t.head
	}
	if o.Head != "" {
		return o.Head
	}
	return "HEAD"
}

// anchorAt makes the poster anchor each finding it posts on a line to the
// text of those lines at the head (post.Anchor), read from git: the diff
// the review saw may have been redacted.
func (t *postTarget) anchorAt(o *ReviewOptions) {
	anchor := t.anchor(o)
	switch p := t.poster.(type) {
	case *github.Poster:
		p.Anchor = anchor
	case *gitlab.Poster:
		p.Anchor = anchor
	}
}

// anchor is the anchor of a finding's lines at the head (post.Anchor).
func (t *postTarget) anchor(o *ReviewOptions) func(result.Finding) string {
	return func(f result.Finding) string {
		if f.Line <= 0 {
			return ""
		}
		b, err := exec.Command("git", "-C", o.Dir, "show", t.headRev(o)+":"+f.Path).Output()
		if err != nil {
			return ""
		}
		return post.Anchor(b, f.Line, f.EndLine)
	}
}

// settle applies the ledger of the change (post.Reconcile) to res, before
// it is written or posted: the findings a person dismissed on an earlier
// review are moved to res.Suppressed, res.Ledger lists every finding's
// state, and open loses the findings no longer open (fixed or dismissed),
// which the gate then does not count. It returns the threads of the fixed
// findings, which resolveFixed resolves once the review is posted.
func (t *postTarget) settle(ctx context.Context, o *ReviewOptions, res *result.Result, open []post.OpenFinding) ([]post.Thread, []post.OpenFinding) {
	if t == nil || t.earlier == nil || res == nil {
		return nil, open
	}
	notReviewed := map[string]bool{}
	for _, n := range res.NotReviewed {
		notReviewed[n.Path] = true
	}
	head := t.headRev(o)
	present := func(th post.Thread) bool {
		if notReviewed[th.Path] {
			return true // not looked at: nothing says it is gone
		}
		b, err := exec.CommandContext(ctx, "git", "-C", o.Dir, "show", head+":"+th.Path).Output()
		if err != nil {
			// The file is gone at the head, or git cannot say: only a
			// file that is not there counts as changed.
			return exec.CommandContext(ctx, "git", "-C", o.Dir, "rev-parse", "--verify", "--quiet", head+"^{commit}").Run() != nil
		}
		return post.Present(th.Code, b)
	}
	l := post.Reconcile(t.earlier.Threads, res.Findings, res.RunID, present, t.anchor(o))
	l.Suppress(res)
	for _, s := range res.Suppressed {
		fp := s.Finding.Fingerprint()
		if why, ok := l.Suppressed[fp]; ok {
			fmt.Fprintf(o.IO.Info(), "review: not posted: finding %.12s was dismissed on an earlier review (%s)\n", fp, why)
		} else {
			fmt.Fprintf(o.IO.Info(), "review: not posted: finding %.12s at %s was posted before in other words: %s\n", fp, text.OneLine(s.Finding.Location(), 200), l.Same[fp])
		}
	}
	kept := open[:0:0]
	for _, f := range open {
		if !l.Closed[f.Fingerprint] {
			kept = append(kept, f)
		}
	}
	return l.Fixed, kept
}

// resolveFixed resolves the threads of the findings the ledger found
// fixed, once the review is posted. A thread that cannot be resolved is a
// warning: the review itself was posted.
func (t *postTarget) resolveFixed(ctx context.Context, s *IOStreams, fixed []post.Thread) {
	if t == nil || !t.posted {
		return
	}
	for _, th := range fixed {
		if err := t.poster.Resolve(ctx, th); err != nil {
			fmt.Fprintf(s.ErrOut, "review: warning: the thread of a fixed finding (%s:%d) was not resolved: %s\n", text.OneLine(th.Path, 200), th.Line, text.OneLine(err.Error(), 0))
			continue
		}
		fmt.Fprintf(s.Info(), "review: fixed: %s:%d, its thread resolved: %s\n", text.OneLine(th.Path, 200), th.Line, th.URL)
	}
}
