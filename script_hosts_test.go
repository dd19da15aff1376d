package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/reviewdev/review/review/host/hosttest"
	"github.com/reviewdev/review/review/scripttest"
)

// The script commands of the hosts review posts to: each starts one of
// hosttest's scripted servers, writes an event file its CI would hand a
// job, or does in a thread what a person does there.

// hostCmds are the commands of this file, for scriptCmds.
func hostCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"ghevent":         cmdGHEvent,
		"ghcomment":       cmdGHComment,
		"glnote":          cmdGLNote,
		"gldiscussion":    cmdGLDiscussion,
		"ghthread":        cmdGHThread,
		"glthread":        cmdGLThread,
		"githubserver":    cmdGitHubServer,
		"gitlabserver":    cmdGitLabServer,
		"giteaserver":     cmdGiteaServer,
		"giteacomment":    cmdGiteaComment,
		"giteathread":     cmdGiteaThread,
		"bitbucketserver": cmdBitbucketServer,
		"bbthread":        cmdBBThread,
		"azureserver":     cmdAzureServer,
		"azurethread":     cmdAzureThread,
		"quickactions":    cmdQuickActions,
		"mentions":        cmdMentions,
		"hostfile":        cmdHostFile,
	}
}

// The scripted servers, by script, for the commands that act on them.
var (
	ghServers sync.Map // *testscript.TestScript → *hosttest.GitHub
	glServers sync.Map // *testscript.TestScript → *hosttest.GitLab
	gtServers sync.Map // *testscript.TestScript → *hosttest.Gitea
	bbServers sync.Map // *testscript.TestScript → *hosttest.Bitbucket
	azServers sync.Map // *testscript.TestScript → *hosttest.Azure
)

// ghevent writes the pull_request event GitHub Actions would put at
// $GITHUB_EVENT_PATH for pull request n, with the current HEAD as its head
// commit, and sets $HEAD_SHA: `ghevent file n`.
func cmdGHEvent(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: ghevent file n")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	head := strings.TrimSpace(scripttest.Git(ts, "rev-parse", "HEAD"))
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), hosttest.GitHubPREvent(n, head), 0o644))
	ts.Setenv("HEAD_SHA", head)
}

// ghcomment writes the comment event GitHub Actions would put at
// $GITHUB_EVENT_PATH: an issue_comment on pull request n, or with -thread
// a pull_request_review_comment replying in the thread whose first
// comment has that ID (the event then carries the pull request's head, the
// current HEAD, and base main): `ghcomment [-assoc A] [-author L]
// [-thread ID] [-action created] file n body`.
func cmdGHComment(ts *testscript.TestScript, neg bool, args []string) {
	fl := flag.NewFlagSet("ghcomment", flag.ContinueOnError)
	assoc := fl.String("assoc", "COLLABORATOR", "the author's author_association")
	author := fl.String("author", "carol", "the author's login")
	thread := fl.Int64("thread", 0, "the review comment thread replied in")
	action := fl.String("action", "created", "the event's action")
	if neg || fl.Parse(args) != nil || fl.NArg() != 3 {
		ts.Fatalf("usage: ghcomment [-assoc A] [-author L] [-thread ID] [-action created] file n body")
	}
	n, err := strconv.Atoi(fl.Arg(1))
	ts.Check(err)
	c := hosttest.GitHubComment{PR: n, Body: fl.Arg(2), Author: *author, Assoc: *assoc, Action: *action, Thread: *thread}
	if c.Thread > 0 {
		c.Head = strings.TrimSpace(scripttest.Git(ts, "rev-parse", "HEAD"))
	}
	ts.Check(os.WriteFile(ts.MkAbs(fl.Arg(0)), c.Event(), 0o644))
}

