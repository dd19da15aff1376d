package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/report"
	"github.com/reviewdev/review/review/result"
)

// postAnswer posts a follow-up's answer where the question was asked: in
// the thread --reply-to names, or as a comment of its own. The question
// and the answer are neutralised like every text review posts: a question
// quoting "/merge" must not become a quick action in review's own note.
func postAnswer(ctx context.Context, opts *AskOptions, pt *postTarget, ans *result.Answer) error {
	quote := ans.Question
	if opts.quote != "" {
		quote = opts.quote
	}
	body, err := answerBody(ans, quote, opts.threadNote)
	if err != nil {
		return err
	}
	url, err := pt.poster.Reply(ctx, opts.ReplyTo, body)
	if err != nil {
		return fmt.Errorf("posting the answer on %s: %w", pt.poster.Target(), err)
	}
	where := "on " + pt.poster.Target()
	if opts.ReplyTo != "" {
		where = "in a thread of " + pt.poster.Target()
	}
	fmt.Fprintf(opts.IO.Info(), "review: posted the answer %s: %s\n", where, url)
	return nil
}

// checkReplyTo checks --reply-to before the model is asked, against the
// form of a thread's ID on the host: a thread the answer cannot be posted
// in would waste the answer.
func checkReplyTo(name, id string) error {
	row := hostNamed(name)
	if id == "" || row == nil || row.Thread == nil || row.Thread().MatchString(id) {
		return nil
	}
	return usageErrorf("--reply-to %q is not %s", id, row.ThreadWhat)
}

// postEach is every --post, for a message: "--post github or --post
// gitlab".
func postEach() string {
	names := hostNames()
	for i, n := range names {
		names[i] = "--post " + n
	}
	return text.JoinOr(names)
}

// threadHelp says what names a thread on each host, for --reply-to's help.
func threadHelp() string {
	var whats []string
	for _, h := range hosts {
		if h.About.Thread != "" {
			whats = append(whats, h.About.Thread)
		}
	}
	return text.JoinOr(whats)
}

// answerBody is the Markdown of an answer posted in a pull request: the
// marker, the question quoted, a note, and the answer as `review ask`
// writes it in Markdown.
func answerBody(ans *result.Answer, quote, note string) (string, error) {
	md, _ := report.Lookup("markdown", report.Answer)
	var b strings.Builder
	if err := md.WriteAnswer(&b, ans); err != nil {
		return "", err
	}
	var out strings.Builder
	out.WriteString(seam.AnswerMarker(ans.RunID) + "\n")
	for _, line := range strings.Split(strings.TrimSpace(text.Truncate(quote, 2000)), "\n") {
		out.WriteString("> " + seam.NeutralLine(line) + "\n")
	}
	out.WriteString("\n")
	if note != "" {
		out.WriteString("_" + note + "_\n\n")
	}
	out.WriteString(seam.Neutralize(b.String()))
	return out.String(), nil
}
