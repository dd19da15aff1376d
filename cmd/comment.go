package cmd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reviewdev/review/internal/git"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/learn"
	"github.com/reviewdev/review/toolmem"
)

// CommentOptions are the settings of `review comment`.
type CommentOptions struct {
	IO     *IOStreams
	Getenv func(string) string
	Dir    string
	Now    func() time.Time
	// Post names the host whose comment it is; "" is the CI's.
	Post string
	agentFlags
}

// NewCmdComment builds `review comment`, which does what a pull request's
// comment asks.
func NewCmdComment(f *Factory, runF func(*CommentOptions) error) *cobra.Command {
	opts := &CommentOptions{IO: f.IO, Getenv: f.Getenv, Dir: f.Dir, Now: f.Now}
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
  /review dismiss           in a finding's thread: never post that finding again
                            on this pull request (the next review reads it there)
  /review help              list the commands

Only the repository's owners, members and collaborators (the comment's
author_association) can run a command: anyone else gets no run, no model call and
no use of the model's key, and once per pull request a short reply saying who
can. A comment without a command does nothing. It needs GITHUB_TOKEN (pull
requests, issues and statuses: write) and, for a review or an answer, the model's
settings as review does; the pull request's head commit must be fetched (the
documented workflow fetches refs/pull/N/head; it never checks out the head's
files).

In Gitea or Forgejo Actions it reads their issue_comment event the same way, and
asks the API whether the author may write to the repository (their events carry
no association); in GitLab CI, the note event a pipeline trigger passes in
TRIGGER_PAYLOAD. Bitbucket Pipelines and Azure Pipelines never start on a
comment: there it stops in one line, saying so. --post names the host when the
run is not in its CI.`,
		Example: `  # in a workflow on issue_comment and pull_request_review_comment:
  review comment`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			opts.ci = ciFrom(opts.Getenv)
			if runF != nil {
				return runF(opts)
			}
			return runComment(c.Context(), opts)
		},
	}
	opts.agentFlags.register(c.Flags())
	c.Flags().StringVar(&opts.Post, "post", "", "the `HOST` the comment is on (default: the CI's)")
	inGroup(c.Flags(), groupOutputs, "post")
	_ = c.RegisterFlagCompletionFunc("post", cobra.FixedCompletions(hostNames(), cobra.ShellCompDirectiveNoFileComp))
	return c
}

// commentHost is a comment that may hold a command, read by the host of
// the CI that ran review comment (its row's Comment), with the host's
// --post name.
type commentHost struct {
	*seam.Comment
	post string
}

func runComment(ctx context.Context, opts *CommentOptions) error {
	name := opts.ci.Host
	if opts.Post != "" {
		if !knownHost(opts.Post) {
			return unknownHost(opts.Post)
		}
		name = opts.Post
	}
	row := commentRow(name)
	if row.Comment == nil {
		return fmt.Errorf("review comment cannot run on %s: %s", row.Name, row.NoComment)
	}
	c, err := row.Comment(ctx, seam.Setup{Getenv: opts.Getenv, InCI: opts.ci.Host == row.Name})
	if err != nil {
		return hostAdvice(err)
	}
	if c.Action != "" && c.Action != "created" {
		fmt.Fprintf(opts.IO.Info(), "review: the comment was %s, not created: nothing to do\n", text.OneLine(c.Action, 40))
		return nil
	}
	h := &commentHost{Comment: c, post: row.Name}
	command, ok := seam.ParseCommand(c.Body)
	if !ok {
		fmt.Fprintln(opts.IO.Info(), "review: the comment holds no /review command: nothing to do")
		return nil
	}
	if !h.Trusted {
		return refuse(ctx, opts, h)
	}
	switch command.Name {
	case "review":
		ro, err := reviewOptionsFor(ctx, opts, h)
		if err != nil {
			return err
		}
		return runReview(ctx, ro)
	case "ask":
		if command.Question == "" {
			return replyHelp(ctx, opts, h, "`/review ask` needs a question after it.")
		}
		return commentAsk(ctx, opts, h, command.Question)
	case "dismiss":
		return commentDismiss(ctx, opts, h, command.Text)
	case "learn":
		if command.Text == "" {
			return replyHelp(ctx, opts, h, "`/review learn` needs the rule after it: `/review learn <what reviews should know>`.")
		}
		return commentLearn(ctx, opts, h, learn.Learning{Rule: command.Text, From: provenance(opts, h, "")})
	}
	note := ""
	if command.Unknown != "" {
		note = fmt.Sprintf("`/review %s` is not a command.", text.OneLine(strings.Trim(command.Unknown, "`"), 40))
	}
	return replyHelp(ctx, opts, h, note)
}