// glnote writes the note event GitLab's webhook sends for a comment on
// merge request iid of project 7, by user id, with the current HEAD as
// the merge request's last commit and main as its target; -discussion
// puts it in that discussion: `glnote [-user id] [-discussion ID] file iid body`.
func cmdGLNote(ts *testscript.TestScript, neg bool, args []string) {
	fl := flag.NewFlagSet("glnote", flag.ContinueOnError)
	user := fl.Int64("user", 5, "the author's user ID")
	discussion := fl.String("discussion", "", "the discussion the note is in")
	if neg || fl.Parse(args) != nil || fl.NArg() != 3 {
		ts.Fatalf("usage: glnote [-user id] [-discussion ID] file iid body")
	}
	iid, err := strconv.Atoi(fl.Arg(1))
	ts.Check(err)
	head := strings.TrimSpace(scripttest.Git(ts, "rev-parse", "HEAD"))
	ts.Check(os.WriteFile(ts.MkAbs(fl.Arg(0)), hosttest.GitLabNoteEvent(iid, *user, *discussion, fl.Arg(2), head), 0o644))
}

// githubserver starts hosttest.GitHub for the rest of the script and
// points GITHUB_API_URL at it (under /api/v3, as on GitHub Enterprise):
// `githubserver [-record dir] [-token T] [-readonly] [-head SHA]`. A token
// other than T (default ghs_scripttoken) gets 401; with -readonly it
// refuses to create a review (403), as GitHub does a fork's read-only
// token; -head is the pull requests' head commit, as GET .../pulls/{n}
// answers it. dir receives each request as gh-NNN.json and a line per
// request in requests.log.
func cmdGitHubServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! githubserver")
	}
	fl := flag.NewFlagSet("githubserver", flag.ContinueOnError)
	record := fl.String("record", "", "directory to record requests in")
	token := fl.String("token", "ghs_scripttoken", "the token the server accepts")
	readOnly := fl.Bool("readonly", false, "refuse to create reviews with 403, as for the read-only token of a pull request from a fork")
	head := fl.String("head", "", "the pull requests' head commit, as GET .../pulls/{n} answers it")
	files := fl.String("files", "", "files of the repository's main branch the contents API serves: path=localfile,...")
	if err := fl.Parse(args); err != nil || fl.NArg() != 0 {
		ts.Fatalf("usage: githubserver [-record dir] [-token T] [-readonly] [-head SHA] [-files path=file,...]")
	}
	g := &hosttest.GitHub{Token: *token, ReadOnly: *readOnly, Head: *head, Files: hostFiles(ts, *files)}
	if *record != "" {
		g.Dir = ts.MkAbs(*record)
		ts.Check(os.MkdirAll(g.Dir, 0o755))
	}
	api, stop := g.Start()
	ts.Defer(stop)
	ghServers.Store(ts, g)
	ts.Setenv("GITHUB_API_URL", api)
}

// gitlabserver starts hosttest.GitLab for the rest of the script and
// points CI_API_V4_URL at it: `gitlabserver [-record dir] [-token T]
// [-readonly] [-redirect] [-ratelimit] [-members id=level,...]`: merge
// requests with two diff versions (the newest with base, start and head
// SHAs bbbb…, 5555…, 2222…), notes two a page, discussions and notes
// posted and kept. A token other than T (default glpat-scripttoken) gets
// 401; with -readonly every post gets 403; with -redirect the versions are
// answered by a second host, after a 302, which logs in dir/other.log
// whether a token came; with -ratelimit the first discussion gets 429 with
// Retry-After: 0. dir receives each request as gl-NNN.json and a line per
// request in requests.log.
func cmdGitLabServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! gitlabserver")
	}
	fl := flag.NewFlagSet("gitlabserver", flag.ContinueOnError)
	record := fl.String("record", "", "directory to record requests in")
	token := fl.String("token", "glpat-scripttoken", "the token the server accepts")
	readOnly := fl.Bool("readonly", false, "refuse every post with 403")
	redirect := fl.Bool("redirect", false, "answer the versions from a second host, after a redirect")
	limit := fl.Bool("ratelimit", false, "answer the first discussion 429")
	members := fl.String("members", "", "users' access levels, as id=level,...")
	files := fl.String("files", "", "files of the repository's main branch the files API serves: path=localfile,...")
	if err := fl.Parse(args); err != nil || fl.NArg() != 0 {
		ts.Fatalf("usage: gitlabserver [-record dir] [-token T] [-readonly] [-redirect] [-ratelimit] [-members id=level,...] [-files path=file,...]")
	}
	g := &hosttest.GitLab{Token: *token, ReadOnly: *readOnly, RateLimited: *limit, Members: glMembers(ts, *members), Files: hostFiles(ts, *files)}
	glServers.Store(ts, g)
	if *record != "" {
		g.Dir = ts.MkAbs(*record)
		ts.Check(os.MkdirAll(g.Dir, 0o755))
	}
	api, stop := g.Start(*redirect)
	ts.Defer(stop)
	ts.Setenv("CI_API_V4_URL", api)
}

