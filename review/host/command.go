package host

import "strings"

// A command in a pull-request or merge-request comment: a line starting
// with "/review", as the comment's first non-empty line.
type Command struct {
	// Name is "review" (review the change again), "ask", "help" or
	// "dismiss"; Unknown holds the word when it is none of them.
	Name    string
	Unknown string
	// Question is what follows "/review ask": the rest of the comment.
	Question string
}

// Commands people may write, for help and for the reply to an unknown one.
const CommandsHelp = "Commands (the comment's first line):\n\n" +
	"- `/review` reviews the change again, the commits since the last review only.\n" +
	"- `/review ask <question>` answers in the conversation of the last review, with its tool memory; in a finding's thread the question is about that finding.\n" +
	"- `/review dismiss`, in a finding's thread, keeps the finding from being posted again.\n" +
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
	case "help", "dismiss":
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