// commentRow is the host that reads the comment: the host whose CI runs
// review comment, else the table's first (GitHub Actions' event file).
func commentRow(ci string) *hostRow {
	if row := hostNamed(ci); row != nil {
		return row
	}
	return &hosts[0]
}

// refuse answers a command from someone who may not run one: nothing is
// run, and the change is told once who can.
func refuse(ctx context.Context, opts *CommentOptions, h *commentHost) error {
	fmt.Fprintf(opts.IO.Info(), "review: %s: only the project's owners, members and collaborators (on GitLab: Developer access or above) can run /review commands; nothing was run\n", h.Who)
	done, err := h.Conversation.Refused(ctx)
	if err != nil || done {
		return err
	}
	body := seam.RefusedMarker + "\n" + "Only the project's owners, members and collaborators (on GitLab: members with Developer access or above) can run `/review` commands, so nothing was run. (This is said once.)"
	url, err := h.Conversation.Reply(ctx, "", body)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Info(), "review: told %s who can run commands: %s\n", h.Target, url)
	return nil
}

// replyHelp answers with the list of commands, where the comment was made.
func replyHelp(ctx context.Context, opts *CommentOptions, h *commentHost, note string) error {
	body := seam.HelpMarker + "\n"
	if note != "" {
		body += note + "\n\n"
	}
	url, err := h.Conversation.Reply(ctx, h.Thread, body+seam.CommandsHelp)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Info(), "review: posted the list of commands: %s\n", url)
	return nil
}

// reviewOptionsFor is `review --post HOST` of the change a comment is on,
// against its target branch, from the head of the last review posted,
// with its head fetched when it is not here.
func reviewOptionsFor(ctx context.Context, opts *CommentOptions, h *commentHost) (*ReviewOptions, error) {
	head, base := h.Head, h.Base
	if head == "" || base == "" {
		var err error
		if head, base, err = h.Conversation.Change(ctx); err != nil {
			return nil, err
		}
	}
	if err := fetchHead(ctx, opts.Dir, h.FetchRef, head); err != nil {
		return nil, err
	}
	ro := &ReviewOptions{IO: opts.IO, Getenv: opts.Getenv, Dir: opts.Dir, Head: head,
		Post: h.post, hostFlags: withHostFlags(h.Flags), agentFlags: opts.agentFlags}
	ro.Base = "origin/" + base
	return ro, nil
}

// fetchHead makes sure the change's head commit is here: a comment's
// workflow checks out the default branch. Only the commit is fetched
// (ref, where the host keeps it, for forks too); no file of it is checked
// out, so nothing from a fork runs.
func fetchHead(ctx context.Context, dir, ref, head string) error {
	g := git.Runner{Dir: dir}
	if _, err := g.Output(ctx, "cat-file", "-e", head+"^{commit}"); err == nil {
		return nil
	}
	local := "refs/remotes/origin/" + strings.TrimPrefix(ref, "refs/")
	if _, err := g.Output(ctx, "fetch", "--no-tags", "origin", "+"+ref+":"+local); err != nil {
		if ctx.Err() != nil {
			return err
		}
		return fmt.Errorf("cannot fetch the change's head %s: git fetch origin %s: %s; fetch it in the job first", text.ShortSHA(head), ref, text.OneLine(gitComplaint(err), 300))
	}
	return nil
}