// glMembers reads gitlabserver's -members: id=level,...
func glMembers(ts *testscript.TestScript, spec string) map[int64]int {
	m := map[int64]int{}
	for _, kv := range strings.FieldsFunc(spec, func(r rune) bool { return r == ',' }) {
		k, v, ok := strings.Cut(kv, "=")
		id, err1 := strconv.ParseInt(k, 10, 64)
		level, err2 := strconv.Atoi(v)
		if !ok || err1 != nil || err2 != nil {
			ts.Fatalf("gitlabserver -members %q: want id=level,...", spec)
		}
		m[id] = level
	}
	return m
}

// gldiscussion sets $NAME to the ID of the nth discussion (1-based) of
// merge request project!iid on the script's GitLab server: `gldiscussion
// NAME project iid n`.
func cmdGLDiscussion(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: gldiscussion NAME project iid n")
	}
	v, ok := glServers.Load(ts)
	if !ok {
		ts.Fatalf("gldiscussion: no gitlabserver in this script")
	}
	iid, err := strconv.Atoi(args[2])
	ts.Check(err)
	n, err := strconv.Atoi(args[3])
	ts.Check(err)
	ids := v.(*hosttest.GitLab).Discussions(args[1], iid)
	if n < 1 || n > len(ids) {
		ts.Fatalf("merge request %s!%d has %d discussions", args[1], iid, len(ids))
	}
	ts.Setenv(args[0], ids[n-1])
}

// ghthread does, on the scripted GitHub server, what a person does in the
// nth thread (1-based) review started on pull request pr: resolve it, or
// react 👎 to its comment, as login; or sets $NAME to its first comment's
// ID: `ghthread resolve|thumbsdown pr n login` or `ghthread id NAME pr n`.
// `ghthread resolved pr n` prints who resolved it, or "open"; `ghthread
// reopen pr n` reopens it.
func cmdGHThread(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: ghthread resolve|thumbsdown pr n login | ghthread id NAME pr n | ghthread resolved|reopen pr n")
	}
	v, ok := ghServers.Load(ts)
	if !ok {
		ts.Fatalf("ghthread: no githubserver in this script")
	}
	g := v.(*hosttest.GitHub)
	op, rest := args[0], args[1:]
	name := ""
	if op == "id" {
		if len(rest) != 3 {
			ts.Fatalf("usage: ghthread id NAME pr n")
		}
		name, rest = rest[0], rest[1:]
	}
	pr := rest[0]
	n, err := strconv.Atoi(rest[1])
	ts.Check(err)
	starts := g.Threads(pr)
	if n < 1 || n > len(starts) {
		ts.Fatalf("ghthread: pull request #%s has %d threads review started", pr, len(starts))
	}
	id := starts[n-1]
	switch op {
	case "id":
		ts.Setenv(name, strconv.FormatInt(id, 10))
	case "resolved":
		fmt.Fprintln(ts.Stdout(), g.ResolvedBy(id))
	case "reopen":
		g.Resolve(id, "")
	case "resolve", "thumbsdown":
		if len(rest) != 3 {
			ts.Fatalf("usage: ghthread %s pr n login", op)
		}
		if op == "resolve" {
			g.Resolve(id, rest[2])
			return
		}
		g.React(id, rest[2], "-1")
	default:
		ts.Fatalf("ghthread: unknown %q", op)
	}
}

