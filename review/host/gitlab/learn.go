package gitlab

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/learn"
)

// ProposeLearning adds l to the team's learnings in the one merge request
// that proposes them (seam.LearningsBranch into base, titled
// seam.LearningsTitle): it opens it when none is open, from a branch made
// afresh at base, else commits to its branch. Nothing is learned until a
// maintainer merges it. It returns the merge request's address and the
// number the learning takes.
func (p *Poster) ProposeLearning(ctx context.Context, base string, l learn.Learning) (string, int, error) {
	c, err := newClient(p.Options, "")
	if err != nil {
		return "", 0, err
	}
	if !seam.Branch(base) {
		return "", 0, fmt.Errorf("proposing a learning: %q is not a branch", text.OneLine(base, 80))
	}
	project := "/projects/" + url.PathEscape(p.Options.Project)
	branch := seam.LearningsBranch
	var open []learningsMR
	if _, err := c.Call(ctx, seam.Request{Op: "looking for the merge request of the learnings", Method: http.MethodGet, Path: project + "/merge_requests",
		Query: url.Values{"state": {"opened"}, "source_branch": {branch}, "target_branch": {base}}, Out: &open}); err != nil {
		return "", 0, err
	}
	var mr *learningsMR
	for i := range open {
		if open[i].SourceBranch == branch && open[i].TargetBranch == base && open[i].State == "opened" {
			mr = &open[i]
			break
		}
	}
	if mr == nil {
		if err := c.branchAt(ctx, project, branch, base); err != nil {
			return "", 0, err
		}
	}
	data, exists, err := c.fileAt(ctx, project, learn.Path, branch)
	if err != nil {
		return "", 0, err
	}
	out, n, err := learn.Append(data, l)
	if err != nil {
		return "", 0, fmt.Errorf("proposing a learning: %s on branch %s: %w", learn.Path, branch, err)
	}
	method := http.MethodPost
	if exists {
		method = http.MethodPut
	}
	commit := map[string]string{"branch": branch, "content": string(out), "commit_message": fmt.Sprintf("review: learning %d, %s", n, text.OneLine(l.Rule, 60))}
	if _, err := c.Call(ctx, seam.Request{Op: "committing to branch " + branch, Method: method, Path: project + "/repository/files/" + url.PathEscape(learn.Path), Body: commit}); err != nil {
		return "", 0, err
	}
	if mr != nil {
		return mr.WebURL, n, nil
	}
	var made learningsMR
	if _, err := c.Call(ctx, seam.Request{Op: "opening the merge request of the learnings", Method: http.MethodPost, Path: project + "/merge_requests",
		Body: map[string]any{"source_branch": branch, "target_branch": base, "title": seam.LearningsTitle, "description": seam.LearningsBody, "remove_source_branch": true}, Out: &made}); err != nil {
		return "", 0, err
	}
	return made.WebURL, n, nil
}

// learningsMR is what a proposal reads of a merge request.
type learningsMR struct {
	IID          int64  `json:"iid"`
	State        string `json:"state"`
	SourceBranch string `json:"source_branch"`
	TargetBranch string `json:"target_branch"`
	WebURL       string `json:"web_url"`
}

// branchAt makes branch start at base: created, or deleted and created
// again when a branch of a merge request closed earlier is left.
func (c *client) branchAt(ctx context.Context, project, branch, base string) error {
	create := seam.Request{Op: "creating branch " + branch, Method: http.MethodPost, Path: project + "/repository/branches",
		Query: url.Values{"branch": {branch}, "ref": {base}}}
	_, err := c.Call(ctx, create)
	if err == nil || seam.StatusOf(err) != http.StatusBadRequest {
		return err
	}
	if _, err := c.Call(ctx, seam.Request{Op: "deleting the stale branch " + branch, Method: http.MethodDelete, Path: project + "/repository/branches/" + url.PathEscape(branch)}); err != nil {
		return err
	}
	_, err = c.Call(ctx, create)
	return err
}

// fileAt reads a file at ref, and whether it exists.
func (c *client) fileAt(ctx context.Context, project, path, ref string) ([]byte, bool, error) {
	var f struct {
		Size     int    `json:"size"`
		Encoding string `json:"encoding"`
		Content  string `json:"content"`
	}
	_, err := c.Call(ctx, seam.Request{Op: "reading " + path + " on " + ref, Method: http.MethodGet, Path: project + "/repository/files/" + url.PathEscape(path),
		Query: url.Values{"ref": {ref}}, Out: &f})
	if seam.StatusOf(err) == http.StatusNotFound {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if f.Size > learn.MaxSize || len(f.Content) > 2*learn.MaxSize {
		return nil, false, fmt.Errorf("reading %s on %s: %w", path, ref, learn.ErrTooLarge)
	}
	if f.Encoding != "base64" {
		return nil, false, fmt.Errorf("reading %s on %s: GitLab answered encoding %q, not base64", path, ref, text.OneLine(f.Encoding, 40))
	}
	data, err := base64.StdEncoding.DecodeString(f.Content)
	if err != nil || len(data) > learn.MaxSize {
		return nil, false, fmt.Errorf("reading %s on %s: GitLab's content is not base64 of at most %d KiB", path, ref, learn.MaxSize>>10)
	}
	return data, true, nil
}
