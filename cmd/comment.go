package cmd

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/github"
	"github.com/reviewdev/review/review/post"
	"github.com/reviewdev/review/toolmem"
)

// CommentOptions are the settings of `review comment`.
type CommentOptions struct {
	IO     *IOStreams
	Getenv func(string) string
	Dir    string
	agentFlags
}

// NewCmdComment builds `review comment`, which does what a pull request's
// comment asks.
func NewCmdComment(f *Factory, runF func(*CommentOptions) error) *cobra.Command {
	opts := &CommentOptions{IO: f.IO, Getenv: f.Getenv, Dir: f.Dir}
	c := &cobra.Command{
		Use:   "comment",
		Short: "Do what a /review comment on a pull request asks (GitHub Actions)",
		Long: `comment reads the comment event GitHub Actions provides (issue_comment or
pull_request_review_comment, at $GITHUB_EVENT_PATH) and does what its first line
asks:

  /review                   review the pull request again, the commits since the
                            last review only, and post the review
  /review ask <question>    answer in the conversation of the pull request's last
                            review, with its tool memory: in a finding's thread,
                            about that finding, as a reply there
  /review help              list the commands

Only the repository's owners, members and collaborators (the comment's
author_association) can run a command: anyone else gets no run, no model call and
no use of the model's key, and once per pull request a short reply saying who
can. A comment without a command does nothing. It needs GITHUB_TOKEN (pull
requests, issues and statuses: write) and, for a review or an answer, the model's
settings as review does; the pull request's head commit must be fetched (the
documented workflow fetches refs/pull/N/head; it never checks out the head's
files).`,
		Example: `  # in a workflow on issue_comment and pull_request_review_comment:
  review comment`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runComment(c.Context(), opts)
		},
	}
	opts.agentFlags.register(c.Flags())
	return c
}

func runComment(ctx context.Context, opts *CommentOptions) error {
	getenv := opts.Getenv
	ev, err := github.ReadCommentEvent(getenv("GITHUB_EVENT_PATH"))
	if err != nil {
		return err
	}
	if ev.Action != "" && ev.Action != "created" {
		fmt.Fprintf(opts.IO.Info(), "review: the comment was %s, not created: nothing to do\n", text.OneLine(ev.Action, 40))
		return nil
	}
	command, ok := post.ParseCommand(ev.Body)
	if !ok {
		fmt.Fprintln(opts.IO.Info(), "review: the comment holds no /review command: nothing to do")
		return nil
	}
	gh, err := githubTargetFrom(getenv)
	if err != nil {
		return err
	}
	po := github.PostOptions{APIURL: gh.api, Token: gh.token, Repo: gh.repo, PR: ev.PR}
	conv, err := github.OpenConversation(po)
	if err != nil {
		return err
	}
	target := fmt.Sprintf("pull request #%d", ev.PR)
	if !post.Trusted(ev.Association) {
		return refuse(ctx, opts, conv, ev, target)
	}
	switch command.Name {
	case "review":
		return commentReview(ctx, opts, conv, ev)
	case "ask":
		if command.Question == "" {
			return replyHelp(ctx, opts, conv, ev, "`/review ask` needs a question after it.")
		}
		return commentAsk(ctx, opts, conv, ev, command.Question)
	case "dismiss":
		return replyHelp(ctx, opts, conv, ev, "`/review dismiss` is not a command here yet.")
	}
	note := ""
	if command.Unknown != "" {
		note = fmt.Sprintf("`/review %s` is not a command.", text.OneLine(strings.Trim(command.Unknown, "`"), 40))
	}
	return replyHelp(ctx, opts, conv, ev, note)
}