// glthread does, on the scripted GitLab server, what a person does in the
// nth discussion (1-based) of merge request project!iid: resolve it, or
// award 👎 to its first note, as user id; `glthread resolved project iid
// n` prints who resolved it, or "open": `glthread resolve|thumbsdown
// project iid n user`.
func cmdGLThread(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 4 {
		ts.Fatalf("usage: glthread resolve|thumbsdown project iid n user | glthread resolved project iid n")
	}
	v, ok := glServers.Load(ts)
	if !ok {
		ts.Fatalf("glthread: no gitlabserver in this script")
	}
	g := v.(*hosttest.GitLab)
	iid, err := strconv.Atoi(args[2])
	ts.Check(err)
	n, err := strconv.Atoi(args[3])
	ts.Check(err)
	ids := g.Discussions(args[1], iid)
	if n < 1 || n > len(ids) {
		ts.Fatalf("merge request %s!%d has %d discussions", args[1], iid, len(ids))
	}
	switch args[0] {
	case "resolved":
		fmt.Fprintln(ts.Stdout(), g.ResolvedBy(args[1], iid, ids[n-1]))
	case "resolve", "thumbsdown":
		if len(args) != 5 {
			ts.Fatalf("usage: glthread %s project iid n user", args[0])
		}
		user, err := strconv.ParseInt(args[4], 10, 64)
		ts.Check(err)
		if args[0] == "resolve" {
			g.Resolve(args[1], iid, ids[n-1], user)
		} else {
			g.Award(args[1], iid, ids[n-1], user, "thumbsdown")
		}
	default:
		ts.Fatalf("glthread: unknown %q", args[0])
	}
}

// giteaserver starts hosttest.Gitea for the rest of the script and points
// GITHUB_API_URL at it (…/api/v1, as Gitea and Forgejo Actions set it):
// `giteaserver [-record dir] [-token T] [-readonly] [-head SHA] [-fail N]
// [-huge] [-unplaceable]`. A token other than T (default gta_scripttoken)
// gets 401; with -readonly every post gets 403; -head is the pull
// requests' head commit; -fail answers the first N requests 500; -huge
// answers GET /user with 17 MiB; -unplaceable refuses a review with
// comments on lines (422). dir receives each request as gt-NNN.json and a
// line per request in requests.log.
func cmdGiteaServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! giteaserver")
	}
	fl := flag.NewFlagSet("giteaserver", flag.ContinueOnError)
	record := fl.String("record", "", "directory to record requests in")
	g := &hosttest.Gitea{}
	fl.StringVar(&g.Token, "token", "gta_scripttoken", "the token the server accepts")
	fl.BoolVar(&g.ReadOnly, "readonly", false, "refuse every post with 403")
	fl.StringVar(&g.Head, "head", "", "the pull requests' head commit")
	fl.IntVar(&g.Fail, "fail", 0, "answer the first N requests 500")
	fl.BoolVar(&g.Huge, "huge", false, "answer GET /user with 17 MiB")
	fl.BoolVar(&g.Unplaceable, "unplaceable", false, "refuse a review with comments on lines")
	if err := fl.Parse(args); err != nil || fl.NArg() != 0 {
		ts.Fatalf("usage: giteaserver [-record dir] [-token T] [-readonly] [-head SHA] [-fail N] [-huge] [-unplaceable]")
	}
	if *record != "" {
		g.Dir = ts.MkAbs(*record)
		ts.Check(os.MkdirAll(g.Dir, 0o755))
	}
	api, stop := g.Start()
	ts.Defer(stop)
	gtServers.Store(ts, g)
	ts.Setenv("GITHUB_API_URL", api)
}

