package github

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	gh "github.com/google/go-github/v84/github"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
)

// The ledger on GitHub (see seam.Reconcile). A finding's thread is the
// review comment review posted on its line and the replies under it.
// Whether a person resolved it, and the thread's node ID that resolving
// it needs, only GitHub's GraphQL API says (pullRequest.reviewThreads);
// a 👎 is a reaction "-1" on the comment (REST); a /review dismiss is
// review's own reply in the thread, which carries seam.DismissMarker; a
// thread review resolved as fixed has its reply with seam.FixedMarker.

// threadsQuery lists a pull request's review threads, a page of 100:
// whether each is resolved and by whom, whether GitHub shows it outdated,
// and its first comment's REST ID, which ties it to a finding's comment.
const threadsQuery = `query($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes {
          id
          isResolved
          isOutdated
          resolvedBy { login }
          comments(first: 1) { nodes { databaseId } }
        }
      }
    }
  }
}`

// resolveMutation resolves a review thread by its node ID.
const resolveMutation = `mutation($threadId: ID!) {
  resolveReviewThread(input: {threadId: $threadId}) { thread { id isResolved } }
}`

type graphQLRequest struct {
	Query     string         `json:"query"`
	Variables map[string]any `json:"variables"`
}

type graphQLError struct {
	Message string `json:"message"`
}

// reviewThread is a review thread as threadsQuery reads it.
type reviewThread struct {
	ID         string `json:"id"`
	IsResolved bool   `json:"isResolved"`
	IsOutdated bool   `json:"isOutdated"`
	ResolvedBy *struct {
		Login string `json:"login"`
	} `json:"resolvedBy"`
	Comments struct {
		Nodes []struct {
			DatabaseID int64 `json:"databaseId"`
		} `json:"nodes"`
	} `json:"comments"`
}

// graphQL sends one GraphQL request to the API's GraphQL endpoint: /graphql
// next to the REST root on github.com, /api/graphql next to /api/v3 on
// GitHub Enterprise Server. GraphQL reports most failures in "errors"
// with a 200: they are errors here too.
func (c *client) graphQL(ctx context.Context, op, query string, vars map[string]any, out any) error {
	var resp struct {
		Data   any            `json:"data"`
		Errors []graphQLError `json:"errors"`
	}
	resp.Data = out
	_, _, err := call(ctx, c, op, func() (struct{}, *gh.Response, error) {
		req, err := c.api.NewRequest("POST", "../graphql", graphQLRequest{Query: query, Variables: vars})
		if err != nil {
			return struct{}{}, nil, err
		}
		r, err := c.api.Do(ctx, req, &resp)
		return struct{}{}, r, err
	})
	if err != nil {
		return err
	}
	if len(resp.Errors) > 0 {
		return fmt.Errorf("%s: GitHub's GraphQL API answered: %s", op, text.OneLine(resp.Errors[0].Message, 300))
	}
	return nil
}

// reviewThreads reads every review thread of the pull request, by the
// REST ID of its first comment.
func (c *client) reviewThreads(ctx context.Context) (map[int64]reviewThread, error) {
	owner, _ := url.PathUnescape(c.owner)
	name, _ := url.PathUnescape(c.name)
	out := map[int64]reviewThread{}
	vars := map[string]any{"owner": owner, "name": name, "number": c.pr, "after": nil}
	for page := 0; page < maxListPages; page++ {
		var data struct {
			Repository *struct {
				PullRequest *struct {
					ReviewThreads struct {
						PageInfo struct {
							HasNextPage bool   `json:"hasNextPage"`
							EndCursor   string `json:"endCursor"`
						} `json:"pageInfo"`
						Nodes []reviewThread `json:"nodes"`
					} `json:"reviewThreads"`
				} `json:"pullRequest"`
			} `json:"repository"`
		}
		if err := c.graphQL(ctx, "listing the review threads of "+c.prName, threadsQuery, vars, &data); err != nil {
			return nil, err
		}
		if data.Repository == nil || data.Repository.PullRequest == nil {
			return nil, fmt.Errorf("listing the review threads of %s: GitHub's GraphQL API knows no such pull request", c.prName)
		}
		rt := data.Repository.PullRequest.ReviewThreads
		for _, t := range rt.Nodes {
			if len(t.Comments.Nodes) > 0 {
				out[t.Comments.Nodes[0].DatabaseID] = t
			}
		}
		if !rt.PageInfo.HasNextPage {
			return out, nil
		}
		vars["after"] = rt.PageInfo.EndCursor
	}
	return nil, fmt.Errorf("listing the review threads of %s: more than %d pages; GitHub's pagination did not end", c.prName, maxListPages)
}

