package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/review/github"
)

// ensureMergeBase makes a shallow CI clone able to diff: when base or the
// merge base of base and head is missing, it fetches base from origin with a
// growing depth until the merge base is there, and fails with the exact fix
// when it cannot be.
func ensureMergeBase(ctx context.Context, dir, base, head string, log io.Writer) error {
	found := func() bool {
		_, err := gitOut(ctx, dir, "merge-base", base, head)
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
		case isShallow(ctx, dir):
			// Asked of the repository now, not at the start: the fetches
			// before may have completed it, and git refuses --unshallow
			// on a complete repository.
			args = append(args, "--unshallow")
		}
		args = append(args, "origin", "+refs/heads/"+branch+":refs/remotes/origin/"+branch)
		fmt.Fprintf(log, "review: fetching %s to find the merge base (git %s)\n", base, strings.Join(args, " "))
		if _, err := gitOut(ctx, dir, args...); err != nil {
			return fmt.Errorf("cannot fetch %s from origin (%v): check out with fetch-depth: 0 (actions/checkout) or run git fetch origin %s", base, err, branch)
		}
		if found() {
			return nil
		}
		if !isShallow(ctx, dir) {
			break // both histories are whole: fetching more cannot help
		}
		if depth != "" {
			// Deepen the head side too: the fork point may be below the
			// clone's first commit.
			_, _ = gitOut(ctx, dir, "fetch", "--no-tags", "--quiet", "--deepen="+depth, "origin")
			if found() {
				return nil
			}
			if !isShallow(ctx, dir) {
				break
			}
		}
	}
	return fmt.Errorf("%w between %s and %s, with the whole history of both fetched: the branch is not based on %s; rebase it onto %s or name another --base", diffctx.ErrNoMergeBase, base, head, base, base)
}

// isShallow reports whether the repository's history is cut off anywhere.
func isShallow(ctx context.Context, dir string) bool {
	out, _ := gitOut(ctx, dir, "rev-parse", "--is-shallow-repository")
	return out == "true"
}

// githubTarget is where --post github posts, read from the environment
// GitHub Actions provides.
type githubTarget struct {
	api, token, repo string
	event            github.PREvent
}

// githubTargetFrom checks the environment --post github needs. It runs
// before the review, so a missing token fails fast instead of after a paid
// model run.
func githubTargetFrom(getenv func(string) string) (*githubTarget, error) {
	t := &githubTarget{api: getenv("GITHUB_API_URL"), token: getenv("GITHUB_TOKEN"), repo: getenv("GITHUB_REPOSITORY")}
	event := getenv("GITHUB_EVENT_PATH")
	switch {
	case t.token == "":
		return nil, fmt.Errorf("--post github needs GITHUB_TOKEN: pass it in the step's env (permissions: pull-requests: write)")
	case t.repo == "":
		return nil, fmt.Errorf("--post github needs GITHUB_REPOSITORY (owner/name), as GitHub Actions sets it")
	case event == "":
		return nil, fmt.Errorf("--post github needs GITHUB_EVENT_PATH, the pull_request event GitHub Actions provides")
	}
	ev, err := github.ReadPREvent(event)
	if err != nil {
		return nil, err
	}
	t.event = ev
	if t.api == "" {
		t.api = github.DefaultAPIURL
	}
	return t, nil
}
