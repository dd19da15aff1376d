package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/reviewdev/review/cmd/config"
	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/record"
	"github.com/reviewdev/review/review/result"
)

// postTarget is where --post posts: a host's seam.Poster, and what the
// command needs to know around it.
type postTarget struct {
	poster seam.Poster
	// noun is what the host calls the change, for messages: "pull
	// request", "merge request".
	noun string
	// head is the change's head commit as the CI names it, when the
	// commit checked out may be another (a merge commit); "" is --head.
	head string
	// inCI says the run is in that host's CI, where --since defaults to
	// the head of the last review posted.
	inCI bool
	// denied says why nothing was posted (err) and gives the findings to
	// the job's log, when the token may not post them.
	denied func(opts *ReviewOptions, outs []output, res *result.Result, err error) error
	// posted says the review was posted (or found posted before:
	// skipped); the commit status follows only then.
	posted, skipped bool
	// earlier is what earlier runs posted, when sinceFor read it: the
	// ledger's input (settle).
	earlier *seam.Earlier
}

// setStatus sets the review's commit status on the change's head, after
// the review is posted: its state, and a failure when the gate failed. A
// status the token may not set is a warning, not a failure of the review.
func (t *postTarget) setStatus(ctx context.Context, s *IOStreams, res *result.Result, d *diffctx.Diff, gateFailed bool) {
	if t == nil || !t.posted {
		return
	}
	head := t.head
	if head == "" {
		head = d.HeadSHA
	}
	if t.skipped {
		res.State = result.StateSkipped
	}
	st := res.StatusOf(gateFailed)
	if err := t.poster.SetStatus(ctx, head, st); err != nil {
		fmt.Fprintf(s.ErrOut, "review: warning: the commit status was not set: %s\n", text.OneLine(err.Error(), 0))
		return
	}
	fmt.Fprintf(s.Info(), "review: commit status %q of %s: %s\n", "review", text.ShortSHA(head), st.Description)
}

// postTargetFrom checks what --post needs, through the host's row. It
// runs before the review, so a missing token fails fast instead of after a
// paid model run.
func postTargetFrom(opts *ReviewOptions) (*postTarget, error) {
	if opts.Post == "" {
		return nil, nil
	}
	row := hostNamed(opts.Post)
	if row == nil {
		return nil, unknownHost(opts.Post)
	}
	pt := &postTarget{inCI: opts.ci.Host == row.Name, denied: row.denied}
	if pt.denied == nil {
		pt.denied = logDenied
	}
	t, err := row.Open(seam.Setup{
		Getenv: opts.Getenv, InCI: pt.inCI, Flags: opts.hostFlags.values(),
		// Counted for the run's egress record; the client keeps its
		// timeout.
		HTTPClient: opts.egress.Client(nil),
		// The poster anchors each finding it posts on a line to the text
		// of those lines at the head (seam.Anchor), read from git: the
		// diff the review saw may have been redacted.
		Anchor: func(f result.Finding) string { return pt.anchor(opts)(f) },
	})
	if err != nil {
		return nil, hostAdvice(err)
	}
	pt.poster, pt.noun, pt.head = t.Poster, t.Noun, t.Head
	return pt, nil
}

// post posts the findings. A token that may not post (a read-only token,
// a project role too low) is not a failure of the review: post says so
// and gives the findings to the job's log instead.
func (t *postTarget) post(ctx context.Context, opts *ReviewOptions, outs []output, res *result.Result, d *diffctx.Diff) error {
	s := opts.IO
	rep, err := t.poster.Post(ctx, res, d)
	if errors.Is(err, seam.ErrDenied) {
		return t.denied(opts, outs, res, err)
	}
	if err != nil {
		return err
	}
	t.posted = true
	if rep.Skipped {
		t.skipped = true
		head := t.head
		if head == "" {
			head = d.HeadSHA
		}
		fmt.Fprintf(s.Info(), "review: %s already has a review for %s; nothing posted\n", t.poster.Target(), text.ShortSHA(head))
		return nil
	}
	updated := ""
	if rep.Updated {
		updated = " (updated in place)"
	}
	fmt.Fprintf(s.Info(), "review: posted a review on %s: %d inline comments, %d in the %s%s: %s\n", t.poster.Target(), rep.Inline, rep.InBody, rep.Body, updated, rep.URL)
	return nil
}

// recordPostEgress records in the run what was sent to the host after the
// run (the review posted, the commit status), which the run, whose store
// is closed by then, could not: the store is opened again for one event.
// A store that cannot be opened leaves it out of the record, and says so.
func recordPostEgress(opts *ReviewOptions, set *config.Settings, sess *review.Session) {
	r := opts.egress.Take()
	if r.Empty() || sess == nil {
		return
	}
	st, err := openStore(set.Store, opts.Getenv, sess.Diff.Root)
	if err == nil {
		err = record.NewWriter(st, sess.Run.ID).Event(sess.Steps, record.Egress{Record: r})
		if cerr := st.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(opts.IO.ErrOut, "review: warning: what was sent to the host after the run is not in its egress record: %s\n", text.OneLine(err.Error(), 0))
	}
}

// changeNoun is what the target calls the change, "pull request" when
// there is no target (nothing carried from earlier reviews is then said).
func (t *postTarget) changeNoun() string {
	if t == nil {
		return "pull request"
	}
	return t.noun
}

// failedStatus sets the commit status of a review that failed with err:
// failed, and a failure, so a branch protection rule does not take a
// head whose review never finished for one that passed.
func (t *postTarget) failedStatus(ctx context.Context, s *IOStreams, d *diffctx.Diff, run string, err error) {
	if t == nil {
		return
	}
	head := t.head
	if head == "" {
		head = d.HeadSHA
	}
	st := result.Status{Failing: true, Description: "failed: " + text.OneLine(errorLine(err), 120) + " · review replay " + run}
	if serr := t.poster.SetStatus(ctx, head, st); serr != nil {
		fmt.Fprintf(s.ErrOut, "review: warning: the commit status was not set: %s\n", text.OneLine(serr.Error(), 0))
		return
	}
	fmt.Fprintf(s.Info(), "review: commit status %q of %s: %s\n", "review", text.ShortSHA(head), st.Description)
}