// giteacomment writes the issue_comment event Gitea and Forgejo Actions
// put at $GITHUB_EVENT_PATH for a comment on pull request n:
// `giteacomment [-author L] [-action created] file n body`.
func cmdGiteaComment(ts *testscript.TestScript, neg bool, args []string) {
	fl := flag.NewFlagSet("giteacomment", flag.ContinueOnError)
	author := fl.String("author", "carol", "the author's login")
	action := fl.String("action", "created", "the event's action")
	if neg || fl.Parse(args) != nil || fl.NArg() != 3 {
		ts.Fatalf("usage: giteacomment [-author L] [-action created] file n body")
	}
	n, err := strconv.Atoi(fl.Arg(1))
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(fl.Arg(0)), hosttest.GiteaCommentEvent(n, *author, *action, fl.Arg(2)), 0o644))
}

// giteathread does, on the scripted Gitea, what a person does in the nth
// finding's conversation (1-based) review started on pull request pr:
// resolve it, or react 👎 to its comment, as login; `giteathread id NAME
// pr n` sets $NAME to its comment's ID; `giteathread replies pr n` prints
// review's replies in it: `giteathread resolve|thumbsdown pr n login`.
func cmdGiteaThread(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: giteathread resolve|thumbsdown pr n login | giteathread id NAME pr n | giteathread replies pr n")
	}
	v, ok := gtServers.Load(ts)
	if !ok {
		ts.Fatalf("giteathread: no giteaserver in this script")
	}
	g := v.(*hosttest.Gitea)
	op, rest := args[0], args[1:]
	name := ""
	if op == "id" {
		if len(rest) != 3 {
			ts.Fatalf("usage: giteathread id NAME pr n")
		}
		name, rest = rest[0], rest[1:]
	}
	n, err := strconv.Atoi(rest[1])
	ts.Check(err)
	ids := g.Threads(rest[0])
	if n < 1 || n > len(ids) {
		ts.Fatalf("giteathread: pull request #%s has %d threads review started", rest[0], len(ids))
	}
	id := ids[n-1]
	switch op {
	case "id":
		ts.Setenv(name, strconv.FormatInt(id, 10))
	case "replies":
		for _, r := range g.Replies(id) {
			fmt.Fprintln(ts.Stdout(), r)
		}
	case "resolve", "thumbsdown":
		if len(rest) != 3 {
			ts.Fatalf("usage: giteathread %s pr n login", op)
		}
		if op == "resolve" {
			g.Resolve(id, rest[2])
			return
		}
		g.React(id, rest[2], "-1")
	default:
		ts.Fatalf("giteathread: unknown %q", op)
	}
}

// bitbucketserver starts hosttest.Bitbucket for the rest of the script
// and sets $BITBUCKET_API to its root (…/2.0), for --bitbucket-url:
// `bitbucketserver [-record dir] [-token T] [-readonly] [-head SHA] [-fail
// N] [-huge] [-unplaceable]`. A token other than T (default
// bbat_scripttoken) gets 401; with -readonly every post gets 403; -head is
// the pull requests' head commit; -fail answers the first N requests 500;
// -huge answers GET .../pullrequests/{id} with 17 MiB; -unplaceable
// refuses a comment on a line (400). dir receives each request as
// bb-NNN.json and a line per request in requests.log.
func cmdBitbucketServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! bitbucketserver")
	}
	fl := flag.NewFlagSet("bitbucketserver", flag.ContinueOnError)
	record := fl.String("record", "", "directory to record requests in")
	b := &hosttest.Bitbucket{}
	fl.StringVar(&b.Token, "token", "bbat_scripttoken", "the token the server accepts")
	fl.BoolVar(&b.ReadOnly, "readonly", false, "refuse every post with 403")
	fl.StringVar(&b.Head, "head", "", "the pull requests' head commit")
	fl.IntVar(&b.Fail, "fail", 0, "answer the first N requests 500")
	fl.BoolVar(&b.Huge, "huge", false, "answer GET .../pullrequests/{id} with 17 MiB")
	fl.BoolVar(&b.Unplaceable, "unplaceable", false, "refuse a comment on a line")
	if err := fl.Parse(args); err != nil || fl.NArg() != 0 {
		ts.Fatalf("usage: bitbucketserver [-record dir] [-token T] [-readonly] [-head SHA] [-fail N] [-huge] [-unplaceable]")
	}
	if *record != "" {
		b.Dir = ts.MkAbs(*record)
		ts.Check(os.MkdirAll(b.Dir, 0o755))
	}
	api, stop := b.Start()
	ts.Defer(stop)
	bbServers.Store(ts, b)
	ts.Setenv("BITBUCKET_API", api)
}

