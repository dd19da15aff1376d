package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	gh "github.com/google/go-github/v84/github"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/learn"
)

// ProposeLearning adds l to the team's learnings in the one pull request
// that proposes them (seam.LearningsBranch into base, titled
// seam.LearningsTitle): it opens it when none is open, from a branch made
// afresh at base, else commits to its branch. Nothing is learned until a
// maintainer merges it. It returns the pull request's address and the
// number the learning takes.
func (v *Conversation) ProposeLearning(ctx context.Context, base string, l learn.Learning) (url string, n int, err error) {
	c := v.c
	if !seam.Branch(base) {
		return "", 0, fmt.Errorf("proposing a learning: %q is not a branch", text.OneLine(base, 80))
	}
	branch := seam.LearningsBranch
	open, err := c.learningsPull(ctx, base)
	if err != nil {
		return "", 0, err
	}
	if open == nil {
		if err := c.branchAt(ctx, branch, base); err != nil {
			return "", 0, err
		}
	}
	data, sha, err := c.fileAt(ctx, learn.Path, branch)
	if err != nil {
		return "", 0, err
	}
	out, n, err := learn.Append(data, l)
	if err != nil {
		return "", 0, fmt.Errorf("proposing a learning: %s on branch %s: %w", learn.Path, branch, err)
	}
	msg := fmt.Sprintf("review: learning %d, %s", n, text.OneLine(l.Rule, 60))
	opts := &gh.RepositoryContentFileOptions{Message: gh.Ptr(msg), Content: out, Branch: gh.Ptr(branch)}
	if sha != "" {
		opts.SHA = gh.Ptr(sha)
	}
	if _, _, err := call(ctx, c, "committing to branch "+branch, func() (*gh.RepositoryContentResponse, *gh.Response, error) {
		if sha == "" {
			return c.api.Repositories.CreateFile(ctx, c.owner, c.name, learn.Path, opts)
		}
		return c.api.Repositories.UpdateFile(ctx, c.owner, c.name, learn.Path, opts)
	}); err != nil {
		return "", 0, err
	}
	if open != nil {
		return open.GetHTMLURL(), n, nil
	}
	pr, _, err := call(ctx, c, "opening the pull request of the learnings", func() (*gh.PullRequest, *gh.Response, error) {
		return c.api.PullRequests.Create(ctx, c.owner, c.name, &gh.NewPullRequest{
			Title: gh.Ptr(seam.LearningsTitle), Head: gh.Ptr(branch), Base: gh.Ptr(base), Body: gh.Ptr(seam.LearningsBody)})
	})
	if err != nil {
		return "", 0, err
	}
	return pr.GetHTMLURL(), n, nil
}

// learningsPull is the open pull request that proposes learnings into
// base, by its branch; nil when there is none.
func (c *client) learningsPull(ctx context.Context, base string) (*gh.PullRequest, error) {
	pulls, _, err := call(ctx, c, "looking for the pull request of the learnings", func() ([]*gh.PullRequest, *gh.Response, error) {
		return c.api.PullRequests.List(ctx, c.owner, c.name, &gh.PullRequestListOptions{
			State: "open", Head: c.owner + ":" + seam.LearningsBranch, Base: base})
	})
	if err != nil {
		return nil, err
	}
	for _, p := range pulls {
		if p.GetHead().GetRef() == seam.LearningsBranch && p.GetBase().GetRef() == base && p.GetState() == "open" {
			return p, nil
		}
	}
	return nil, nil
}

// branchAt makes branch start at base's head: created, or moved there
// when a branch of a pull request closed earlier is left.
func (c *client) branchAt(ctx context.Context, branch, base string) error {
	ref, _, err := call(ctx, c, "reading branch "+base, func() (*gh.Reference, *gh.Response, error) {
		return c.api.Git.GetRef(ctx, c.owner, c.name, "heads/"+base)
	})
	if err != nil {
		return err
	}
	sha := ref.GetObject().GetSHA()
	if !seam.SHA().MatchString(sha) || len(sha) < 40 {
		return fmt.Errorf("reading branch %s: GitHub named %q, which is not a commit SHA", base, text.OneLine(sha, 80))
	}
	_, resp, err := call(ctx, c, "creating branch "+branch, func() (*gh.Reference, *gh.Response, error) {
		return c.api.Git.CreateRef(ctx, c.owner, c.name, gh.CreateRef{Ref: "refs/heads/" + branch, SHA: sha})
	})
	if err == nil || resp == nil || resp.StatusCode != http.StatusUnprocessableEntity {
		return err
	}
	// It exists: no pull request is open from it, so it is left from one
	// closed or merged; it starts again at base.
	_, _, err = call(ctx, c, "moving branch "+branch+" to "+base, func() (*gh.Reference, *gh.Response, error) {
		return c.api.Git.UpdateRef(ctx, c.owner, c.name, "heads/"+branch, gh.UpdateRef{SHA: sha, Force: gh.Ptr(true)})
	})
	return err
}

// fileAt reads a file at ref: its content and blob SHA, nil and "" when
// there is none.
func (c *client) fileAt(ctx context.Context, path, ref string) ([]byte, string, error) {
	var f *gh.RepositoryContent
	_, resp, err := call(ctx, c, "reading "+path+" on "+ref, func() (*gh.RepositoryContent, *gh.Response, error) {
		var r *gh.Response
		var e error
		f, _, r, e = c.api.Repositories.GetContents(ctx, c.owner, c.name, path, &gh.RepositoryContentGetOptions{Ref: ref})
		return f, r, e
	})
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	if f == nil || f.GetType() != "file" {
		return nil, "", fmt.Errorf("reading %s on %s: GitHub's answer is not a file", path, ref)
	}
	if f.GetSize() > learn.MaxSize {
		return nil, "", fmt.Errorf("reading %s on %s: %w", path, ref, learn.ErrTooLarge)
	}
	s, err := f.GetContent()
	if err != nil {
		return nil, "", fmt.Errorf("reading %s on %s: %v", path, ref, err)
	}
	if len(s) > learn.MaxSize {
		return nil, "", fmt.Errorf("reading %s on %s: %w", path, ref, learn.ErrTooLarge)
	}
	sha := f.GetSHA()
	if !seam.SHA().MatchString(sha) || strings.TrimSpace(sha) == "" {
		return nil, "", errors.New("reading " + path + ": GitHub named a blob SHA that is not one")
	}
	return []byte(s), sha, nil
}