// threads reads the ledger's threads from the pull request's review
// comments (listed already): each finding's comment by a trusted author,
// with its thread's state, its replies' markers and its 👎s.
func (c *client) threads(ctx context.Context, comments []*gh.PullRequestComment) ([]seam.Thread, error) {
	ts, fixedByUs := c.threadStarts(comments)
	if len(ts) == 0 {
		return nil, nil
	}
	// GitHub lists each comment with the rollup of its reactions: only
	// a comment with a 👎 has its reactions read, to learn who gave it.
	down := map[int64]int{}
	for _, cm := range comments {
		if cm.Reactions != nil {
			down[cm.GetID()] = cm.Reactions.GetMinusOne()
		}
	}
	rts, err := c.reviewThreads(ctx)
	if err != nil {
		return nil, err
	}
	for i := range ts {
		t := &ts[i]
		id, _ := strconv.ParseInt(t.ReplyTo, 10, 64)
		if rt, ok := rts[id]; ok {
			t.ID, t.Resolved, t.Outdated = rt.ID, rt.IsResolved, t.Outdated || rt.IsOutdated
			if rt.ResolvedBy != nil {
				t.ResolvedBy = rt.ResolvedBy.Login
			}
			t.ResolvedByUs = t.Resolved && fixedByUs[i]
			t.Reopened = !t.Resolved && fixedByUs[i]
		}
		if n, rolled := down[id]; t.Dismissed != "" || t.Resolved || rolled && n == 0 {
			continue
		}
		who, err := c.thumbsDown(ctx, id)
		if err != nil {
			return nil, err
		}
		if who != "" {
			t.Dismissed = seam.ThumbsDownWhy(who)
		}
	}
	return ts, nil
}

// threadStarts reads the findings' comments among a pull request's
// review comments, and which of their threads review said were fixed.
func (c *client) threadStarts(comments []*gh.PullRequestComment) ([]seam.Thread, map[int]bool) {
	var ts []seam.Thread
	at := map[int64]int{}
	for _, cm := range comments {
		if cm.InReplyTo != nil || !c.trusted(cm.User) {
			continue
		}
		fp, run, code, ok := seam.ReadThreadMarker(cm.GetBody())
		if !ok {
			continue
		}
		_, sev, _ := seam.ReadCommentMarker(cm.GetBody())
		line := cm.GetLine()
		if line == 0 {
			line = cm.GetOriginalLine() // outdated: the line it was posted on
		}
		at[cm.GetID()] = len(ts)
		ts = append(ts, seam.Thread{
			Fingerprint: fp, Run: run, Code: code, Severity: sev,
			Path: cm.GetPath(), Line: line, URL: cm.GetHTMLURL(),
			ReplyTo:  strconv.FormatInt(cm.GetID(), 10),
			Outdated: cm.Line == nil && cm.Position == nil,
			Rule:     seam.ReadRule(cm.GetBody()),
		})
	}
	if len(ts) == 0 {
		return nil, nil
	}
	fixedByUs := map[int]bool{}
	for _, cm := range comments {
		i, ok := at[cm.GetInReplyTo()]
		if !ok || !c.trusted(cm.User) {
			continue
		}
		if fp, who, ok := seam.ReadDismissMarker(cm.GetBody()); ok && fp == ts[i].Fingerprint && ts[i].Dismissed == "" {
			ts[i].Dismissed = seam.DismissWhy(who)
		}
		if strings.HasPrefix(cm.GetBody(), seam.FixedMarker(ts[i].Fingerprint)) {
			fixedByUs[i] = true
		}
	}
	return ts, fixedByUs
}