// refuse answers a command from someone who may not run one: nothing is
// run, and the pull request is told once who can.
func refuse(ctx context.Context, opts *CommentOptions, conv *github.Conversation, ev github.CommentEvent, target string) error {
	assoc := strings.ToLower(ev.Association)
	if assoc == "" {
		assoc = "none"
	}
	fmt.Fprintf(opts.IO.Info(), "review: %s's association with the repository is %s: only owners, members and collaborators can run /review commands; nothing was run\n", text.OneLine(ev.Author, 60), assoc)
	done, err := conv.Refused(ctx)
	if err != nil || done {
		return err
	}
	body := post.RefusedMarker + "\n" + "Only the repository's owners, members and collaborators can run `/review` commands, so nothing was run. (This is said once per pull request.)"
	url, err := conv.Reply(ctx, 0, body)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Info(), "review: told %s who can run commands: %s\n", target, url)
	return nil
}

// replyHelp answers with the list of commands, where the comment was made.
func replyHelp(ctx context.Context, opts *CommentOptions, conv *github.Conversation, ev github.CommentEvent, note string) error {
	body := post.HelpMarker + "\n"
	if note != "" {
		body += note + "\n\n"
	}
	url, err := conv.Reply(ctx, ev.Thread, body+post.CommandsHelp)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Info(), "review: posted the list of commands: %s\n", url)
	return nil
}

// commentReview reviews the pull request again as a push would: against
// its base, from the head of the last review posted.
func commentReview(ctx context.Context, opts *CommentOptions, conv *github.Conversation, ev github.CommentEvent) error {
	ro, err := reviewOptionsFor(ctx, opts, conv, ev)
	if err != nil {
		return err
	}
	return runReview(ctx, ro)
}

// reviewOptionsFor is `review --post github` of the pull request a
// comment is on, its head fetched when it is not here.
func reviewOptionsFor(ctx context.Context, opts *CommentOptions, conv *github.Conversation, ev github.CommentEvent) (*ReviewOptions, error) {
	head, base := ev.HeadSHA, ev.BaseRef
	if head == "" || base == "" {
		pr, err := conv.PullRequest(ctx)
		if err != nil {
			return nil, err
		}
		head, base = pr.HeadSHA, pr.BaseRef
	}
	if err := fetchHead(ctx, opts.Dir, ev.PR, head); err != nil {
		return nil, err
	}
	return &ReviewOptions{IO: opts.IO, Getenv: opts.Getenv, Dir: opts.Dir, Base: "origin/" + base, Head: head,
		Post: "github", agentFlags: opts.agentFlags}, nil
}

// fetchHead makes sure the pull request's head commit is here: an
// issue_comment workflow checks out the default branch. Only the commit
// is fetched (refs/pull/N/head, as GitHub keeps it for forks too); no
// file of it is checked out, so nothing from a fork runs.
func fetchHead(ctx context.Context, dir string, pr int, head string) error {
	if exec.CommandContext(ctx, "git", "-C", dir, "cat-file", "-e", head+"^{commit}").Run() == nil {
		return nil
	}
	ref := "+refs/pull/" + strconv.Itoa(pr) + "/head:refs/remotes/origin/pr/" + strconv.Itoa(pr)
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "fetch", "--no-tags", "origin", ref).CombinedOutput()
	if err != nil {
		return fmt.Errorf("cannot fetch the pull request's head %s: git fetch origin refs/pull/%d/head: %s; fetch it in the workflow before review comment", text.ShortSHA(head), pr, text.OneLine(string(out), 300))
	}
	return nil
}

