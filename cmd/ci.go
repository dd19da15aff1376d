package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/git"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
)

// ciEnv is where a command runs, as the environment says: decided once, by
// ciFrom, and handed as data to everything that behaves differently in CI
// (the repository configuration read, the refusal of redact: false from a
// repository file, the progress log, the hints about shallow clones, the
// default base and format, the fetching of a shallow clone's history).
type ciEnv struct {
	// On says the run is unattended in a CI job.
	On bool
	// Host is the host whose CI runs it, when review knows it: the --post
	// name of a row of hosts ("github" for GitHub Actions, "gitlab" for
	// GitLab CI); "" otherwise.
	Host string
	// Base is the revision the change is reviewed against by default, as
	// the host's CI names it (origin/$GITHUB_BASE_REF in a pull request's
	// workflow, origin/$CI_MERGE_REQUEST_TARGET_BRANCH_NAME in a
	// merge-request pipeline); "" elsewhere.
	Base string
}

// ciFrom decides whether the run is in CI, and whose: each host of the
// table tells its own CI (GitHub Actions sets GITHUB_ACTIONS=true, GitLab
// CI GITLAB_CI=true), asked in the table's order; a host whose CI looks
// like another's to it (Host.Mimics) wins over that one. Both, like most
// CI services, set CI=true; CI set to anything but a false value (false, 0, as
// strconv.ParseBool reads it) counts too. CI=false says the run is not in
// CI, whatever else is set: a person reproducing a job's environment by hand
// gets the behaviour of a run at a desk.
func ciFrom(getenv func(string) string) ciEnv {
	v := getenv("CI")
	if b, err := strconv.ParseBool(v); err == nil && !b {
		return ciEnv{}
	}
	var c ciEnv
	for _, h := range hosts {
		if base, ok := h.CI(getenv); ok && (c.Host == "" || h.Mimics == c.Host) {
			c.Host, c.Base = h.Name, base
		}
	}
	c.On = c.Host != "" || v != ""
	return c
}

// ensureMergeBase makes a shallow CI clone able to diff: when base or the
// merge base of base and head is missing, it fetches base from origin with a
// growing depth until the merge base is there, and fails with the exact fix
// when it cannot be.
func ensureMergeBase(ctx context.Context, dir, base, head string, log io.Writer) error {
	g := git.Runner{Dir: dir}
	found := func() bool {
		_, err := g.Text(ctx, "merge-base", base, head)
		return err == nil
	}
	if found() {
		return nil
	}
	branch, ok := strings.CutPrefix(base, "origin/")
	if !ok {
		return nil // not a remote branch: let the diff report what is wrong
	}
	for _, depth := range []string{"50", "200", "1000", ""} {
		args := []string{"fetch", "--no-tags", "--quiet"}
		switch {
		case depth != "":
			args = append(args, "--depth="+depth)
		case isShallow(ctx, g):
			// Asked of the repository now, not at the start: the fetches
			// before may have completed it, and git refuses --unshallow
			// on a complete repository.
			args = append(args, "--unshallow")
		}
		args = append(args, "origin", "+refs/heads/"+branch+":refs/remotes/origin/"+branch)
		fmt.Fprintf(log, "review: fetching %s to find the merge base (git %s)\n", base, strings.Join(args, " "))
		if _, err := g.Text(ctx, args...); err != nil {
			if ctx.Err() != nil {
				return err
			}
			return fmt.Errorf("cannot fetch %s from origin (%s): check out with fetch-depth: 0 (actions/checkout) or run git fetch origin %s", base, gitComplaint(err), branch)
		}
		if found() {
			return nil
		}
		if !isShallow(ctx, g) {
			break // both histories are whole: fetching more cannot help
		}
		if depth != "" {
			// Deepen the head side too: the fork point may be below the
			// clone's first commit.
			_, _ = g.Text(ctx, "fetch", "--no-tags", "--quiet", "--deepen="+depth, "origin")
			if found() {
				return nil
			}
			if !isShallow(ctx, g) {
				break
			}
		}
	}
	return fmt.Errorf("%w between %s and %s, with the whole history of both fetched: the branch is not based on %s; rebase it onto %s or name another --base", diffctx.ErrNoMergeBase, base, head, base, base)
}

// isShallow reports whether the repository's history is cut off anywhere.
func isShallow(ctx context.Context, g git.Runner) bool {
	out, _ := g.Text(ctx, "rev-parse", "--is-shallow-repository")
	return out == "true"
}

// gitComplaint is what git said when it failed, for a message that names
// the command already: its first line without "fatal: ", or the whole
// error (a cancelled run, a refused safe.directory) when that says more.
func gitComplaint(err error) string {
	var gerr *git.Error
	if errors.As(err, &gerr) {
		if _, unsafe := gerr.Unsafe(); !unsafe && gerr.Message() != "" {
			return gerr.Message()
		}
	}
	return err.Error()
}

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
func (o *ReviewOptions) sinceFor(ctx context.Context, pt *postTarget) (string, []seam.OpenFinding) {
	asked := o.Since // what --since names, "" for the whole change
	if asked == sinceNone {
		asked = ""
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
	// What earlier runs posted is kept for the ledger (settle), which
	// --since none in CI reads too.
	pt.earlier = &e
	if o.Since == sinceNone {
		return "", nil // a whole review is judged by itself
	}
	if o.Since != "" {
		return o.Since, e.Open
	}
	g := git.Runner{Dir: o.Dir}
	head := pt.head
	if head == "" {
		if head, err = g.Text(ctx, "rev-parse", "--verify", "--quiet", o.Head+"^{commit}"); err != nil {
			return "", nil
		}
	}
	for i := len(e.Heads) - 1; i >= 0; i-- {
		h := e.Heads[i]
		if h != head {
			// Missing (exit 128) or not an ancestor (exit 1): try older.
			if _, err := g.Text(ctx, "merge-base", "--is-ancestor", h, head); err != nil {
				continue
			}
		}
		fmt.Fprintf(o.IO.Info(), "review: reviewing the commits since %s, the head of the last review of %s (--since none reviews all of it)\n", text.ShortSHA(h), pt.poster.Target())
		return h, e.Open
	}
	return "", nil // the first review, or the history was rewritten
}
