package seam

import "strings"

// A command in a pull-request or merge-request comment: a line starting
// with "/review", as the comment's first non-empty line.
type Command struct {
	// Name is "review" (review the change again), "ask", "help",
	// "dismiss" or "learn"; Unknown holds the word when it is none of
	// them.
	Name    string
	Unknown string
	// Question is what follows "/review ask": the rest of the comment.
	Question string
	// Text is what follows "/review learn" (the rule) or "/review
	// dismiss" (the reason, which proposes a learning): the rest of the
	// comment, on one line.
	Text string
}

// Commands people may write, for help and for the reply to an unknown one.
const CommandsHelp = "Commands (the comment's first line):\n\n" +
	"- `/review` reviews the change again, the commits since the last review only.\n" +
	"- `/review ask <question>` answers in the conversation of the last review, with its tool memory; in a finding's thread the question is about that finding.\n" +
	"- `/review dismiss [reason]`, in a finding's thread, keeps the finding from being posted again; with a reason, it also proposes the reason as a team learning.\n" +
	"- `/review learn <rule>` proposes a team learning: review adds it to `.review/learnings.md` in one pull request for a maintainer to merge.\n" +
	"- `/review help` lists these commands.\n\n" +
	"Only the repository's owners, members and collaborators can run them."

// ParseCommand reads the command a comment holds; ok is false when its
// first non-empty line does not start with "/review".
func ParseCommand(body string) (c Command, ok bool) {
	body = strings.TrimLeft(strings.ReplaceAll(body, "\r\n", "\n"), " \t\n")
	first, more, _ := strings.Cut(body, "\n")
	first = strings.TrimSpace(first)
	rest, found := strings.CutPrefix(first, "/review")
	if !found || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
		return Command{}, false
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return Command{Name: "review"}, true
	}
	switch w := strings.ToLower(fields[0]); w {
	case "ask":
		q := strings.TrimSpace(strings.TrimSpace(rest)[len(fields[0]):])
		if m := strings.TrimSpace(more); m != "" {
			q = strings.TrimSpace(q + "\n" + m)
		}
		return Command{Name: "ask", Question: q}, true
	case "learn", "dismiss":
		t := strings.TrimSpace(strings.TrimSpace(rest)[len(fields[0]):])
		if m := strings.TrimSpace(more); m != "" {
			t = strings.TrimSpace(t + " " + m)
		}
		return Command{Name: w, Text: strings.Join(strings.Fields(t), " ")}, true
	case "help":
		return Command{Name: w}, true
	default:
		return Command{Name: "help", Unknown: fields[0]}, true
	}
}

// Trusted reports whether an author association (GitHub's
// author_association) may run commands: the repository's owner, its
// organisation's members and its collaborators. Anyone else — a
// contributor, a first-time one, or nobody known — runs nothing, so that
// no stranger spends the model's key.
func Trusted(association string) bool {
	switch strings.ToUpper(association) {
	case "OWNER", "MEMBER", "COLLABORATOR":
		return true
	}
	return false
}

// Markers of the replies review posts, read back only at the start of a
// body review wrote (see ReadReviewMarker).
const (
	AnswerMarkerPrefix = "<!-- review:answer "
	RefusedMarker      = "<!-- review:refused -->"
	HelpMarker         = "<!-- review:help -->"
)

// AnswerMarker starts an answer posted in a pull request.
func AnswerMarker(run string) string {
	return AnswerMarkerPrefix + "run=" + strings.TrimSpace(run) + " -->"
}

// The one pull request (merge request) that proposes the team's
// learnings: review commits each /review learn to its branch, and opens it
// when none is open. Nothing is learned until a maintainer merges it.
const (
	LearningsBranch = "review/learnings"
	LearningsTitle  = "review: learnings"
	LearningsBody   = "Learnings proposed in pull-request comments with `/review learn` and `/review dismiss <reason>`, each with where it came from. " +
		"Reviews read `.review/learnings.md` from the base branch, so nothing here steers a review until it is merged: edit or drop what the team does not agree with."
)

// Branch reports whether name can be a branch a host was asked about: no
// white space, none of git's forbidden characters, not empty or long.
func Branch(name string) bool {
	return name != "" && len(name) <= 255 && !strings.ContainsAny(name, " \t\n:~^?*[\\") && !strings.Contains(name, "..")
}
