package gitlab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
)

// NoteEvent is a note on a merge request, as GitLab's note webhook sends
// it; a pipeline trigger called as the webhook gets it in the file
// $TRIGGER_PAYLOAD names.
type NoteEvent struct {
	Project string // the project's ID
	MR      int    // the merge request's IID
	NoteID  int64
	// Discussion is the note's discussion: replies go there.
	Discussion string
	Body       string
	AuthorID   int64
	Author     string
	// HeadSHA is the merge request's last commit; BaseRef its target
	// branch.
	HeadSHA, BaseRef string
}

// ReadNoteEvent reads a note webhook's payload from the file at path.
func ReadNoteEvent(path string) (NoteEvent, error) {
	if path == "" {
		return NoteEvent{}, errors.New("no GitLab note event: TRIGGER_PAYLOAD is not set; call the pipeline trigger as a webhook on comments, which passes the note's event in it")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		// GitLab passes the payload as a file variable: its value is the
		// file's path. As a plain variable it would be the JSON itself.
		if strings.HasPrefix(strings.TrimSpace(path), "{") {
			raw = []byte(path)
		} else {
			return NoteEvent{}, fmt.Errorf("cannot read the GitLab note event: %w", err)
		}
	}
	var ev struct {
		Kind string `json:"object_kind"`
		User struct {
			ID       int64  `json:"id"`
			Username string `json:"username"`
		} `json:"user"`
		ProjectID int64 `json:"project_id"`
		Attrs     struct {
			ID           int64  `json:"id"`
			Note         string `json:"note"`
			NoteableType string `json:"noteable_type"`
			DiscussionID string `json:"discussion_id"`
		} `json:"object_attributes"`
		MR *struct {
			IID          int    `json:"iid"`
			TargetBranch string `json:"target_branch"`
			LastCommit   struct {
				ID string `json:"id"`
			} `json:"last_commit"`
		} `json:"merge_request"`
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		return NoteEvent{}, fmt.Errorf("the GitLab note event is not valid JSON (%v)", err)
	}
	switch {
	case ev.Kind != "note":
		return NoteEvent{}, fmt.Errorf("the GitLab event is %q, not a note: call the trigger from a webhook on comments", text.OneLine(ev.Kind, 40))
	case ev.Attrs.NoteableType != "MergeRequest" || ev.MR == nil || ev.MR.IID <= 0:
		return NoteEvent{}, errors.New("the GitLab note is not on a merge request: there is nothing to review")
	case ev.ProjectID <= 0 || ev.User.ID <= 0:
		return NoteEvent{}, errors.New("the GitLab note event names no project or no author")
	}
	n := NoteEvent{Project: strconv.FormatInt(ev.ProjectID, 10), MR: ev.MR.IID, NoteID: ev.Attrs.ID, Body: ev.Attrs.Note,
		AuthorID: ev.User.ID, Author: ev.User.Username, HeadSHA: strings.ToLower(ev.MR.LastCommit.ID), BaseRef: ev.MR.TargetBranch}
	if d := ev.Attrs.DiscussionID; discussionID().MatchString(d) {
		n.Discussion = d
	}
	if n.HeadSHA != "" && (!seam.SHA().MatchString(n.HeadSHA) || len(n.HeadSHA) < 40) {
		return NoteEvent{}, fmt.Errorf("the GitLab note event names head %q, which is not a commit SHA", text.OneLine(n.HeadSHA, 80))
	}
	return n, nil
}

// Developer is GitLab's access level of a Developer; Maintainer and Owner
// are above it.
const Developer = 30

// AccessLevel is the access level the user with ID id has on the project,
// inherited ones included; 0 when the user is not a member.
func (p *Poster) AccessLevel(ctx context.Context, id int64) (int, error) {
	c, err := newClient(p.Options, "")
	if err != nil {
		return 0, err
	}
	var m struct {
		AccessLevel int `json:"access_level"`
	}
	_, err = c.Call(ctx, seam.Request{Op: fmt.Sprintf("reading the access of user %d to %s", id, p.Options.Project), Method: http.MethodGet,
		Path: "/projects/" + url.PathEscape(p.Options.Project) + "/members/all/" + strconv.FormatInt(id, 10), Out: &m})
	if seam.StatusOf(err) == http.StatusNotFound {
		return 0, nil
	}
	return m.AccessLevel, err
}

// Thread is the first note of a discussion: its body and place, and
// whether review wrote it (a finding).
type Thread = seam.ThreadStart

// Discussion reads the first note of a discussion of the merge request.
func (p *Poster) Discussion(ctx context.Context, id string) (Thread, error) {
	if !discussionID().MatchString(id) {
		return Thread{}, fmt.Errorf("%q is not a discussion ID", text.OneLine(id, 80))
	}
	c, err := newClient(p.Options, "")
	if err != nil {
		return Thread{}, err
	}
	var d struct {
		Notes []note `json:"notes"`
	}
	if _, err := c.Call(ctx, seam.Request{Op: "reading discussion " + id[:8] + " of " + c.mrName, Method: http.MethodGet,
		Path: c.mrPath + "/discussions/" + id, Out: &d}); err != nil {
		return Thread{}, err
	}
	if len(d.Notes) == 0 {
		return Thread{}, nil
	}
	n := d.Notes[0]
	t := Thread{Body: n.Body}
	if n.Position != nil {
		t.Path, t.Line = n.Position.NewPath, n.Position.NewLine
	}
	var me user
	if _, err := c.Call(ctx, seam.Request{Op: "asking who the token belongs to", Method: http.MethodGet, Path: "/user", Out: &me}); err != nil {
		return Thread{}, err
	}
	if fp, _, ok := seam.ReadCommentMarker(n.Body); ok && n.Author.ID == me.ID {
		t.Ours, t.Fingerprint = true, fp
	}
	return t, nil
}

// Refused reports whether review already told the merge request who may
// run its commands (once per merge request).
func (p *Poster) Refused(ctx context.Context) (bool, error) {
	c, err := newClient(p.Options, "")
	if err != nil {
		return false, err
	}
	var me user
	if _, err := c.Call(ctx, seam.Request{Op: "asking who the token belongs to", Method: http.MethodGet, Path: "/user", Out: &me}); err != nil {
		return false, err
	}
	return c.hasNote(ctx, func(n note) bool { return n.Author.ID == me.ID && strings.HasPrefix(n.Body, seam.RefusedMarker) })
}
