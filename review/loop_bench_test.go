package review

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/reviewdev/review/tools/toolstest"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/record"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/tools"
)

// benchFiles and benchLines shape the benchmark repository: files long
// enough that reading them, searching them and diffing them give the large
// outputs a real review meets.
const (
	benchFiles = 10
	benchLines = 800
)

// benchRepo is a repository of benchFiles Go files of benchLines lines,
// with the change touching two lines of each.
func benchRepo(b testing.TB) string {
	base, head := map[string]string{}, map[string]string{}
	for f := 1; f <= benchFiles; f++ {
		var lines []string
		for l := 1; l <= benchLines; l++ {
			lines = append(lines, fmt.Sprintf("\tv%02d_%04d := compute(%d, %q) // keeps the lines about sixty bytes", f, l, l, "x"))
		}
		name := fmt.Sprintf("src/mod_%02d.go", f)
		base[name] = "package src\n\nfunc f() {\n" + strings.Join(lines, "\n") + "\n}\n"
		lines[99] = fmt.Sprintf("\tv%02d_0100 := compute(100, userInput) // changed", f)
		lines[499] = fmt.Sprintf("\tv%02d_0500 := exec(userInput) // changed", f)
		head[name] = "package src\n\nfunc f() {\n" + strings.Join(lines, "\n") + "\n}\n"
	}
	return newRepo(b, base, head)
}

// benchCall is the tool call the scripted model makes at step n of 20: a
// search with many matches, then whole pages of every file, a diff, a page
// and a grep of earlier outputs by ref, and at last submit_review.
//
// With whole set, the calls ask for everything, as the tools now allow: the
// search for every match, each read for the whole file.
func benchCall(n int, req llm.Request, whole bool) conversation.ToolCall {
	id := fmt.Sprintf("s%d", n)
	file := func(i int) string { return fmt.Sprintf("src/mod_%02d.go", (i-1)%benchFiles+1) }
	refOf := func(call string) string {
		for _, m := range req.Messages {
			if m.ToolCallID == call {
				return m.Ref
			}
		}
		return "missing"
	}
	switch {
	case n == 1 && whole:
		return conversation.ToolCall{ID: id, Name: "search_in_project", Arguments: `{"pattern": "compute\\(", "path_glob": "*.go", "max_results": null, "context_lines": 0}`}
	case n <= 16 && whole:
		return conversation.ToolCall{ID: id, Name: "read_file_hunk", Arguments: fmt.Sprintf(`{"path": %q, "start_line": 1, "end_line": %d, "revision": null}`, file(n-1), benchLines+3)}
	case n == 1:
		return conversation.ToolCall{ID: id, Name: "search_in_project", Arguments: `{"pattern": "compute\\(", "path_glob": "*.go", "max_results": 500, "context_lines": 0}`}
	case n <= 11:
		return conversation.ToolCall{ID: id, Name: "read_file_hunk", Arguments: fmt.Sprintf(`{"path": %q, "start_line": 1, "end_line": 400, "revision": null}`, file(n-1))}
	case n <= 16:
		return conversation.ToolCall{ID: id, Name: "read_file_hunk", Arguments: fmt.Sprintf(`{"path": %q, "start_line": 401, "end_line": 800, "revision": null}`, file(n-11))}
	case n == 17:
		return conversation.ToolCall{ID: id, Name: "get_file_diff", Arguments: `{"path": "src/mod_01.go"}`}
	case n == 18:
		return conversation.ToolCall{ID: id, Name: "read_tool_output", Arguments: fmt.Sprintf(`{"ref": %q, "start_line": 200, "line_count": 100, "grep": null}`, refOf("s1"))}
	case n == 19:
		return conversation.ToolCall{ID: id, Name: "read_tool_output", Arguments: fmt.Sprintf(`{"ref": %q, "start_line": null, "line_count": 50, "grep": "userInput"}`, refOf("s2"))}
	}
	return conversation.ToolCall{ID: id, Name: toolname.SubmitReview, Arguments: `{"summary": "User input reaches exec.", "findings": [
		{"path": "src/mod_01.go", "line": 503, "end_line": null, "severity": "high", "category": "security", "title": "Command injection", "body": "userInput reaches exec.", "suggestion": null}]}`}
}