// bbthread does, on the scripted Bitbucket, what a person does in the nth
// finding's comment (1-based) review posted on pull request pr: resolve
// it as login, or reopen it; `bbthread resolved pr n` prints who resolved
// it, or "open"; `bbthread replies pr n` prints the replies to it:
// `bbthread resolve pr n login | bbthread reopen|resolved|replies pr n`.
func cmdBBThread(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: bbthread resolve pr n login | bbthread reopen|resolved|replies pr n")
	}
	v, ok := bbServers.Load(ts)
	if !ok {
		ts.Fatalf("bbthread: no bitbucketserver in this script")
	}
	b := v.(*hosttest.Bitbucket)
	n, err := strconv.Atoi(args[2])
	ts.Check(err)
	ids := b.Threads(args[1])
	if n < 1 || n > len(ids) {
		ts.Fatalf("bbthread: pull request #%s has %d threads review started", args[1], len(ids))
	}
	id := ids[n-1]
	switch args[0] {
	case "resolve":
		if len(args) != 4 {
			ts.Fatalf("usage: bbthread resolve pr n login")
		}
		b.Resolve(id, args[3])
	case "reopen":
		b.Resolve(id, "")
	case "resolved":
		fmt.Fprintln(ts.Stdout(), b.ResolvedBy(id))
	case "replies":
		for _, r := range b.Replies(id) {
			fmt.Fprintln(ts.Stdout(), r)
		}
	default:
		ts.Fatalf("bbthread: unknown %q", args[0])
	}
}

// azureserver starts hosttest.Azure for the rest of the script and points
// SYSTEM_COLLECTIONURI at it (the organization fabrikam, as Azure
// Pipelines sets it): `azureserver [-record dir] [-token T] [-basic]
// [-readonly] [-head SHA] [-fail N] [-huge] [-unplaceable]`. A token other
// than T (default azp_scripttoken), as a Bearer token or with -basic as a
// personal access token, gets 401; with -readonly every post gets 403;
// -head is the pull requests' source commit; -fail answers the first N
// requests 500 or 503; -huge answers connectionData with 17 MiB;
// -unplaceable refuses a thread on a file's lines (400). dir receives each
// request as az-NNN.json and a line per request in requests.log.
func cmdAzureServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! azureserver")
	}
	fl := flag.NewFlagSet("azureserver", flag.ContinueOnError)
	record := fl.String("record", "", "directory to record requests in")
	a := &hosttest.Azure{}
	fl.StringVar(&a.Token, "token", "azp_scripttoken", "the token the server accepts")
	fl.BoolVar(&a.Basic, "basic", false, "take the token as a personal access token, in Basic")
	fl.BoolVar(&a.ReadOnly, "readonly", false, "refuse every post with 403")
	fl.StringVar(&a.Head, "head", "", "the pull requests' source commit")
	fl.IntVar(&a.Fail, "fail", 0, "answer the first N requests 500 or 503")
	fl.BoolVar(&a.Huge, "huge", false, "answer connectionData with 17 MiB")
	fl.BoolVar(&a.Unplaceable, "unplaceable", false, "refuse a thread on a file's lines")
	if err := fl.Parse(args); err != nil || fl.NArg() != 0 {
		ts.Fatalf("usage: azureserver [-record dir] [-token T] [-basic] [-readonly] [-head SHA] [-fail N] [-huge] [-unplaceable]")
	}
	if *record != "" {
		a.Dir = ts.MkAbs(*record)
		ts.Check(os.MkdirAll(a.Dir, 0o755))
	}
	url, stop := a.Start()
	ts.Defer(stop)
	azServers.Store(ts, a)
	ts.Setenv("SYSTEM_COLLECTIONURI", url)
}

