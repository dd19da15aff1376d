package review

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/reviewdev/review/conversation"
)

// TestSideRecord saves units side by side in a random order, each after
// some steps of its turn, and checks every save's record against the
// conversation built whole (the run's history, then each unit's turn as
// last saved, in unit order), and that the parts it says changed are
// exactly those that differ from the save before.
func TestSideRecord(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 1))
		h := &conversation.History{}
		h.Append(conversation.Message{Role: conversation.System, Content: "sys", Layer: conversation.Static})
		h.Append(conversation.Message{Role: conversation.User, Content: "overview", Layer: conversation.Static})
		h.Append(conversation.Message{Role: conversation.User, Content: "unit 1", Layer: conversation.Loop, Turn: 1})
		s := &Session{History: h}
		s.side = &sideState{turns: map[int]turnParts{}, have: map[string]bool{}}
		for _, m := range h.Messages() {
			s.side.have[m.ID] = true
		}
		n := 2 + r.IntN(8)
		forks := make([]*conversation.History, n+1)
		saved := map[int][]conversation.Message{}
		var stored [][]byte
		for step := range 60 {
			k := 1 + r.IntN(n)
			if forks[k] == nil {
				forks[k] = h.Fork(fmt.Sprintf("u%d.", k), k)
				if k > 1 {
					forks[k].Append(conversation.Message{Role: conversation.User, Content: fmt.Sprintf("unit %d", k), Layer: conversation.Loop, Turn: k})
				}
			}
			for range r.IntN(3) {
				forks[k].Append(conversation.Message{Role: conversation.Assistant, Content: fmt.Sprintf("step %d of unit %d", step, k), Layer: conversation.Loop, Turn: k})
			}
			ids, parts, err := forks[k].TurnParts(k)
			if err != nil {
				t.Fatal(err)
			}
			s.side.setTurn(k, turnParts{ids: ids, parts: parts})
			saved[k] = forks[k].TurnMessages(k)
			got, changed, _, err := s.sideRecord()
			if err != nil {
				t.Fatal(err)
			}
			var msgs []conversation.Message
			for _, j := range slices.Sorted(maps.Keys(saved)) {
				msgs = append(msgs, saved[j]...)
			}
			want, _, _, _ := h.WithTurns(msgs).Parts()
			if len(got) != len(want) {
				t.Fatalf("seed %d step %d: %d parts, want %d", seed, step, len(got), len(want))
			}
			var differ []int
			for i := range want {
				if !bytes.Equal(got[i], want[i]) {
					t.Fatalf("seed %d step %d: part %d is %s, want %s", seed, step, i, got[i], want[i])
				}
				if step > 0 && (i >= len(stored) || !bytes.Equal(stored[i], want[i])) {
					differ = append(differ, i)
				}
			}
			if step > 0 && !slices.Equal(changed, differ) && !(len(changed) == 0 && len(differ) == 0) {
				t.Fatalf("seed %d step %d: changed %v, want %v", seed, step, changed, differ)
			}
			stored = slices.Clone(got)
		}
	}
}