// BenchmarkLoop20 runs a scripted 20-step review with large tool outputs
// against a real repository, real tools and a real store, with the model
// replaced by one in the process, so what is timed is our own work per
// step: building, checking, encoding and recording each request, running
// the tools, storing their outputs and previewing them, and decoding the
// reply. It reports the tokens the review sent and what the same
// transcript would have sent naively, every output whole in every later
// request.
func BenchmarkLoop20(b *testing.B) {
	b.Run("pages", func(b *testing.B) { loop20(b, false) })
	b.Run("whole", func(b *testing.B) { loop20(b, true) })
}

func loop20(b *testing.B, whole bool) {
	const steps = 20
	dir := benchRepo(b)
	budget := conversation.DefaultBudget(llm.Lookup(testModel).Window)
	plan, err := Prepare(context.Background(), Options{Dir: dir, Base: "main", Head: "HEAD", Config: result.Config{Model: testModel, Budget: budget}})
	if err != nil {
		b.Fatal(err)
	}
	st := toolstest.Store(b)

	var (
		last  *Session
		sizes []int // messages in each request of the last review
	)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for b.Loop() {
		sizes = sizes[:0]
		model := &fakeModel{next: func(n int, req llm.Request) conversation.Message {
			sizes = append(sizes, len(req.Messages))
			return conversation.Message{ToolCalls: []conversation.ToolCall{benchCall(n, req, whole)}}
		}}
		a := &Agent{Config: result.Config{Model: testModel, Budget: budget, OffDiff: result.KeepFileLevel}, Client: model, Store: st, Counter: plan.Counter, Tools: tools.New(tools.Env{Root: plan.Diff.Root, Head: plan.Diff.HeadSHA, Base: plan.Diff.MergeBase, Store: st})}
		s, err := a.Start(plan, Settings{Budget: budget})
		if err != nil {
			b.Fatal(err)
		}
		res, err := s.Review(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if res.Steps != steps || !res.Submitted {
			b.Fatalf("%d steps, submitted %v; want %d steps and a submission", res.Steps, res.Submitted, steps)
		}
		last = s
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)

	// The figures are exact counts of the transcript; the run's own
	// count is its figures', estimates when the server counts.
	sent, naive, err := transcriptTokens(last, last.Counter, sizes)
	if err != nil {
		b.Fatal(err)
	}
	own, _, err := transcriptTokens(last, last.figureCounter(), sizes)
	if err != nil {
		b.Fatal(err)
	}
	if own.total != last.Usage.Own {
		b.Fatalf("tokens counted from the transcript %d, by the run %d", own.total, last.Usage.Own)
	}
	n := float64(b.N) * steps
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/step")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/n, "allocs/step")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/n, "B/step")
	b.ReportMetric(float64(sent.total), "tokens-sent")
	b.ReportMetric(float64(naive.total), "naive-tokens")
	b.ReportMetric(float64(naive.total)/float64(sent.total), "naive/sent")
	b.ReportMetric(float64(sent.largest), "largest-request-tokens")
	b.ReportMetric(float64(naive.largest), "naive-largest-request-tokens")
}

// promptTokens sums the prompts of a review's requests.
type promptTokens struct {
	total   int // over all requests
	largest int // of the largest request
}

// transcriptTokens counts the prompts of a finished review, whose requests
// held the first sizes[i] messages of its conversation (a loop only
// appends): as sent, and naively, with every stored output whole in place
// of its preview. Tool definitions count in both.
func transcriptTokens(s *Session, c *conversation.Counter, sizes []int) (sent, naive promptTokens, err error) {
	defs := record.ToolTokens(c, offered(s.Tools, nil, nil).Definitions())
	msgs := s.History.Messages()
	whole := make([]int, len(msgs))
	for i, m := range msgs {
		if m.Ref != "" {
			out, err := s.Store.Get(m.Ref)
			if err != nil {
				return sent, naive, err
			}
			m.Content = string(out)
		}
		whole[i] = c.CountMessage(m)
	}
	for _, size := range sizes {
		ours := defs + c.CountMessages(msgs[:size])
		all := defs
		for _, w := range whole[:size] {
			all += w
		}
		sent.total += ours
		sent.largest = max(sent.largest, ours)
		naive.total += all
		naive.largest = max(naive.largest, all)
	}
	return sent, naive, nil
}
