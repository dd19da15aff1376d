package review

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/toolmem"
	"github.com/reviewdev/review/tools"
	"github.com/reviewdev/review/tools/toolname"
)

// BenchmarkStoreGrowth runs reviews of 10, 25 and 50 steps, each step a
// read of a file, and reports what the run's records take in the store:
// the bytes of its run record, steps and conversation as stored
// (store-record-bytes) and the store's files on disk after closing,
// overwritten versions included (disk-bytes).
func BenchmarkStoreGrowth(b *testing.B) {
	dir := benchRepo(b)
	for _, steps := range []int{10, 25, 50} {
		b.Run(fmt.Sprintf("%dsteps", steps), func(b *testing.B) {
			budget := conversation.DefaultBudget(llm.Lookup(testModel).Window)
			budget.MaxSteps = steps
			plan, err := Prepare(context.Background(), Options{Dir: dir, Base: "main", Head: "HEAD", Model: testModel, Budget: budget})
			if err != nil {
				b.Fatal(err)
			}
			var disk, records int64
			for b.Loop() {
				storeDir := b.TempDir()
				st, err := toolmem.Open(storeDir, toolmem.Options{})
				if err != nil {
					b.Fatal(err)
				}
				model := &fakeModel{next: func(n int, req llm.Request) conversation.Message {
					if n >= steps {
						return conversation.Message{ToolCalls: []conversation.ToolCall{{ID: fmt.Sprintf("s%d", n), Name: toolname.SubmitReview, Arguments: `{"summary": "Fine.", "findings": []}`}}}
					}
					return conversation.Message{ToolCalls: []conversation.ToolCall{{ID: fmt.Sprintf("s%d", n), Name: toolname.ReadFileHunk,
						Arguments: fmt.Sprintf(`{"path": "src/mod_%02d.go", "start_line": %d, "end_line": %d, "revision": null}`, n%benchFiles+1, 1+n*7%700, 100+n*7%700)}}}
				}}
				a := &Agent{Model: model, ModelName: testModel, Store: st, Counter: plan.Counter, Budget: budget, OffDiff: KeepFileLevel,
					Tools: tools.New(tools.Env{Root: plan.Diff.Root, Head: plan.Diff.HeadSHA, Base: plan.Diff.MergeBase, Store: st})}
				s, err := a.Start(plan, Settings{Budget: budget})
				if err != nil {
					b.Fatal(err)
				}
				res, err := s.Review(context.Background())
				if err != nil || res.Steps != steps {
					b.Fatalf("%d steps (%v), want %d", res.Steps, err, steps)
				}
				rep, err := st.Verify()
				if err != nil {
					b.Fatal(err)
				}
				records = rep.Bytes
				st.Close()
				disk = 0
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
			}
			b.ReportMetric(float64(records), "store-record-bytes")
			b.ReportMetric(float64(disk), "disk-bytes")
		})
	}
}
