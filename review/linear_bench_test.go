package review

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/reviewdev/review/tools/toolstest"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/review/reviewtest"
)

// timedModel notes when each request to the model starts and ends, and the
// process's CPU time then, so the time the client spends between an answer
// and the next request can be told apart from the server's.
type timedModel struct {
	llm.Model
	starts, ends       []time.Time
	cpuStarts, cpuEnds []time.Duration
}

func (m *timedModel) Complete(ctx context.Context, req llm.Request) (*llm.Reply, error) {
	m.starts, m.cpuStarts = append(m.starts, time.Now()), append(m.cpuStarts, processCPU())
	r, err := m.Model.Complete(ctx, req)
	m.ends, m.cpuEnds = append(m.ends, time.Now()), append(m.cpuEnds, processCPU())
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

// cpuBefore is the CPU time the process spent, on average, between an
// answer and the next request, over the n requests from k: work the
// client does, which other processes on a loaded machine can delay but
// not lengthen, as they lengthen its wall time.
func (m *timedModel) cpuBefore(k, n int) time.Duration {
	k = max(k, 1)
	end := min(k+n, len(m.cpuStarts))
	if end <= k {
		return 0
	}
	var sum time.Duration
	for i := k; i < end; i++ {
		sum += m.cpuStarts[i] - m.cpuEnds[i-1]
	}
	return sum / time.Duration(end-k)
}

// BenchmarkUnitsLinear reviews a 3,000-file change in a 16k window with no
// cap on units, one unit after another, against a server that submits at
// once (178 units: small files pack together, several to a unit), and reports the client's time before the 25th
// and the last requests (medians of ten) and their ratio, and the CPU
// time before each of the 20th to 60th requests and of the last forty
// (averages) and their ratio, which it holds to 1.5: pruning extends the summary
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
		st := toolstest.Store(b)
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
		// Long enough that its last forty requests come long after the
		// 20th to 60th.
		if len(m.starts) < 150 {
			b.Fatalf("%d requests, want at least 150", len(m.starts))
		}
		// The ratio that holds the benchmark is of CPU time, averaged over
		// forty requests: a wall-time gap of a few milliseconds is
		// lengthened by whatever else the machine runs, early or late.
		early, late := m.gapAround(25), m.gapAround(len(m.starts)-6)
		cpuEarly, cpuLate := m.cpuBefore(20, 40), m.cpuBefore(len(m.starts)-40, 40)
		b.ReportMetric(float64(len(m.starts)), "requests")
		b.ReportMetric(float64(early.Microseconds()), "µs-before-25th")
		b.ReportMetric(float64(late.Microseconds()), "µs-before-last")
		b.ReportMetric(float64(late)/float64(max(early, 1)), "late/early")
		b.ReportMetric(float64(cpuEarly.Microseconds()), "cpu-µs-before-20th-60th")
		b.ReportMetric(float64(cpuLate.Microseconds()), "cpu-µs-before-last-40")
		b.ReportMetric(float64(cpuLate)/float64(max(cpuEarly, 1)), "cpu-late/early")
		if cpuLate > cpuEarly*3/2 {
			b.Errorf("the client took %v of CPU before each of the last 40 requests, %v before each of the 20th to 60th: more than 1.5 times", cpuLate, cpuEarly)
		}
	}
}