// commentAsk answers a question in the conversation of the change's last
// review: in the thread it was asked in (with the finding there), or as a
// comment. With no review in the store (a missing cache), the change is
// reviewed first, and the reply says so.
func commentAsk(ctx context.Context, opts *CommentOptions, h *commentHost, question string) error {
	ao := &AskOptions{IO: opts.IO, Getenv: opts.Getenv, Dir: opts.Dir, Summarize: "rules", Format: "markdown",
		Post: h.post, ReplyTo: h.Thread, hostFlags: withHostFlags(h.Flags), agentFlags: opts.agentFlags, quote: question}
	set, err := ao.resolve(opts.Getenv, opts.Dir)
	if err != nil {
		return err
	}
	ro, err := reviewOptionsFor(ctx, opts, h)
	if err != nil {
		return err
	}
	run, err := lastReview(ctx, set.Store, opts.Getenv, opts.Dir, ro.Head, opts)
	if err != nil {
		return err
	}
	var notes []string
	if run == "" {
		// The whole change: a conversation of the commits since the last
		// review posted would know nothing of the rest.
		whole := *ro
		whole.Since = "none"
		if err := runReview(ctx, &whole); err != nil && !isGateOrIncomplete(err) {
			return err
		}
		if run, err = lastReview(ctx, set.Store, opts.Getenv, opts.Dir, ro.Head, opts); err != nil || run == "" {
			return fmt.Errorf("the change was reviewed, but its run is not in the store: %v", err)
		}
		notes = append(notes, "No earlier review of this change was in the store (the cache was empty), so it was reviewed afresh first.")
	}
	ao.RunID, ao.Question = run, question
	if h.Thread != "" {
		t, err := h.Conversation.Start(ctx, h.Thread)
		if err != nil {
			return err
		}
		if t.Ours {
			ao.Question = threadQuestion(ctx, opts.Dir, ro.Head, t, question)
			notes = append(notes, fmt.Sprintf("About the finding at `%s:%d`.", text.OneLine(t.Path, 200), t.Line))
		}
	}
	ao.threadNote = strings.Join(notes, " ")
	return runAsk(ctx, ao)
}

// threadQuestion is a question asked in a finding's thread, with the
// finding as it was posted and the lines it names at the head: the model
// answers about that finding, with its evidence in front of it.
func threadQuestion(ctx context.Context, dir, head string, t seam.ThreadStart, q string) string {
	body := t.Body
	if i := strings.Index(body, "-->"); strings.HasPrefix(body, "<!--") && i >= 0 {
		body = strings.TrimSpace(body[i+3:])
	}
	var b strings.Builder
	fmt.Fprintf(&b, "This question is about the finding posted at %s:%d:\n\n%s\n\n", t.Path, t.Line, body)
	if lines := headLines(ctx, dir, head, t.Path, t.Line); lines != "" {
		fmt.Fprintf(&b, "The lines around it, at the pull request's head:\n\n```\n%s\n```\n\n", lines)
	}
	b.WriteString("Question: " + q)
	return b.String()
}