// thumbsDown is the login of the first person with write access who
// reacted 👎 to a review comment, or "".
func (c *client) thumbsDown(ctx context.Context, id int64) (string, error) {
	rs, err := collect(ctx, c, "listing the reactions to a review comment of "+c.prName, func(o gh.ListOptions) ([]*gh.Reaction, *gh.Response, error) {
		return c.api.Reactions.ListPullRequestCommentReactions(ctx, c.owner, c.name, id, &gh.ListReactionOptions{Content: "-1", ListOptions: o})
	})
	if err != nil {
		return "", err
	}
	for _, r := range rs {
		if r.GetContent() == "-1" && r.User != nil && r.User.GetType() != "Bot" && c.canWrite(ctx, r.User.GetLogin()) {
			return r.User.GetLogin(), nil
		}
	}
	return "", nil
}

// canWrite reports whether login may write to the repository (admin,
// maintain or write): only such a person's 👎 dismisses a finding, as only
// they may run /review commands; anyone may react on a public
// repository. A login GitHub will not say anything about may not.
func (c *client) canWrite(ctx context.Context, login string) bool {
	if login == "" {
		return false
	}
	p, _, err := call(ctx, c, "reading the permission of "+login+" on "+c.prName, func() (*gh.RepositoryPermissionLevel, *gh.Response, error) {
		return c.api.Repositories.GetPermissionLevel(ctx, c.owner, c.name, login)
	})
	if err != nil {
		return false
	}
	switch p.GetPermission() {
	case "admin", "maintain", "write":
		return true
	}
	return false
}

// Resolve resolves the thread of a fixed finding: a reply saying so (which
// the next review reads), then GitHub's resolveReviewThread.
func (p *Poster) Resolve(ctx context.Context, t seam.Thread) error {
	if t.ID == "" {
		return fmt.Errorf("cannot resolve the thread of %s:%d: GitHub did not name it", text.OneLine(t.Path, 200), t.Line)
	}
	v, err := OpenConversation(p.Options)
	if err != nil {
		return err
	}
	c := v.c
	ctx, cancel := c.bound(ctx, p.Options)
	defer cancel()
	if to, err := strconv.ParseInt(t.ReplyTo, 10, 64); err == nil && to > 0 {
		body := seam.FixedMarker(t.Fingerprint) + "\n" + seam.FixedReply(p.Options.HeadSHA)
		if _, err := v.Reply(ctx, to, body); err != nil {
			return err
		}
	}
	var out struct {
		ResolveReviewThread struct {
			Thread struct {
				IsResolved bool `json:"isResolved"`
			} `json:"thread"`
		} `json:"resolveReviewThread"`
	}
	return c.graphQL(ctx, "resolving a review thread of "+c.prName, resolveMutation, map[string]any{"threadId": t.ID}, &out)
}

// ResolveThread resolves the review thread whose first comment has the
// REST ID first, as review: what /review dismiss does after its reply.
func (p *Poster) ResolveThread(ctx context.Context, first int64) error {
	v, err := OpenConversation(p.Options)
	if err != nil {
		return err
	}
	c := v.c
	ctx, cancel := c.bound(ctx, p.Options)
	defer cancel()
	rts, err := c.reviewThreads(ctx)
	if err != nil {
		return err
	}
	rt, ok := rts[first]
	if !ok {
		return fmt.Errorf("resolving a review thread of %s: GitHub lists no thread that starts with comment %d", c.prName, first)
	}
	if rt.IsResolved {
		return nil
	}
	var out struct{}
	return c.graphQL(ctx, "resolving a review thread of "+c.prName, resolveMutation, map[string]any{"threadId": rt.ID}, &out)
}
