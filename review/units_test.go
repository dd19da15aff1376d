package review

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/diffctx"
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

// unitsRepo is a change of four files that a 6800-token window reviews in
// three units: alpha.go with beta.go; delta.go; gamma.go.
func unitsRepo(tb testing.TB) string {
	return scratchRepo(tb, map[string]string{
		"alpha.go": funcs("alpha", 34), "beta.go": funcs("beta", 10),
		"delta.go": funcs("delta", 12), "gamma.go": funcs("gamma", 40),
	})
}

func unitsBudget() conversation.Budget {
	b := conversation.DefaultBudget(llm.Lookup("gpt-4o").Window)
	b.ContextWindow = 6800
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
			// Each unit's first request leaves its loop the room it is
			// promised.
			around := p.Tokens() - p.Units[0].Tokens
			for i, u := range p.Units {
				if first, most := around+u.Tokens, unitLimit(p); first > most {
					t.Errorf("unit %d: first request %d tokens, over the %d that leave the loop its room", i+1, first, most)
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

// unitLimit is the most a unit's first request may take: the input less
// the loop's promised room, and less than the stop line by the smallest
// loop, unless the static share alone gives more.
func unitLimit(p *Plan) int {
	b := p.Budget
	return max(min(b.Input()-b.LoopRoom(), b.StopLine()-loopFloor(b, p.Counter)), b.Static())
}

// modifiedFile is a Go file of n one-line functions named after name, and
// the same file with every line replaced: n changed lines, 2n diff lines.
func modifiedFile(name string, n int) (base, head string) {
	var b, h strings.Builder
	b.WriteString("package main\n")
	h.WriteString("package main\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "func %s_%d(x int) int { return x*%d + %d }\n", name, i, i, i)
		fmt.Fprintf(&h, "func %s_%d(x int) int { return x*%d - %d }\n", name, i, i+1, i)
	}
	return b.String(), h.String()
}

// TestUnitsLeaveLoopRoom holds the planner's rule over windows and file
// sizes: a unit's hunks are what the input leaves after the static layer
// and the loop's promised room, so a file is split only when it cannot fit
// a unit with that room, every unit's first request leaves the room, and
// small files pack together.
func TestUnitsLeaveLoopRoom(t *testing.T) {
	for _, lines := range []int{30, 150, 400, 1500} {
		base, head := map[string]string{}, map[string]string{}
		for _, dir := range []string{"a", "b"} {
			for i := 1; i <= 3; i++ {
				name := fmt.Sprintf("%s%d", dir, i)
				base[dir+"/"+name+".go"], head[dir+"/"+name+".go"] = modifiedFile(name, lines)
			}
			base[dir+"/small.go"], head[dir+"/small.go"] = modifiedFile(dir+"small", 5)
		}
		repo := newRepo(t, base, head)
		// One counter a change, as Run gives Prepare one a review: its
		// exact memo spares counting the same files at every window.
		counter, err := conversation.NewCounter(llm.Lookup("gpt-4o").Encoding, conversation.Tiktoken)
		if err != nil {
			t.Fatal(err)
		}
		for _, window := range []int{16000, 32000, 128000} {
			t.Run(fmt.Sprintf("%d lines at %d", lines, window), func(t *testing.T) {
				b := conversation.DefaultBudget(window)
				p, err := Prepare(context.Background(), Options{Dir: repo, Base: "main", Config: result.Config{Model: "gpt-4o", Budget: b}, counter: counter})
				if err != nil {
					t.Fatal(err)
				}
				if len(p.Units) == 0 {
					if p.Tokens() > b.Input() {
						t.Errorf("one request of %d tokens, input %d", p.Tokens(), b.Input())
					}
					return
				}
				around, limit := p.Tokens()-p.Units[0].Tokens, unitLimit(p)
				in := map[string]int{}
				sliced := map[string]bool{}
				for i, u := range p.Units {
					for _, f := range u.Files() {
						in[f]++
					}
					for _, part := range u.Parts {
						sliced[part.Path] = sliced[part.Path] || part.FromLine > 0
					}
					if first := around + u.Tokens; first > limit && (len(u.Parts) > 1 || u.Parts[0].FromLine == 0) {
						t.Errorf("unit %d (%v): first request %d tokens, over the %d that leave the loop its room", i+1, u.Files(), first, limit)
					}
				}
				for _, f := range p.Diff.Files {
					md, err := diffctx.RenderUnit(p.Diff, diffctx.Unit{Parts: []diffctx.Part{{Path: f.Path, First: 1, Last: len(f.Hunks)}}})
					if err != nil {
						t.Fatal(err)
					}
					whole := p.Counter.Count(md)
					split := in[f.Path] > 1 || sliced[f.Path]
					if fits := around+whole <= limit; split && fits {
						t.Errorf("%s (%d tokens) is split across %d units though a unit with the loop's room holds %d", f.Path, whole, in[f.Path], limit-around)
					}
				}
				// Small files pack together.
				if a, b := unitOf(p.Units, "a/small.go"), unitOf(p.Units, "b/small.go"); a != b {
					t.Errorf("the small files are in units %d and %d, not together", a+1, b+1)
				}
			})
		}
	}
}

// unitOf is the index of the last unit that holds path.
func unitOf(units []diffctx.Unit, path string) int {
	at := -1
	for i, u := range units {
		if slices.Contains(u.Files(), path) {
			at = i
		}
	}
	return at
}

// TestUnitsModifiedFiles32k: 40 files of 300 changed lines each, at a 32k
// window, take 40 units side by side, each file reviewed whole in its
// own, and the default budget leaves none out.
func TestUnitsModifiedFiles32k(t *testing.T) {
	base, head := map[string]string{}, map[string]string{}
	for i := 1; i <= 40; i++ {
		name := fmt.Sprintf("file%02d", i)
		base[name+".go"], head[name+".go"] = modifiedFile(name, 300)
	}
	repo := newRepo(t, base, head)
	p, err := Prepare(context.Background(), Options{Dir: repo, Base: "main", Config: result.Config{Model: "gpt-4o", Budget: conversation.DefaultBudget(32000), Caps: result.Caps{Budget: result.DefaultPromptBudget}, Jobs: 8}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Units) != 40 || p.Estimate.TotalUnits != 40 || len(p.Estimate.NotReviewed) != 0 {
		t.Fatalf("%d units of %d, %d files not reviewed; want 40 of 40, none left", len(p.Units), p.Estimate.TotalUnits, len(p.Estimate.NotReviewed))
	}
	for i, u := range p.Units {
		if len(u.Parts) != 1 || u.Parts[0].FromLine != 0 {
			t.Errorf("unit %d: %+v, want one whole file", i+1, u.Parts)
		}
	}
}
