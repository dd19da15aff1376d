package review

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/reviewtest"
)

// askTurns is the length of the benchmarked conversation: a review and
// nine follow-up questions.
const askTurns = 10

// pruneRepo is a change with a large generated file, whose diff, searches
// and reads make large tool outputs, and a small file of code.
func pruneRepo(tb testing.TB) string {
	var table strings.Builder
	for i := 1; i <= 4000; i++ {
		fmt.Fprintf(&table, "row %d: needle %d, a generated entry with enough words to fill a line of the table\n", i, i%97)
	}
	return scratchRepo(tb, map[string]string{
		"table.generated.txt": table.String(),
		"auth.go":             "package main\n\nimport \"crypto/md5\"\n\nfunc hash(p string) []byte {\n\ts := md5.Sum([]byte(p))\n\treturn s[:]\n}\n",
	})
}

// askScript is the model's side of the conversation: each turn makes two
// tool calls with large outputs in one reply and then answers in a few
// sentences; the first turn submits a review instead.
func askScript() *reviewtest.Script {
	call := func(name, args string) reviewtest.ScriptCall {
		return reviewtest.ScriptCall{Name: name, Arguments: json.RawMessage(args)}
	}
	answer := strings.Repeat("The rows are generated data and change no behaviour; the hash in auth.go is the one defect. ", 8)
	var steps []reviewtest.Step
	for t := 1; t <= askTurns; t++ {
		steps = append(steps, reviewtest.Step{ToolCalls: []reviewtest.ScriptCall{
			call("get_file_diff", `{"path": "table.generated.txt"}`),
			call("search_in_project", fmt.Sprintf(`{"pattern": "needle %d,", "path_glob": null, "max_results": 500, "context_lines": null}`, t)),
		}})
		steps = append(steps, reviewtest.Step{ToolCalls: []reviewtest.ScriptCall{
			call("read_file_hunk", fmt.Sprintf(`{"path": "table.generated.txt", "start_line": %d, "end_line": %d, "revision": null}`, 100*t, 100*t+399)),
		}})
		if t == 1 {
			steps = append(steps, submit("MD5 for passwords.", finding("auth.go", 6, "Weak password hash")))
			continue
		}
		steps = append(steps, reviewtest.Step{Content: fmt.Sprintf("Answer %d. %s", t, answer)})
	}
	return &reviewtest.Script{Steps: steps}
}

// turnTokens are our counts of the prompts a conversation sent: in its
// last turn and in all turns.
type turnTokens struct{ last, all int }

// converse holds the scripted conversation of askTurns turns on the
// repository at dir, with earlier turns pruned to lim before each loop, and
// counts the prompt tokens it sent.
func converse(tb testing.TB, dir string, lim conversation.Limits) turnTokens {
	tb.Helper()
	srv := reviewtest.NewServer(askScript(), "")
	defer srv.Close()
	s, _ := scratchSession(tb, dir, conversation.DefaultBudget(llm.Lookup("gpt-4o").Window), srv)
	s.ExactCounts = true // the figures compared are exact counts, not estimates
	ctx := context.Background()
	if _, err := s.Review(ctx); err != nil {
		tb.Fatal(err)
	}
	var before int
	for t := 2; t <= askTurns; t++ {
		before = s.Usage.Own
		if _, err := s.Ask(ctx, fmt.Sprintf("Question %d: what else is in the table?", t), AskOptions{Limits: lim}); err != nil {
			tb.Fatal(err)
		}
	}
	if srv.Remaining() != 0 {
		tb.Fatalf("%d scripted replies unused", srv.Remaining())
	}
	return turnTokens{last: s.Usage.Own - before, all: s.Usage.Own}
}

// BenchmarkTenthTurn compares the prompt tokens a conversation of ten turns
// with large tool outputs sends when earlier turns are pruned to the
// default history limits (4 turns, 24000 characters) with what the same
// conversation sends when nothing is pruned: in its tenth turn and in all
// ten. Tool outputs reach both as previews; the difference is the pruning.
func BenchmarkTenthTurn(b *testing.B) {
	dir := pruneRepo(b)
	unlimited := conversation.Limits{Turns: 1 << 30, Chars: 1 << 30}
	var pruned, whole turnTokens
	for b.Loop() {
		pruned = converse(b, dir, conversation.LimitsFrom(conversation.DefaultBudget(llm.Lookup("gpt-4o").Window)))
		whole = converse(b, dir, unlimited)
	}
	b.ReportMetric(float64(pruned.last), "turn10-tokens")
	b.ReportMetric(float64(whole.last), "turn10-unpruned-tokens")
	b.ReportMetric(float64(pruned.last)/float64(whole.last), "turn10-ratio")
	b.ReportMetric(float64(pruned.all), "all-tokens")
	b.ReportMetric(float64(whole.all), "all-unpruned-tokens")
	b.ReportMetric(float64(pruned.all)/float64(whole.all), "all-ratio")
}

// TestTenthTurnPruned runs the benchmark's conversation once: pruned, the
// tenth turn sends fewer tokens than unpruned.
func TestTenthTurnPruned(t *testing.T) {
	if testing.Short() {
		t.Skip("holds two conversations of ten turns")
	}
	dir := pruneRepo(t)
	pruned := converse(t, dir, conversation.LimitsFrom(conversation.DefaultBudget(llm.Lookup("gpt-4o").Window)))
	whole := converse(t, dir, conversation.Limits{Turns: 1 << 30, Chars: 1 << 30})
	if pruned.last >= whole.last || pruned.all >= whole.all {
		t.Fatalf("pruned %+v, unpruned %+v", pruned, whole)
	}
}
