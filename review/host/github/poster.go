package github

import (
	"context"
	"fmt"
	"strconv"

	"github.com/reviewdev/review/diffctx"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/result"
)

// Poster posts to one pull request: the seam.Poster of GitHub. What
// Earlier reads of the pull request (the token's login, its reviews and
// comments), Post does not ask again.
type Poster struct {
	Options PostOptions

	read pullRead
	// Anchor, if set, is the code a finding is on (seam.Anchor), which
	// its comment's marker carries for the ledger.
	Anchor func(result.Finding) string
}

var _ seam.Poster = (*Poster)(nil)

// Target names the pull request.
func (p *Poster) Target() string { return fmt.Sprintf("pull request #%d", p.Options.PR) }

// Earlier reads what earlier runs posted on the pull request (ReadEarlier).
func (p *Poster) Earlier(ctx context.Context) (seam.Earlier, error) {
	return readEarlier(ctx, p.Options, &p.read)
}

// Post posts the findings as one pull-request review (Post).
func (p *Poster) Post(ctx context.Context, r *result.Result, d *diffctx.Diff) (seam.Report, error) {
	rep, err := postReview(ctx, r, d, p.Options, &p.read, p.Anchor)
	return seam.Report{
		URL: rep.URL, Skipped: rep.Skipped, Inline: rep.Inline, InBody: rep.InBody,
		Repeated: rep.Repeated, Fallback: rep.Fallback, Body: "body",
	}, err
}

// Reply posts body in the pull request: under the review comment thread
// whose first comment's ID is to, or in its conversation when to is "".
func (p *Poster) Reply(ctx context.Context, to, body string) (string, error) {
	var thread int64
	if to != "" {
		n, err := strconv.ParseInt(to, 10, 64)
		if err != nil || n <= 0 {
			return "", fmt.Errorf("cannot reply on GitHub: %q is not the ID of a thread's first comment on a line", text.OneLine(to, 80))
		}
		thread = n
	}
	v, err := OpenConversation(p.Options)
	if err != nil {
		return "", err
	}
	ctx, cancel := v.c.bound(ctx, p.Options)
	defer cancel()
	return v.Reply(ctx, thread, body)
}

// SetStatus sets the commit status of context "review" on sha.
func (p *Poster) SetStatus(ctx context.Context, sha string, s result.Status) error {
	v, err := OpenConversation(p.Options)
	if err != nil {
		return err
	}
	ctx, cancel := v.c.bound(ctx, p.Options)
	defer cancel()
	return v.SetStatus(ctx, sha, s)
}
