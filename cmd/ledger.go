package cmd

import (
	"context"
	"fmt"

	"github.com/reviewdev/review/internal/git"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/result"
)

// The ledger of findings across pushes: what earlier runs posted on the
// change (read by sinceFor) against what this review found.

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

// anchor is the anchor of a finding's lines at the head (seam.Anchor).
func (t *postTarget) anchor(o *ReviewOptions) func(result.Finding) string {
	return func(f result.Finding) string {
		if f.Line <= 0 {
			return ""
		}
		b, err := git.Runner{Dir: o.Dir}.Output(context.Background(), "show", t.headRev(o)+":"+f.Path)
		if err != nil {
			return ""
		}
		return seam.Anchor(b, f.Line, f.EndLine)
	}
}

// settle applies the ledger of the change (seam.Reconcile) to res, before
// it is written or posted: the findings a person dismissed on an earlier
// review are moved to res.Suppressed, res.Ledger lists every finding's
// state, and open loses the findings no longer open (fixed or dismissed),
// which the gate then does not count. It returns the threads of the fixed
// findings, which resolveFixed resolves once the review is posted.
func (t *postTarget) settle(ctx context.Context, o *ReviewOptions, res *result.Result, open []seam.OpenFinding) ([]seam.Thread, []seam.OpenFinding) {
	if t == nil || t.earlier == nil || res == nil {
		return nil, open
	}
	notReviewed := map[string]bool{}
	for _, n := range res.NotReviewed {
		notReviewed[n.Path] = true
	}
	head := t.headRev(o)
	g := git.Runner{Dir: o.Dir}
	present := func(th seam.Thread) bool {
		if notReviewed[th.Path] {
			return true // not looked at: nothing says it is gone
		}
		b, err := g.Output(ctx, "show", head+":"+th.Path)
		if err != nil {
			// The file is gone at the head, or git cannot say: only a
			// file that is not there counts as changed.
			_, err = g.Text(ctx, "rev-parse", "--verify", "--quiet", head+"^{commit}")
			return err != nil
		}
		return seam.Present(th.Code, b)
	}
	l := seam.Reconcile(t.earlier.Threads, res.Findings, res.RunID, present, t.anchor(o))
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
func (t *postTarget) resolveFixed(ctx context.Context, s *IOStreams, fixed []seam.Thread) {
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