// commentAsk answers a question in the conversation of the pull request's
// last review: in the thread it was asked in (with the finding there), or
// as a comment. With no review in the store (a missing cache), the pull
// request is reviewed first, and the reply says so.
func commentAsk(ctx context.Context, opts *CommentOptions, conv *github.Conversation, ev github.CommentEvent, question string) error {
	ao := &AskOptions{IO: opts.IO, Getenv: opts.Getenv, Dir: opts.Dir, Summarize: "rules", Format: "markdown",
		Post: "github", agentFlags: opts.agentFlags, quote: question}
	if ev.Thread > 0 {
		ao.ReplyTo = strconv.FormatInt(ev.Thread, 10)
	}
	set, err := ao.resolve(opts.Getenv, opts.Dir)
	if err != nil {
		return err
	}
	run, err := lastReview(set.Store, opts.Getenv, opts.Dir, opts)
	if err != nil {
		return err
	}
	var notes []string
	if run == "" {
		ro, err := reviewOptionsFor(ctx, opts, conv, ev)
		if err != nil {
			return err
		}
		if err := runReview(ctx, ro); err != nil && !isGateOrIncomplete(err) {
			return err
		}
		if run, err = lastReview(set.Store, opts.Getenv, opts.Dir, opts); err != nil || run == "" {
			return fmt.Errorf("the pull request was reviewed, but its run is not in the store: %v", err)
		}
		notes = append(notes, "No earlier review of this pull request was in the store (the workflow's cache was empty), so it was reviewed afresh first.")
	}
	ao.RunID, ao.Question = run, question
	if ev.Thread > 0 {
		t, err := conv.Thread(ctx, ev.Thread)
		if err != nil {
			return err
		}
		if t.Ours {
			ao.Question = threadQuestion(ctx, opts.Dir, t, question)
			notes = append(notes, fmt.Sprintf("About the finding at `%s:%d`.", text.OneLine(t.Path, 200), t.Line))
		}
	}
	ao.threadNote = strings.Join(notes, " ")
	return runAsk(ctx, ao)
}

// threadQuestion is a question asked in a finding's thread, with the
// finding as it was posted and the lines it names at the head: the model
// answers about that finding, with its evidence in front of it.
func threadQuestion(ctx context.Context, dir string, t github.ThreadStart, q string) string {
	body := t.Body
	if i := strings.Index(body, "-->"); strings.HasPrefix(body, "<!--") && i >= 0 {
		body = strings.TrimSpace(body[i+3:])
	}
	var b strings.Builder
	fmt.Fprintf(&b, "This question is about the finding posted at %s:%d:\n\n%s\n\n", t.Path, t.Line, body)
	if lines := headLines(ctx, dir, t.Path, t.Line); lines != "" {
		fmt.Fprintf(&b, "The lines around it, at the pull request's head:\n\n```\n%s\n```\n\n", lines)
	}
	b.WriteString("Question: " + q)
	return b.String()
}

// headLines are lines line-3..line+3 of path at HEAD, numbered, or "".
func headLines(ctx context.Context, dir, path string, line int) string {
	if path == "" || line <= 0 {
		return ""
	}
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "show", "HEAD:"+path).Output()
	if err != nil {
		return ""
	}
	lines := strings.Split(string(out), "\n")
	var b strings.Builder
	for n := max(line-3, 1); n <= min(line+3, len(lines)); n++ {
		fmt.Fprintf(&b, "%d: %s\n", n, lines[n-1])
	}
	return strings.TrimRight(b.String(), "\n")
}

// lastReview is the ID of the newest finished run in the store, "" when
// there is none (a fresh store: the workflow's cache was missing).
func lastReview(flag string, getenv func(string) string, dir string, opts *CommentOptions) (string, error) {
	st, err := readStore(flag, getenv, dir, opts.IO.ErrOut)
	if err != nil {
		return "", nil // no store yet
	}
	defer st.Close()
	runs, err := st.Runs()
	if err != nil {
		return "", err
	}
	runs = slices.DeleteFunc(runs, func(r toolmem.Run) bool { return r.Status == "running" })
	if len(runs) == 0 {
		return "", nil
	}
	newest := slices.MaxFunc(runs, func(a, b toolmem.Run) int { return a.Started.Compare(b.Started) })
	return newest.ID, nil
}

// isGateOrIncomplete reports whether a review's error only says how it
// went (findings at --fail-on, an incomplete review), with its run made.
func isGateOrIncomplete(err error) bool {
	return errors.Is(err, errFindings) || errors.Is(err, errIncomplete)
}
