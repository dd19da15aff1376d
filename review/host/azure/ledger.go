package azure

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
)

// The ledger on Azure DevOps (see seam.Reconcile). A finding's thread is
// the thread review started on its line; what a person decided is the
// thread's status (GitPullRequestCommentThread.status), as the pull
// request's page sets it: Active and Pending leave the finding open;
// Resolved (fixed) and Closed resolve it, Won't fix (wontFix) and By
// design (byDesign) dismiss it, and either way it is never posted again.
// A fixed finding's thread review answers with a reply (seam.FixedMarker)
// and sets to fixed itself: a thread that is fixed with that reply was
// resolved by review, and one active again after it was reopened by a
// person. Azure DevOps has no reactions on comments (a like is not a 👎)
// and no comment starts a pipeline, so a thread's status is the one way
// to dismiss a finding.

// statusNames are the names the pull request's page gives the statuses
// that close a thread.
var statusNames = map[string]string{"fixed": "Resolved", "closed": "Closed", "wontFix": "Won't fix", "byDesign": "By design"}

// ledger reads the ledger's threads from the threads of findings the
// token started (listed already in st).
func ledger(st *prState) []seam.Thread {
	var ts []seam.Thread
	for _, at := range st.findings {
		first := at.first()
		fp, run, code, ok := seam.ReadThreadMarker(first.Content)
		if !ok {
			continue
		}
		_, sev, _ := seam.ReadCommentMarker(first.Content)
		t := seam.Thread{
			Fingerprint: fp, Run: run, Code: code, Severity: sev,
			Path: at.path(), Line: at.line(), URL: threadURL(st.web, at.ID),
			ID: strconv.FormatInt(at.ID, 10), ReplyTo: strconv.FormatInt(at.ID, 10),
			Rule: seam.ReadRule(first.Content),
		}
		fixedByUs := false
		for _, cm := range at.Comments {
			if cm.by(st.me) && strings.HasPrefix(cm.Content, seam.FixedMarker(fp)) {
				fixedByUs = true
			}
		}
		name, closed := statusNames[at.Status]
		switch {
		case closed && fixedByUs && at.Status == "fixed":
			t.Resolved, t.ResolvedByUs = true, true
		case closed:
			// The thread's answer does not say who set its status.
			t.Resolved, t.Dismissed = true, "thread set to "+name
		case fixedByUs:
			t.Reopened = true
		}
		ts = append(ts, t)
	}
	return ts
}

// Resolve resolves the thread of a fixed finding: a reply saying why,
// then the thread's status set to fixed (Resolved on the pull request's
// page).
func (p *Poster) Resolve(ctx context.Context, t seam.Thread) error {
	c, err := newClient(p.Options, "")
	if err != nil {
		return err
	}
	id, err := parseID(t.ReplyTo)
	if err != nil {
		return fmt.Errorf("cannot resolve the thread of %s:%d: Azure DevOps did not name it", text.OneLine(t.Path, 200), t.Line)
	}
	head := ""
	if seam.FullSHA(p.Options.HeadSHA) {
		head = p.Options.HeadSHA
	}
	if err := c.comment(ctx, id, seam.FixedMarker(t.Fingerprint)+"\n"+seam.FixedReply(head)); err != nil {
		return err
	}
	return c.call(ctx, seam.Request{Op: "resolving a thread of " + c.prName, Method: http.MethodPatch,
		Path: c.prPath + "/threads/" + strconv.FormatInt(id, 10), Body: map[string]string{"status": "fixed"}})
}

// wordJoiner goes between the "@" and "<" of what would be a mention.
const wordJoiner = "\u2060"

// inert keeps every body review posts from mentioning anyone by Azure
// DevOps' rule (hosttest.AzureMentions): a mention is "@<" and an
// identity's ID, closed by ">", read in the comment's text as stored,
// code blocks and spans included, so seam.Neutralize's "<" written as its
// entity outside code is not enough. A word joiner after each "@" that a
// "<" follows leaves no "@<" anywhere; it is invisible on the page.
func inert(s string) string { return strings.ReplaceAll(s, "@<", "@"+wordJoiner+"<") }
