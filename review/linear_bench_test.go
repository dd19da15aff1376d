package review

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/reviewdev/review/toolmem/toolmemtest"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/review/reviewtest"
)

// timedModel notes when each request to the model starts and ends, so the
// time the client spends between an answer and the next request can be
// told apart from the server's.
type timedModel struct {
	llm.Model
	starts, ends []time.Time
}

func (m *timedModel) Complete(ctx context.Context, req llm.Request) (*llm.Reply, error) {
	m.starts = append(m.starts, time.Now())
	r, err := m.Model.Complete(ctx, req)
	m.ends = append(m.ends, time.Now())
	return r, err
}

// gapAround is the median time the client took before request k (from the
// answer to request k-1), over the ten requests around it.
func (m *timedModel) gapAround(k int) time.Duration {
	var gaps []time.Duration
	for i := max(k-5, 1); i < min(k+5, len(m.starts)); i++ {
		gaps = append(gaps, m.starts[i].Sub(m.ends[i-1]))
	}
	if len(gaps) == 0 {
		return 0
	}
	slices.Sort(gaps)
	return gaps[len(gaps)/2]
}

// BenchmarkUnitsLinear reviews a 3,000-file change in a 16k window with no
// cap on units, one unit after another, against a server that submits at
// once (about 380 units), and reports the client's time before the 25th
// and the last requests (medians of ten) and their ratio: pruning extends the summary
// of dropped turns rather than digesting them again, so a request late in
// a long run costs what an early one does.
//
//	go test -run '^$' -bench UnitsLinear -benchtime 1x ./review
func BenchmarkUnitsLinear(b *testing.B) {
	isolateGit(b)
	dir := b.TempDir()
	if err := reviewtest.GenerateRepo(dir, 3000, 0, nil); err != nil {
		b.Fatal(err)
	}
	budget := conversation.DefaultBudget(16000)
	srv := reviewtest.NewServer(&reviewtest.Script{Fallback: new(submit("Reviewed."))}, "")
	defer srv.Close()
	for b.Loop() {
		plan, err := Prepare(context.Background(), Options{Dir: dir, Base: "main", Config: result.Config{Model: testModel, Budget: budget, Tokenizer: conversation.Estimate}})
		if err != nil {
			b.Fatal(err)
		}
		st := toolmemtest.Open(b)
		m := &timedModel{Model: llm.NewClient(llm.ClientConfig{BaseURL: srv.URL, MaxAttempts: 1})}
		a := &Agent{Config: result.Config{Model: testModel, Budget: budget, OffDiff: result.KeepFileLevel}, Client: m, Store: st, Counter: plan.Counter}
		s, err := a.Start(plan, Settings{Budget: budget})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Review(context.Background()); err != nil {
			b.Fatal(err)
		}
		st.Close()
		if len(m.starts) < 300 {
			b.Fatalf("%d requests, want at least 300", len(m.starts))
		}
		early, late := m.gapAround(25), m.gapAround(len(m.starts)-6)
		b.ReportMetric(float64(len(m.starts)), "requests")
		b.ReportMetric(float64(early.Microseconds()), "µs-before-25th")
		b.ReportMetric(float64(late.Microseconds()), "µs-before-last")
		b.ReportMetric(float64(late)/float64(max(early, 1)), "late/early")
		if late > early*3/2 {
			b.Errorf("the client took %v before a late request, %v before the 25th: more than 1.5 times", late, early)
		}
	}
}
