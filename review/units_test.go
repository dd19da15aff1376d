package review

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/review/reviewtest"
	"github.com/reviewdev/review/toolmem"
)

// scratchRepo creates a repository whose feature branch, checked out, adds
// files to an empty main.
func scratchRepo(tb testing.TB, files map[string]string) string {
	return newRepo(tb, nil, files)
}

// funcs is a Go file of n one-line functions named after name.
func funcs(name string, n int) string {
	var b strings.Builder
	b.WriteString("package main\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "func %s%d(x int) int { return x*%d + len(%q) }\n", name, i, i, name)
	}
	return b.String()
}

// scratchSession prepares a review of dir with budget b, a real store and
// real tools, talking to the scripted server srv.
func scratchSession(tb testing.TB, dir string, b conversation.Budget, srv *reviewtest.Server) (*Session, *Plan) {
	tb.Helper()
	return scratchSessionCaps(tb, dir, b, srv, result.Caps{})
}

// scratchSessionCaps is scratchSession with caps.
func scratchSessionCaps(tb testing.TB, dir string, b conversation.Budget, srv *reviewtest.Server, c result.Caps) (*Session, *Plan) {
	tb.Helper()
	return configSession(tb, dir, result.Config{Model: "gpt-4o", Budget: b, Caps: c}, srv)
}

// submit is a scripted submit_review call.
func submit(summary string, findings ...string) reviewtest.Step {
	args := fmt.Sprintf(`{"summary": %q, "findings": [%s]}`, summary, strings.Join(findings, ","))
	return reviewtest.Step{ToolCalls: []reviewtest.ScriptCall{{Name: toolname.SubmitReview, Arguments: json.RawMessage(args)}}}
}

func finding(path string, line int, title string) string {
	return fmt.Sprintf(`{"path": %q, "line": %d, "end_line": null, "severity": "medium", "category": "correctness", "title": %q, "body": "b", "suggestion": null}`, path, line, title)
}

// unitsRepo is a change of four files that a 9300-token window reviews in
// three units: alpha.go with beta.go; delta.go; gamma.go.
func unitsRepo(tb testing.TB) string {
	return scratchRepo(tb, map[string]string{
		"alpha.go": funcs("alpha", 34), "beta.go": funcs("beta", 10),
		"delta.go": funcs("delta", 12), "gamma.go": funcs("gamma", 40),
	})
}

func unitsBudget() conversation.Budget {
	b := conversation.DefaultBudget(llm.Lookup("gpt-4o").Window)
	b.ContextWindow = 9300
	b.AnswerReserve = conversation.DefaultReserve(b.ContextWindow)
	return b
}

func TestPrepareUnits(t *testing.T) {
	dir := unitsRepo(t)
	for _, tc := range []struct {
		name     string
		budget   conversation.Budget
		question string
		units    int
	}{
		{"fits", conversation.DefaultBudget(llm.Lookup("gpt-4o").Window), "", 0},
		{"three units", unitsBudget(), "", 3},
		{"a question is not split", unitsBudget(), "What does gamma do?", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Prepare(context.Background(), Options{Dir: dir, Base: "main", Question: tc.question, Config: result.Config{Model: "gpt-4o", Budget: tc.budget}})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Units) != tc.units {
				t.Fatalf("%d units, want %d: %+v", len(p.Units), tc.units, p.Units)
			}
			static, task := p.Messages[1].Content, p.Messages[2].Content
			if tc.units == 0 {
				if tc.question == "" && !strings.Contains(static, "### `gamma.go`") {
					t.Errorf("the diff context should show the hunks:\n%s", static)
				}
				return
			}
			if strings.Contains(static, "### ") || !strings.Contains(static, "- `gamma.go` — added, +41 -0 — in unit 3\n") {
				t.Errorf("the static layer should be the overview naming units:\n%s", static)
			}
			if !strings.Contains(task, "This is unit 1 of 3") || !strings.Contains(task, "### `alpha.go`") || strings.Contains(task, "delta1(") {
				t.Errorf("the first turn should carry unit 1 only:\n%s", task)
			}
			for i, u := range p.Units {
				if u.Tokens > p.Context.Budget {
					t.Errorf("unit %d: %d tokens, over the diff context budget %d", i+1, u.Tokens, p.Context.Budget)
				}
			}
		})
	}
}

func TestReviewInUnits(t *testing.T) {
	dir := unitsRepo(t)
	for _, tc := range []struct {
		name      string
		steps     []reviewtest.Step
		submitted bool
		summary   string
		titles    []string
	}{
		{
			name: "findings merged",
			steps: []reviewtest.Step{
				submit("unit 1", finding("alpha.go", 3, "Overflow")),
				submit("unit 2", finding("beta.go", 2, "Wrong factor")),
				// Unit 3 reports unit 1's finding again: it is merged.
				submit("the whole change", finding("gamma.go", 4, "Shadowing"), finding("alpha.go", 3, "Overflow")),
			},
			submitted: true, summary: "the whole change",
			titles: []string{"Overflow", "Wrong factor", "Shadowing"},
		},
		{
			name: "a unit without a submission",
			steps: []reviewtest.Step{
				submit("unit 1", finding("alpha.go", 3, "Overflow")),
				{Content: "beta looks fine"}, {Content: "really fine"},
				submit("the whole change"),
			},
			submitted: false, summary: "the whole change",
			titles: []string{"Overflow"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := reviewtest.NewServer(&reviewtest.Script{Steps: tc.steps}, "")
			defer srv.Close()
			s, _ := scratchSession(t, dir, unitsBudget(), srv)
			res, err := s.Review(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if srv.Remaining() != 0 {
				t.Errorf("%d scripted replies unused", srv.Remaining())
			}
			var titles []string
			for _, f := range res.Findings {
				titles = append(titles, f.Title)
			}
			if strings.Join(titles, "|") != strings.Join(tc.titles, "|") || res.Submitted != tc.submitted || res.Summary != tc.summary {
				t.Errorf("findings %q, submitted %v, summary %q", titles, res.Submitted, res.Summary)
			}
			if s.History.Turns() != 3 || s.Run.Status != toolmem.StatusComplete {
				t.Errorf("%d turns, status %s", s.History.Turns(), s.Run.Status)
			}
			// The run record keeps the plan of units, and a resumed
			// session reads it.
			units, err := s.units()
			if err != nil || len(units) != 3 {
				t.Errorf("recorded units %+v, %v", units, err)
			}
			reqs := srv.Requests()
			for k, want := range map[int]string{1: "This is unit 1 of 3", 2: "Review unit 2 of 3", 3: "Review unit 3 of 3"} {
				var first int
				for i, r := range reqs {
					if strings.Contains(string(r.Body), want) {
						first = i
						break
					}
				}
				if !strings.Contains(string(reqs[first].Body), "in unit 3") {
					t.Errorf("unit %d: the overview is not in its request", k)
				}
			}
		})
	}
}
