package review

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/internal/toolname"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/toolmem"
	"github.com/reviewdev/review/tools"
)

// storeGrowth runs a review of steps steps, each step a read of a file,
// into a fresh store, and returns what the run's records take: the bytes
// of its run record, steps, events and conversation as stored (records)
// and the store's files on disk after closing, overwritten versions
// included (disk).
func storeGrowth(tb testing.TB, plan *Plan, steps int) (records, disk int64) {
	tb.Helper()
	storeDir := tb.TempDir()
	st, err := toolmem.Open(storeDir, toolmem.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer st.Close()
	model := &fakeModel{next: func(n int, req llm.Request) conversation.Message {
		if n >= steps {
			return conversation.Message{ToolCalls: []conversation.ToolCall{{ID: fmt.Sprintf("s%d", n), Name: toolname.SubmitReview, Arguments: `{"summary": "Fine.", "findings": []}`}}}
		}
		return conversation.Message{ToolCalls: []conversation.ToolCall{{ID: fmt.Sprintf("s%d", n), Name: toolname.ReadFileHunk,
			Arguments: fmt.Sprintf(`{"path": "src/mod_%02d.go", "start_line": %d, "end_line": %d, "revision": null}`, n%benchFiles+1, 1+n*7%700, 100+n*7%700)}}}
	}}
	a := &Agent{Config: result.Config{Model: testModel, Budget: plan.Budget, OffDiff: result.KeepFileLevel}, Client: model, Store: st, Counter: plan.Counter, Tools: tools.New(tools.Env{Root: plan.Diff.Root, Head: plan.Diff.HeadSHA, Base: plan.Diff.MergeBase, Store: st})}
	a.Budget.MaxSteps = steps
	s, err := a.Start(plan, Settings{Budget: a.Budget})
	if err != nil {
		tb.Fatal(err)
	}
	res, err := s.Review(context.Background())
	if err != nil || res.Steps != steps {
		tb.Fatalf("%d steps (%v), want %d", res.Steps, err, steps)
	}
	rep, err := st.Verify()
	if err != nil {
		tb.Fatal(err)
	}
	if err := st.Close(); err != nil {
		tb.Fatal(err)
	}
	_ = filepath.WalkDir(storeDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				if st, ok := info.Sys().(*syscall.Stat_t); ok {
					disk += st.Blocks * 512 // value logs are sparse
				}
			}
		}
		return nil
	})
	return rep.Bytes, disk
}

// growthPlan plans the review storeGrowth runs.
func growthPlan(tb testing.TB) *Plan {
	tb.Helper()
	budget := conversation.DefaultBudget(llm.Lookup(testModel).Window)
	plan, err := Prepare(context.Background(), Options{Dir: benchRepo(tb), Base: "main", Head: "HEAD", Config: result.Config{Model: testModel, Budget: budget}})
	if err != nil {
		tb.Fatal(err)
	}
	return plan
}

// BenchmarkStoreGrowth runs reviews of 10, 25 and 50 steps, each step a
// read of a file, and reports what the run's records take in the store
// (see storeGrowth).
func BenchmarkStoreGrowth(b *testing.B) {
	plan := growthPlan(b)
	for _, steps := range []int{10, 25, 50} {
		b.Run(fmt.Sprintf("%dsteps", steps), func(b *testing.B) {
			var disk, records int64
			for b.Loop() {
				records, disk = storeGrowth(b, plan, steps)
			}
			b.ReportMetric(float64(records), "store-record-bytes")
			b.ReportMetric(float64(disk), "disk-bytes")
		})
	}
}

// TestStoreGrowsLinearly checks that a run's records grow with its steps,
// not with their square: a step appends what it adds to the run and
// rewrites nothing earlier. Five times the steps may take at most five
// times the store (the static layer is recorded once); when each step
// rewrote the run's requests whole, 50 steps took 10.5 times what 10 did.
// BenchmarkStoreGrowth measures 10, 25 and 50 steps; the test runs fewer
// to stay quick under the race detector.
func TestStoreGrowsLinearly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs reviews of 5 and 25 steps")
	}
	plan := growthPlan(t)
	r5, d5 := storeGrowth(t, plan, 5)
	r25, d25 := storeGrowth(t, plan, 25)
	t.Logf("5 steps: %d bytes of records, %d on disk; 25 steps: %d and %d", r5, d5, r25, d25)
	if r := float64(r25) / float64(r5); r > 5 {
		t.Errorf("records grew %.1f times from 5 to 25 steps", r)
	}
	if r := float64(d25) / float64(d5); r > 5 {
		t.Errorf("the store on disk grew %.1f times from 5 to 25 steps", r)
	}
}
