package review

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/reviewdev/review/review/record"
	"github.com/reviewdev/review/review/reviewtest"
)

// TestFiguresRecordedAndRecounted checks that each step records its
// request's tokens by layer, adding up to the run's own count; that
// figures counted again from the records of a run that has none (an older
// run) are the same; and that the naive transcript carries the whole
// outputs the previews stand for. The figures are exact whether the
// server reports usage or not: a figure shown must never be below the
// count it stands for, and an estimate can be. Figures an older run
// recorded as estimates are counted again exactly.
func TestFiguresRecordedAndRecounted(t *testing.T) {
	base := numbered("// line", 40)
	head := strings.Replace(base, "// line 10\n", "// changed 10\n", 1)
	dir := newRepo(t, map[string]string{"a.go": base, "big.go": numbered("// a long line of the big file", 900)}, map[string]string{"a.go": head})
	for _, tc := range []struct {
		name      string
		usage     string // each answer's, when set
		exact     bool
		estimated bool
	}{
		{name: "the server counts"},
		{name: "the server does not count", usage: `, "usage": {"prompt_tokens": 0, "completion_tokens": 9}`},
		{name: "exact counts asked for", exact: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			figuresRun(t, dir, tc.usage, tc.exact, tc.estimated)
		})
	}
}

func figuresRun(t *testing.T, dir, usage string, exact, estimated bool) {
	srv := reviewtest.Serve(t, `[
	  {"tool_calls": [{"name": "list_project_files", "arguments": {}}]`+usage+`},
	  {"tool_calls": [{"name": "read_file_hunk", "arguments": {"path": "big.go", "start_line": 1, "end_line": 900}}]`+usage+`},
	  {"tool_calls": [{"name": "read_file_hunk", "arguments": {"path": "a.go", "start_line": 1, "end_line": 5}}]`+usage+`},
	  {"tool_calls": [{"name": "submit_review", "arguments": {"summary": "Fine.", "findings": []}}]`+usage+`}]`)
	s := newSession(t, dir, newTestClient(srv.URL), func(a *Agent, _ *Plan) { a.ExactCounts = exact })
	res, err := s.Review(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r, err := record.Load(s.Store, s.Run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Steps) != 4 {
		t.Fatalf("%d steps, want 4", len(r.Steps))
	}
	sum := 0
	var rec []record.StepFigures
	for _, st := range r.Steps {
		var f record.StepFigures
		if err := json.Unmarshal(st.Figures, &f); err != nil {
			t.Fatalf("step %d: figures %q: %v", st.N, st.Figures, err)
		}
		if f.Tokens != f.Layers.Total() || f.Layers.System == 0 || f.Layers.Tools == 0 || f.Layers.Diff == 0 || f.Estimated != estimated {
			t.Errorf("step %d: figures %+v", st.N, f)
		}
		if f.Naive < f.Tokens {
			t.Errorf("step %d: naive %d < sent %d", st.N, f.Naive, f.Tokens)
		}
		sum += f.Tokens
		rec = append(rec, f)
	}
	if sum != res.Usage.Own {
		t.Errorf("the steps' figures add up to %d; the run's own count is %d", sum, res.Usage.Own)
	}
	e := res.Efficiency
	if e == nil || e.Sent != sum || e.Requests != 4 || e.Naive <= e.Sent || e.Ratio <= 0 || e.Ratio >= 1 || e.Window != s.Budget.ContextWindow || e.Estimated != estimated {
		t.Fatalf("efficiency %+v; sent %d", e, sum)
	}
	// Step 3 sends the preview of 900 lines; the naive transcript the
	// whole file, some 9,000 tokens more.
	if d := rec[2].Naive - rec[2].Tokens; d < 5000 {
		t.Errorf("step 3: naive %d, sent %d: the whole output is not in the naive figure", rec[2].Naive, rec[2].Tokens)
	}
	// A run that recorded estimates: counted again, exactly.
	for i := range r.Steps {
		r.Steps[i].Figures, _ = json.Marshal(record.StepFigures{Layers: record.Layers{System: 1}, Tokens: 1, Estimated: true})
	}
	if f := record.Figures(s.Store, r, s.Counter); !estimated {
		for i := range rec {
			if f.Steps[i] != rec[i] || f.Recorded[i] {
				t.Errorf("step %d with estimated figures recounted: %+v, exact %+v", i+1, f.Steps[i], rec[i])
			}
		}
	}
	// An older run: the same figures, counted again.
	for i := range r.Steps {
		r.Steps[i].Figures = nil
	}
	c := s.Counter
	if estimated {
		c = c.Estimates()
	}
	f := record.Figures(s.Store, r, c)
	for i := range rec {
		if f.Steps[i] != rec[i] || f.Recorded[i] {
			t.Errorf("step %d recounted: %+v, recorded %+v", i+1, f.Steps[i], rec[i])
		}
	}
	if *f.Efficiency != *e {
		t.Errorf("efficiency recounted %+v, recorded %+v", *f.Efficiency, *e)
	}
	if !strings.Contains(e.Line(), "tokens sent in 4 requests against") || strings.HasPrefix(e.Line(), "Context (estimated): ") != estimated {
		t.Errorf("line %q", e.Line())
	}
}