// headLines are lines line-3..line+3 of path at the change's head,
// numbered, or "".
func headLines(ctx context.Context, dir, head, path string, line int) string {
	if path == "" || line <= 0 || head == "" {
		return ""
	}
	out, err := git.Runner{Dir: dir}.Output(ctx, "show", head+":"+path)
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

// lastReview is the ID of the change's last review in the store: the
// newest finished run of its head, else of a commit before it (a push
// since the review); "" when there is none (a fresh store: the cache was
// missing, or held only other changes' runs).
func lastReview(ctx context.Context, flag string, getenv func(string) string, dir, head string, opts *CommentOptions) (string, error) {
	st, err := peekStore(flag, getenv, dir, opts.IO.ErrOut)
	if err != nil {
		return "", nil // no store yet
	}
	defer st.Close()
	runs, err := st.Runs()
	if err != nil {
		return "", err
	}
	runs = slices.DeleteFunc(runs, func(r toolmem.Run) bool { return r.Status == toolmem.StatusRunning || r.HeadSHA == "" })
	slices.SortFunc(runs, func(a, b toolmem.Run) int { return b.Started.Compare(a.Started) })
	if head == "" {
		if len(runs) > 0 {
			return runs[0].ID, nil
		}
		return "", nil
	}
	for _, r := range runs {
		if strings.EqualFold(r.HeadSHA, head) {
			return r.ID, nil
		}
	}
	for _, r := range runs {
		if _, err := (git.Runner{Dir: dir}).Output(ctx, "merge-base", "--is-ancestor", r.HeadSHA, head); err == nil {
			return r.ID, nil
		}
	}
	return "", nil
}

// isGateOrIncomplete reports whether a review's error only says how it
// went (findings at --fail-on, an incomplete review), with its run made.
func isGateOrIncomplete(err error) bool {
	return errors.Is(err, errFindings) || errors.Is(err, errIncomplete)
}

// commentDismiss records a /review dismiss written in a finding's thread:
// review replies there, and its reply carries the dismissal
// (seam.DismissMarker), which the next review of the change reads: the
// finding is never posted again (see seam.Reconcile); then it resolves
// the thread. Anywhere else the reply says where it works.
func commentDismiss(ctx context.Context, opts *CommentOptions, h *commentHost, reason string) error {
	where := "`/review dismiss` works as a reply in the thread of a finding review posted on a line."
	if h.Thread == "" {
		return replyHelp(ctx, opts, h, where)
	}
	t, err := h.Conversation.Start(ctx, h.Thread)
	if err != nil {
		return err
	}
	if !t.Ours || t.Fingerprint == "" {
		return replyHelp(ctx, opts, h, where+" This thread is not one.")
	}
	body := seam.DismissMarker(t.Fingerprint, h.Author) + "\n" +
		fmt.Sprintf("Dismissed by %s: review will not post this finding (%s) on this %s again.", seam.Code(seam.Login(h.Author)), seam.Code(fmt.Sprintf("%s:%d", text.OneLine(t.Path, 200), t.Line)), h.Noun)
	url, err := h.Conversation.Reply(ctx, h.Thread, body)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Info(), "review: dismissed the finding at %s:%d on %s: %s\n", text.OneLine(t.Path, 200), t.Line, h.Target, url)
	// Resolved, the thread no longer asks for attention (nor blocks a
	// merge that needs every conversation resolved); the dismissal is in
	// the reply either way.
	if err := h.Conversation.ResolveThread(ctx, h.Thread); err != nil {
		fmt.Fprintf(opts.IO.ErrOut, "review: warning: the thread was not resolved: %s\n", text.OneLine(err.Error(), 0))
	}
	if reason == "" {
		return nil
	}
	// A reason is what the team would tell the next review: proposed as
	// a learning for the finding's file, which a maintainer may widen.
	at := fmt.Sprintf("%s:%d", text.OneLine(t.Path, 200), t.Line)
	var paths []string
	if t.Path != "" && !strings.ContainsAny(t.Path, " \t\n,`") {
		paths = []string{t.Path}
	}
	return commentLearn(ctx, opts, h, learn.Learning{Rule: reason, Paths: paths, From: provenance(opts, h, "dismissal of the finding at "+at)})
}

// commentLearn proposes l in the one pull request of the learnings and
// says so where it was asked: nothing is learned until it is merged.
func commentLearn(ctx context.Context, opts *CommentOptions, h *commentHost, l learn.Learning) error {
	p, ok := h.Conversation.(seam.Proposer)
	if !ok {
		return replyHelp(ctx, opts, h, "Proposing learnings is not done on this host yet: add it to `"+learn.Path+"` with `review learn add`.")
	}
	base := h.Base
	if base == "" {
		var err error
		if _, base, err = h.Conversation.Change(ctx); err != nil {
			return err
		}
	}
	url, n, err := p.ProposeLearning(ctx, base, l)
	if err != nil {
		return fmt.Errorf("proposing the learning on %s: %w", h.Target, err)
	}
	body := fmt.Sprintf("Proposed as learning %d of `%s`, in %s into `%s`:\n\n> %s\n\nNothing is learned until a maintainer merges it; reviews read the file from the base branch.",
		n, learn.Path, seam.Link(seam.LearningsTitle, url), seam.NeutralLine(text.OneLine(base, 100)), seam.NeutralLine(text.OneLine(l.Rule, 0)))
	replyURL, err := h.Conversation.Reply(ctx, h.Thread, body)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Info(), "review: proposed learning %d in %s: %s (said at %s)\n", n, text.OneLine(url, 200), text.OneLine(l.Rule, 80), replyURL)
	return nil
}

// provenance is where a learning proposed in a comment came from: the
// change, what led to it, who asked and when.
func provenance(opts *CommentOptions, h *commentHost, what string) string {
	parts := []string{h.Target}
	if what != "" {
		parts = append(parts, what)
	}
	if who := seam.Login(h.Author); who != "" {
		parts = append(parts, "by "+who)
	}
	return strings.Join(append(parts, opts.Now().UTC().Format("2006-01-02")), ", ")
}