// azurethread does, on the scripted Azure DevOps, what a person does to
// the nth finding's thread (1-based) review started on pull request pr:
// sets its status (active, fixed, closed, wontFix, byDesign, pending);
// `azurethread id NAME pr n` sets $NAME to its ID; `azurethread status pr
// n` prints its status; `azurethread replies pr n` prints the comments
// after its first: `azurethread set pr n STATUS`.
func cmdAzureThread(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: azurethread set pr n STATUS | azurethread id NAME pr n | azurethread status|replies pr n")
	}
	v, ok := azServers.Load(ts)
	if !ok {
		ts.Fatalf("azurethread: no azureserver in this script")
	}
	a := v.(*hosttest.Azure)
	op, rest := args[0], args[1:]
	name := ""
	if op == "id" {
		if len(rest) != 3 {
			ts.Fatalf("usage: azurethread id NAME pr n")
		}
		name, rest = rest[0], rest[1:]
	}
	n, err := strconv.Atoi(rest[1])
	ts.Check(err)
	ids := a.Threads(rest[0])
	if n < 1 || n > len(ids) {
		ts.Fatalf("azurethread: pull request !%s has %d threads review started", rest[0], len(ids))
	}
	id := ids[n-1]
	switch op {
	case "id":
		ts.Setenv(name, strconv.FormatInt(id, 10))
	case "status":
		fmt.Fprintln(ts.Stdout(), a.ThreadStatus(id))
	case "replies":
		for _, r := range a.Replies(id) {
			fmt.Fprintln(ts.Stdout(), r)
		}
	case "set":
		if len(rest) != 3 {
			ts.Fatalf("usage: azurethread set pr n STATUS")
		}
		a.SetThreadStatus(id, rest[2])
	default:
		ts.Fatalf("azurethread: unknown %q", op)
	}
}

// quickactions checks every body a scripted GitLab received (the
// gl-NNN.json files in dir) against GitLab's own grammar in both of its
// generations (hosttest.Commands), and fails on any quick action either
// would run, naming the request; it says how many bodies it read, which
// must not be none: `quickactions dir`.
func cmdQuickActions(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: quickactions dir")
	}
	n := eachBody(ts, args[0], "gl", func(req string, body string) {
		if cmds := hosttest.Commands(body); len(cmds) > 0 {
			ts.Fatalf("%s: GitLab runs %+v in\n%s", req, cmds, body)
		}
	})
	ts.Logf("quickactions: %d bodies, no quick action under either generation", n)
}

