package seam

import (
	"context"
	"fmt"
	"net/http"
	"regexp"

	"github.com/reviewdev/review/review/learn"
	"github.com/reviewdev/review/review/result"
)

// Host is one place review posts to, as cmd's table of --post names holds
// it: how its CI is told apart, the flags that name a change outside it,
// the poster of a change, and how it reads a comment that asks review to
// act. A host package exports one; adding a host is its package and one
// row in that table, with no branch anywhere else.
type Host struct {
	// Name is the --post value: "github", "gitlab".
	Name string
	// CI reports whether getenv is the environment of a job of this
	// host's CI, and the branch a change there is reviewed against by
	// default, as origin/<branch> ("" when the job names none). cmd asks
	// each host in the table's order, once, and hands the answer down.
	CI func(getenv func(string) string) (base string, ok bool)
	// Mimics names the host whose CI this host's CI also looks like to
	// that host's CI (Gitea Actions sets GITHUB_ACTIONS=true): when both
	// tell their CI, this host's wins.
	Mimics string
	// WorkflowCommands says the CI's runner reads a step's output for
	// workflow commands ("::…"), as GitHub Actions and the runners that
	// follow it do: what review prints there is kept from acting.
	WorkflowCommands bool
	// Flags name the change where the CI's variables do not.
	Flags []Flag
	// About says what is posted, for the help of the flags.
	About About
	// Open makes the poster of the change s names, checking what it
	// needs. It runs before the review: what is missing fails fast, not
	// after a paid model run.
	Open func(s Setup) (Target, error)
	// Comment reads the comment its CI was started by (review comment);
	// nil when the host's CI cannot be started by a comment, and
	// NoComment then says what can be done instead.
	Comment   func(ctx context.Context, s Setup) (*Comment, error)
	NoComment string
	// Thread is the form of the ID of a thread an answer may be posted
	// in (compiled at its first use, lazy.Regexp); ThreadWhat says what it
	// is and how to give it, after "is not".
	Thread     func() *regexp.Regexp
	ThreadWhat string
}

// Flag is a flag of a host: its name without dashes, and its help, which
// says the variable it defaults to.
type Flag struct {
	Name, Usage string
}

// About says what a host's poster posts, in the words of the help of the
// flags that post.
type About struct {
	// Review is what --post posts for a review, Answer for an answer,
	// and Thread what names a thread.
	Review, Answer, Thread string
}

// Setup is what a host's constructor is handed: the environment, read
// once at the edge and passed as data, and what the command decided.
type Setup struct {
	// Getenv reads the job's environment.
	Getenv func(string) string
	// InCI says the run is in this host's CI, as cmd decided.
	InCI bool
	// Flags are the values of the host's flags, by name; "" is not given.
	Flags map[string]string
	// HTTPClient sends the requests (it counts them for the run's egress
	// record); nil means the host's own.
	HTTPClient *http.Client
	// Anchor, if set, is the code a finding is on (Anchor), which the
	// marker of its comment carries for the ledger.
	Anchor func(result.Finding) string
}

// Target is a host's poster, with what the command needs around it.
type Target struct {
	Poster Poster
	// Noun is what the host calls the change: "pull request", "merge
	// request".
	Noun string
	// Head is the change's head commit as the CI names it, when the
	// commit checked out may be another (a merge commit); "" is the
	// revision reviewed.
	Head string
}

// Comment is a comment that may ask review to act, as a host's CI hands
// it to a job, with what the command needs of the host to act on it.
type Comment struct {
	// Body is the comment's text.
	Body string
	// Action is what happened to the comment, when the event says:
	// anything but "created" is not acted on.
	Action string
	// Target names the change, for messages ("pull request #7"), and
	// Noun what the host calls a change.
	Target, Noun string
	// Trusted says the author may run commands; Author is their login,
	// and Who says who they are to the repository when they may not.
	Trusted     bool
	Author, Who string
	// Thread is the thread the comment is in, which replies go to; ""
	// for none.
	Thread string
	// Head and Base are the change's head commit and target branch, when
	// the event names them.
	Head, Base string
	// FetchRef is where the host keeps the change's head commit.
	FetchRef string
	// Flags name the change for the review or answer the comment starts
	// (the host's flags, by name).
	Flags map[string]string
	// Conversation acts in the change's conversation; nil when the
	// comment holds no command, and nothing was asked of the host.
	Conversation Conversation
}

// Conversation is what review comment does in a change's conversation,
// beyond posting a review.
type Conversation interface {
	// Reply posts body in the thread to, or as a comment of its own.
	Reply(ctx context.Context, to, body string) (string, error)
	// Refused reports whether review told the change already who may run
	// commands (it says so once).
	Refused(ctx context.Context) (bool, error)
	// Change reads the change's head commit and target branch.
	Change(ctx context.Context) (head, base string, err error)
	// Start reads the first comment of thread id.
	Start(ctx context.Context, id string) (ThreadStart, error)
	// ResolveThread resolves thread id, as review.
	ResolveThread(ctx context.Context, id string) error
}

// Proposer is a Conversation that can propose a team learning: it adds l
// to the one pull request (merge request) that proposes learnings into
// base (LearningsBranch, LearningsTitle), opening it when none is open,
// and returns its address and the number l takes.
type Proposer interface {
	ProposeLearning(ctx context.Context, base string, l learn.Learning) (url string, n int, err error)
}

// ThreadStart is the first comment of a thread: a finding review posted,
// when Ours.
type ThreadStart struct {
	Body, Path string
	Line       int
	Ours       bool
	// Fingerprint is the finding's, when Ours.
	Fingerprint string
}

// NeedError says what a host's poster needs that the environment did not
// give: a variable, or a flag of the host instead. cmd words it with the
// flags.
type NeedError struct {
	// Host is the host's name.
	Host string
	// What is what is needed, and where it comes from.
	What string
	// Flag, if set, is the host's flag that gives it instead, and
	// FlagNote what to give there.
	Flag, FlagNote string
}

func (e *NeedError) Error() string {
	s := fmt.Sprintf("posting to %s needs %s", e.Host, e.What)
	if e.Flag != "" {
		s += ", or the flag " + e.Flag + e.FlagNote
	}
	return s
}

// ValueError is a value of a variable, or of a host's flag, that cannot
// name what it should. cmd words it with the flags.
type ValueError struct {
	// Var is the variable, "" when the value came from Flag.
	Var, Flag string
	Value     string
	// Why says what it is not, after "is not"; Do what to do in the CI.
	Why, Do string
}

func (e *ValueError) Error() string {
	if e.Var == "" {
		return fmt.Sprintf("the flag %s's %q is not %s", e.Flag, e.Value, e.Why)
	}
	return fmt.Sprintf("%s %q is not %s: %s", e.Var, e.Value, e.Why, e.Do)
}
