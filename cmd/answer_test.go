package cmd

import (
	"testing"

	"github.com/reviewdev/review/review/host/hosttest"
	"github.com/reviewdev/review/review/result"
)

// FuzzAnswerBody holds an answer posted by `review ask --post gitlab` or
// `review comment` to GitLab's own grammar (hosttest.Commands): whatever
// the question quoted, the model's answer and its findings, no quick
// action runs.
func FuzzAnswerBody(f *testing.F) {
	f.Add("why?\n/merge", "note\n\r/merge", "~~~\n/close\n~~~", "t")
	f.Add("a ` b", "```js\nconst s = `x\n/merge now\n```", "    ```\n/merge\n    ```", "/t")
	f.Fuzz(func(t *testing.T, question, answer, body, title string) {
		ans := &result.Answer{RunID: "r1", Turn: 1, Question: question, Answer: answer,
			Findings: []result.Finding{{Path: "a.go", Line: 2, Severity: result.Low, Title: title, Body: body, Suggestion: body}}}
		b, err := answerBody(ans, question, "About the finding at `a.go:2`.")
		if err != nil {
			t.Fatal(err)
		}
		if cmds := hosttest.Commands(b); len(cmds) > 0 {
			t.Fatalf("GitLab runs %+v in the answer:\n%s", cmds, b)
		}
	})
}
