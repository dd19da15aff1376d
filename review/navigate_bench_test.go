package review

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/tools"
	"github.com/reviewdev/review/tools/toolstest"
)

// callersRepo is a module whose change makes calc.Scale round where it
// truncated; four packages call it, and the name also stands for a
// method of another type, in comments and in strings, as in real code.
// callerLines are where the calls are.
func callersRepo(b testing.TB) (dir string, callerLines map[string]int) {
	filler := func(pkg string, n int) string {
		var s strings.Builder
		for i := range n {
			fmt.Fprintf(&s, "\n// %sStep%d does one step of the %s pipeline.\nfunc %sStep%d(v int) int {\n\tif v > %d {\n\t\treturn v - %d\n\t}\n\treturn v + %d\n}\n", pkg, i, pkg, pkg, i, i*7, i, i)
		}
		return s.String()
	}
	calc := func(body string) string {
		return "package calc\n\n// Scale multiplies x by f.\nfunc Scale(x, f int) int {\n" + body + "}\n\n// Ruler measures.\ntype Ruler struct{ unit int }\n\n// Scale is the ruler's own, unrelated to calc.Scale.\nfunc (r *Ruler) Scale() int { return r.unit }\n" + filler("calc", 12)
	}
	base := map[string]string{"go.mod": "module example.com/shop\n\ngo 1.22\n", "calc/calc.go": calc("\treturn x * f\n")}
	head := map[string]string{"calc/calc.go": calc("\treturn (x*f + 50) / 100 * 100\n")}
	callerLines = map[string]int{}
	for _, pkg := range []string{"billing", "invoice", "report", "stock"} {
		var s strings.Builder
		fmt.Fprintf(&s, "package %s\n\nimport \"example.com/shop/calc\"\n", pkg)
		s.WriteString(filler(pkg, 6))
		fmt.Fprintf(&s, "\n// Total scales the amount (see calc.Scale).\nfunc Total(amount, rate int) int {\n\tlabel := \"Scale\"\n\t_ = label\n\treturn calc.Scale(amount, rate)\n}\n")
		callerLines[pkg+"/"+pkg+".go"] = strings.Count(s.String(), "\n")
		s.WriteString(filler(pkg+"Tail", 6))
		base[pkg+"/"+pkg+".go"] = s.String()
	}
	base["tools/ruler.go"] = "package tools\n\nimport \"example.com/shop/calc\"\n\nfunc Measure(r *calc.Ruler) int { return r.Scale() }\n"
	return newRepo(b, base, head), callerLines
}

// BenchmarkCallers is a scripted exploration that needs the callers of
// the changed function, made two ways against the same change: search,
// with navigation off (search_in_project for "Scale\(", then a read of
// each caller's function, the four reads in one turn, then
// submit_review), and navigation, on as by default (find_references, then
// submit_review; the requests carry the two tools' definitions and the
// overview's symbol lines). It reports the requests each sends, their
// bytes as encoded for the wire, their prompt tokens by the run's own
// count, and what the symbol lines add to each request.
//
//	go test ./review -run '^$' -bench Callers -benchtime 3x
func BenchmarkCallers(b *testing.B) {
	dir, callers := callersRepo(b)
	search := func(n int) []conversation.ToolCall {
		switch n {
		case 1:
			return []conversation.ToolCall{{ID: "c1", Name: toolname.SearchInProject, Arguments: `{"pattern": "Scale\\(", "path_glob": null, "max_results": null, "context_lines": null}`}}
		case 2:
			var calls []conversation.ToolCall
			for _, p := range []string{"billing/billing.go", "invoice/invoice.go", "report/report.go", "stock/stock.go"} {
				at := callers[p]
				calls = append(calls, conversation.ToolCall{ID: fmt.Sprintf("r%d", len(calls)), Name: toolname.ReadFileHunk,
					Arguments: fmt.Sprintf(`{"path": %q, "start_line": %d, "end_line": %d, "revision": null}`, p, at-5, at+1)})
			}
			return calls
		}
		return nil
	}
	navigation := func(n int) []conversation.ToolCall {
		if n == 1 {
			return []conversation.ToolCall{{ID: "c1", Name: toolname.FindReferences, Arguments: `{"symbol": "Scale", "path": "calc/calc.go", "comments": null}`}}
		}
		return nil
	}
	budget := conversation.DefaultBudget(llm.Lookup(testModel).Window)
	prepare := func(b *testing.B, off bool) *Plan {
		plan, err := Prepare(context.Background(), Options{Dir: dir, Base: "main", Head: "HEAD", Config: result.Config{Model: testModel, Budget: budget, NoNavigation: off, OverviewSymbols: true}})
		if err != nil {
			b.Fatal(err)
		}
		return plan
	}
	for _, way := range []struct {
		name  string
		off   bool
		calls func(n int) []conversation.ToolCall
	}{{"search", true, search}, {"navigation", false, navigation}} {
		b.Run(way.name, func(b *testing.B) {
			plan := prepare(b, way.off)
			symbolTokens := 0
			if !way.off {
				// What the overview's symbol lines add to every request.
				c := plan.Counter
				symbolTokens = c.CountMessage(plan.Messages[1]) - c.CountMessage(prepare(b, true).Messages[1])
			}
			st := toolstest.Store(b)
			var requests, bytes int
			var sizes []int
			var last *Session
			for b.Loop() {
				requests, bytes, sizes = 0, 0, sizes[:0]
				model := &fakeModel{next: func(n int, req llm.Request) conversation.Message {
					body, err := llm.EncodeRequest(req)
					if err != nil {
						b.Fatal(err)
					}
					requests++
					bytes += len(body)
					sizes = append(sizes, len(req.Messages))
					if calls := way.calls(n); calls != nil {
						return conversation.Message{ToolCalls: calls}
					}
					return conversation.Message{ToolCalls: []conversation.ToolCall{{ID: "done", Name: toolname.SubmitReview,
						Arguments: `{"summary": "Scale now rounds to hundreds; its four callers pass amounts in cents.", "findings": []}`}}}
				}}
				a := &Agent{Config: result.Config{Model: testModel, Budget: budget, OffDiff: result.KeepFileLevel, NoNavigation: way.off}, Client: model, Store: st, Counter: plan.Counter,
					Tools: tools.New(tools.Env{Root: plan.Diff.Root, Head: plan.Diff.HeadSHA, Base: plan.Diff.MergeBase, Store: st, NoNavigation: way.off})}
				s, err := a.Start(plan, Settings{Budget: budget})
				if err != nil {
					b.Fatal(err)
				}
				res, err := s.Review(context.Background())
				if err != nil || !res.Submitted {
					b.Fatalf("review: %v, submitted %v", err, res != nil && res.Submitted)
				}
				last = s
			}
			sent, _, err := transcriptTokens(last, last.Counter, sizes)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(requests), "requests")
			b.ReportMetric(float64(bytes), "request-bytes")
			b.ReportMetric(float64(sent.total), "tokens-sent")
			if !way.off {
				b.ReportMetric(float64(symbolTokens), "symbol-line-tokens")
			}
		})
	}
}