// mentions checks every body a scripted GitHub received (the gh-NNN.json
// files in dir, a review's comments included) against GitHub's published
// mention filter (hosttest.Mentions), or with -host gitea every body a
// scripted Gitea received (gt-NNN.json) against Gitea's rule
// (hosttest.GiteaMentions), or with -host bitbucket every raw text a
// scripted Bitbucket received (bb-NNN.json) against Bitbucket's
// (hosttest.BitbucketMentions), or with -host azure every comment's
// content a scripted Azure DevOps received (az-NNN.json) against its rule
// (hosttest.AzureMentions), and fails on anyone it would notify:
// `mentions [-host gitea|bitbucket|azure] dir`.
func cmdMentions(ts *testscript.TestScript, neg bool, args []string) {
	prefix, find := "gh", hosttest.Mentions
	if len(args) == 3 && args[0] == "-host" && args[1] == "gitea" {
		prefix, find, args = "gt", hosttest.GiteaMentions, args[2:]
	}
	if len(args) == 3 && args[0] == "-host" && args[1] == "bitbucket" {
		prefix, find, args = "bb", hosttest.BitbucketMentions, args[2:]
	}
	if len(args) == 3 && args[0] == "-host" && args[1] == "azure" {
		prefix, find, args = "az", hosttest.AzureMentions, args[2:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mentions [-host gitea|bitbucket|azure] dir")
	}
	n := eachBody(ts, args[0], prefix, func(req string, body string) {
		if m := find(body); len(m) > 0 {
			ts.Fatalf("%s: notifies %q for\n%s", req, m, body)
		}
	})
	ts.Logf("mentions: %d bodies, nobody notified", n)
}

// eachBody calls fn with every "body" string of the requests a scripted
// host recorded in dir as prefix-NNN.json, at any depth of their JSON
// (and Bitbucket's texts, Azure DevOps' comments' "content"), and returns
// how many there were, failing when there were none.
func eachBody(ts *testscript.TestScript, dir, prefix string, fn func(req, body string)) int {
	files, err := filepath.Glob(filepath.Join(ts.MkAbs(dir), prefix+"-*.json"))
	ts.Check(err)
	n := 0
	var walk func(req string, v any)
	walk = func(req string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if s, ok := e.(string); ok && (k == "body" || prefix == "bb" && (k == "raw" || k == "summary" || k == "details") || prefix == "az" && k == "content") {
					n++
					fn(req, s)
					continue
				}
				walk(req, e)
			}
		case []any:
			for _, e := range v {
				walk(req, e)
			}
		}
	}
	for _, name := range files {
		var rec struct {
			Method, Path string
			Body         any
		}
		b, err := os.ReadFile(name)
		ts.Check(err)
		if json.Unmarshal(b, &rec) == nil {
			walk(rec.Method+" "+rec.Path, rec.Body)
		}
	}
	if n == 0 {
		ts.Fatalf("no body in %s/%s-*.json", dir, prefix)
	}
	return n
}

// hostFiles reads the -files of a scripted host: path=localfile,...
func hostFiles(ts *testscript.TestScript, spec string) map[string]string {
	if spec == "" {
		return nil
	}
	files := map[string]string{}
	for _, kv := range strings.Split(spec, ",") {
		path, local, ok := strings.Cut(kv, "=")
		if !ok {
			ts.Fatalf("-files: %q is not path=localfile", kv)
		}
		b, err := os.ReadFile(ts.MkAbs(local))
		ts.Check(err)
		files[path] = string(b)
	}
	return files
}

// hostfile writes a file of a branch of the scripted host's repository,
// as review committed it, to a local file, and fails when there is none:
// `hostfile gh|gl branch path out`.
func cmdHostFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: hostfile gh|gl branch path out")
	}
	var (
		s  string
		ok bool
	)
	switch args[0] {
	case "gh":
		v, found := ghServers.Load(ts)
		if !found {
			ts.Fatalf("hostfile: no githubserver in this script")
		}
		s, ok = v.(*hosttest.GitHub).File(args[1], args[2])
	case "gl":
		v, found := glServers.Load(ts)
		if !found {
			ts.Fatalf("hostfile: no gitlabserver in this script")
		}
		s, ok = v.(*hosttest.GitLab).File(args[1], args[2])
	default:
		ts.Fatalf("hostfile: gh or gl, not %q", args[0])
	}
	if !ok {
		ts.Fatalf("hostfile: no %s on branch %s", args[2], args[1])
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[3]), []byte(s), 0o644))
}
