package conversation

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestPruneSelectRecencyEquivalence: relevance selection with a question
// that names nothing keeps exactly what recency selection keeps, and
// recency selection is the pruning by age alone.
func TestPruneSelectRecencyEquivalence(t *testing.T) {
	counter, _ := NewCounter(O200k, Estimate)
	for seed := range uint64(cases(200)) {
		r := rand.New(rand.NewPCG(seed, 11))
		base := genConversation(r)
		cur := base.Turns()
		for i := range base.msgs {
			if base.msgs[i].Turn == cur && base.msgs[i].Role == User {
				base.msgs[i].Content = "?"
			}
		}
		lim := Limits{Turns: r.IntN(5), Chars: 500 + r.IntN(20000), messageCap: 1000 + r.IntN(6000), digestChars: 4000}
		a, b := clone(base), clone(base)
		lim.Select = SelectRecency
		if _, err := a.Prune(lim, counter, nil); err != nil {
			t.Fatal(err)
		}
		lim.Select = SelectRelevance
		if _, err := b.Prune(lim, counter, nil); err != nil {
			t.Fatal(err)
		}
		if ka, kb := a.earlierTurns(cur), b.earlierTurns(cur); !slices.Equal(ka, kb) {
			t.Errorf("seed %d: recency keeps %v, relevance without terms %v", seed, ka, kb)
		}
		// By age alone: the kept turns are the newest ones.
		kept := a.earlierTurns(cur)
		for i, turn := range kept {
			if want := cur - len(kept) + i; turn != want {
				t.Errorf("seed %d: recency kept %v, not the newest turns", seed, kept)
				break
			}
		}
	}
}

// nineTurns is a conversation whose turn 2 read internal/cache.go; the
// other turns read other files, and turn 10 is the new question.
func nineTurns(question string) *History {
	c := &History{}
	c.Append(Message{Role: System, Layer: Static, Content: "system prompt"})
	for turn := 1; turn <= 9; turn++ {
		file := fmt.Sprintf("pkg/other%d.go", turn)
		if turn == 2 {
			file = "internal/cache.go"
		}
		c.Append(Message{Role: User, Layer: Loop, Turn: turn, Content: fmt.Sprintf("Question %d about the change.", turn)})
		id := fmt.Sprintf("call_%d", turn)
		c.Append(Message{Role: Assistant, Layer: Loop, Turn: turn, ToolCalls: []ToolCall{{ID: id, Name: "read_file_hunk", Arguments: fmt.Sprintf(`{"path": %q}`, file)}}})
		c.Append(Message{Role: Tool, Layer: Loop, Turn: turn, ToolCallID: id, Name: "read_file_hunk", Ref: fmt.Sprintf("k%dabcdefgh", turn)[:10],
			Content: fmt.Sprintf("%q at head, lines 1-40:\n1: package x\n2: func Get%d() {}\n%s", file, turn, strings.Repeat("3: filler line of code\n", 30))})
		c.Append(Message{Role: Assistant, Layer: Loop, Turn: turn, Content: fmt.Sprintf("Answer %d.", turn)})
	}
	c.Append(Message{Role: User, Layer: Loop, Turn: 10, Content: question})
	return c
}

func TestPruneRelevanceBringsBackTheTurn(t *testing.T) {
	counter, _ := NewCounter(O200k, Estimate)
	lim := Limits{Turns: 3, Chars: 1 << 20, messageCap: 1 << 20, digestChars: 4000}
	for _, q := range []string{
		"Go back to the race in cache.go: is the fix in store.go enough?",
		"Is internal/cache.go safe?",
		"What did k2abcdefgh show?",
		"cache.go の競合は修正されましたか？",
	} {
		c := nineTurns(q)
		ev, err := c.Prune(lim, counter, nil)
		if err != nil {
			t.Fatal(err)
		}
		kept := c.earlierTurns(10)
		if len(kept) != 3 || !slices.Contains(kept, 2) || !slices.Contains(kept, 9) {
			t.Errorf("%q: kept turns %v, want turn 2 and the newest, 9", q, kept)
		}
		if ev.Select != SelectRelevance || len(ev.Scores) != 9 || !ev.Scores[1].Kept || ev.Scores[1].Relevance < 0.5 {
			t.Errorf("%q: event select %q, scores %+v", q, ev.Select, ev.Scores)
		}
		// Idempotent.
		again, err := c.Prune(lim, counter, nil)
		if err != nil || again.Changed() {
			t.Errorf("%q: a second pass changed %+v (%v)", q, again, err)
		}
		c = nineTurns(q)
		lim.Select = SelectRecency
		if _, err := c.Prune(lim, counter, nil); err != nil {
			t.Fatal(err)
		}
		lim.Select = ""
		if kept := c.earlierTurns(10); !slices.Equal(kept, []int{7, 8, 9}) {
			t.Errorf("%q: recency kept %v, want 7 8 9", q, kept)
		}
	}
}

func TestQuestionTerms(t *testing.T) {
	got := questionTerms("Is the Get method in internal/cache.go racy, and what about HTTPServer? データベース")
	var texts []string
	for _, tm := range got {
		texts = append(texts, fmt.Sprintf("%s:%g", tm.text, tm.weight))
	}
	want := []string{"get:1", "method:1", "internal/cache.go:3", "cache.go:3", "racy:1", "httpserver:3", "デー:1", "ータ:1", "タベ:1", "ベー:1", "ース:1"}
	if !slices.Equal(texts, want) {
		t.Errorf("terms %v, want %v", texts, want)
	}
}

func FuzzQuestionTerms(f *testing.F) {
	f.Add("Go back to the race in cache.go: is the fix in store.go enough?")
	f.Add("数据库连接失败 k3f7a2bc4d")
	f.Fuzz(func(t *testing.T, q string) {
		c := nineTurns(q)
		ev, err := c.Prune(Limits{Turns: 2, Chars: 1 << 20, messageCap: 1 << 20, digestChars: 4000}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if kept := c.earlierTurns(10); len(kept) != 2 || kept[1] != 9 {
			t.Fatalf("kept %v", kept)
		}
		for _, s := range ev.Scores {
			if s.Relevance < 0 || s.Relevance > 1 || s.Score < 0 || s.Score > 1 {
				t.Fatalf("score out of range: %+v", s)
			}
		}
	})
}

// BenchmarkPruneSelect prunes a ten-turn conversation (the pass before a
// tenth question) with each selection: what choosing by relevance costs a
// turn over choosing by age.
func BenchmarkPruneSelect(b *testing.B) {
	counter, _ := NewCounter(O200k, Estimate)
	for _, sel := range []string{SelectRecency, SelectRelevance} {
		b.Run(sel, func(b *testing.B) {
			lim := Limits{Turns: 3, Chars: 24000, messageCap: 8000, digestChars: 4000, Select: sel}
			base := nineTurns("Go back to the race in cache.go: is the fix in store.go enough?")
			for b.Loop() {
				if _, err := clone(base).Prune(lim, counter, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestRecallProperty holds relevance at every limit, as a conversation
// grows turn by turn with a prune before each: turn 2 asks about
// zebraCacheKey in app/handler.go, turns 1 and 3-8 about other things, and
// turn 9 names it again. Whatever --history-turns (2-6), --history-chars
// and the token line, turn 9's request holds turn 2 — brought back, with
// the prune event saying so — where hysteresis had kept a share of the
// turns and turn 9 started under every limit. A tenth question that names
// nothing changes nothing a limit does not ask for.
func TestRecallProperty(t *testing.T) {
	counter, _ := NewCounter(O200k, Estimate)
	for _, turns := range []int{2, 3, 4, 5, 6} {
		for _, chars := range []int{6000, 12000, 24000, 48000} {
			for _, tokens := range []int{0, 9000, 20000} {
				lim := Limits{Turns: turns, Chars: chars, messageCap: 1 << 20, digestChars: 2000, Tokens: tokens, target: tokens * 5 / 8}
				name := fmt.Sprintf("turns=%d chars=%d tokens=%d", turns, chars, tokens)
				recallOnce(t, name, lim, counter)
			}
		}
	}
}

func recallOnce(t *testing.T, name string, lim Limits, counter *Counter) {
	t.Helper()
	c := &History{}
	c.Append(Message{Role: System, Layer: Static, Content: "system prompt " + strings.Repeat("x ", 200)})
	ask := func(turn int, q, file, body string) *PruneEvent {
		c.Append(Message{Role: User, Layer: Loop, Turn: turn, Content: q})
		ev, err := c.Prune(lim, counter, nil)
		if err != nil {
			t.Fatalf("%s: turn %d: %v", name, turn, err)
		}
		id := fmt.Sprintf("call_%d", turn)
		c.Append(Message{Role: Assistant, Layer: Loop, Turn: turn, ToolCalls: []ToolCall{{ID: id, Name: "read_file_hunk", Arguments: fmt.Sprintf(`{"path": %q}`, file)}}})
		c.Append(Message{Role: Tool, Layer: Loop, Turn: turn, ToolCallID: id, Name: "read_file_hunk", Ref: fmt.Sprintf("%012d", 100000+turn),
			Content: fmt.Sprintf("%q at head, lines 1-40:\n1: package app\n2: %s\n%s", file, body, strings.Repeat("3: filler line of code here\n", 40))})
		c.Append(Message{Role: Assistant, Layer: Loop, Turn: turn, Content: fmt.Sprintf("Answer %d: %s", turn, strings.Repeat("prose ", 40))})
		return ev
	}
	for turn := 1; turn <= 8; turn++ {
		q, file, body := fmt.Sprintf("What does pkg/other%d.go do with its queue?", turn), fmt.Sprintf("pkg/other%d.go", turn), "func Work() {}"
		if turn == 2 {
			q, file, body = "Where is zebraCacheKey computed in app/handler.go, and can it collide?", "app/handler.go", "func zebraCacheKey(id string) string { return id[:4] }"
		}
		ask(turn, q, file, body)
	}
	wasGone := !slices.Contains(c.earlierTurns(9), 2)
	ev := ask(9, "Back to zebraCacheKey in app/handler.go — can two ids collide?", "app/handler.go", "func zebraCacheKey(id string) string { return id[:4] }")
	kept := c.earlierTurns(9)
	if !slices.Contains(kept, 2) {
		t.Errorf("%s: turn 9 keeps turns %v, not turn 2, which it names (scores %+v)", name, kept, ev.Scores)
		return
	}
	if wasGone && (len(ev.Restored) == 0 || len(ev.Scores) == 0) {
		t.Errorf("%s: turn 2 came back but the event does not say so: restored %v, scores %+v", name, ev.Restored, ev.Scores)
	}
	if wasGone && !slices.Contains(kept, 8) {
		t.Errorf("%s: the newest earlier turn, 8, went: kept %v", name, kept)
	}
	// A question that names nothing: what the limits keep, as they keep it.
	c.Append(Message{Role: User, Layer: Loop, Turn: 10, Content: "Anything else?"})
	over := (&pruner{c: c, lim: lim, counter: counter, cur: 10, relevance: true}).over()
	if ev, err := c.Prune(lim, counter, nil); err != nil {
		t.Fatal(err)
	} else if ev.Changed() && !over {
		t.Errorf("%s: a question naming nothing changed a history within its limits: %+v", name, ev)
	}
}

// TestRefsDecideNothing holds that the refs outputs were stored under,
// which are drawn at random and printed in previews and stubs, decide no
// turn's relevance: a question's "11" must not match the digits of one
// run's refs and not the next run's, or two runs of one conversation
// would keep different turns. A question that gives a ref still names the
// turn that made it.
func TestRefsDecideNothing(t *testing.T) {
	counter, _ := NewCounter(O200k, Estimate)
	conv := func(r *rand.Rand, q string) (*History, []string) {
		c := &History{}
		c.Append(Message{Role: System, Layer: Static, Content: "system prompt"})
		var refs []string
		for turn := 1; turn <= 9; turn++ {
			ref := fmt.Sprintf("%012d", r.Int64N(1e12))
			refs = append(refs, ref)
			id := fmt.Sprintf("call_%d", turn)
			c.Append(Message{Role: User, Layer: Loop, Turn: turn, Content: fmt.Sprintf("Question %d about the change.", turn)})
			c.Append(Message{Role: Assistant, Layer: Loop, Turn: turn, ToolCalls: []ToolCall{{ID: id, Name: "read_tool_output", Arguments: fmt.Sprintf(`{"ref": %q}`, ref)}}})
			c.Append(Message{Role: Tool, Layer: Loop, Turn: turn, ToolCallID: id, Name: "search_in_project", Ref: ref,
				Content: fmt.Sprintf("[output %s: 40 lines; showing lines 1-3]\n1: package x\n2: func F%d() {}\n", ref, turn)})
			c.Append(Message{Role: Assistant, Layer: Loop, Turn: turn, Content: fmt.Sprintf("Answer %d.", turn)})
		}
		c.Append(Message{Role: User, Layer: Loop, Turn: 10, Content: q})
		return c, refs
	}
	lim := Limits{Turns: 3, Chars: 1 << 20, messageCap: 1 << 20, digestChars: 4000}
	var want []int
	for seed := range uint64(40) {
		c, _ := conv(rand.New(rand.NewPCG(seed, 3)), "Question 11: anything else in 11 or 47?")
		if _, err := c.Prune(lim, counter, nil); err != nil {
			t.Fatal(err)
		}
		kept := c.earlierTurns(10)
		if want == nil {
			want = kept
		} else if !slices.Equal(kept, want) {
			t.Errorf("seed %d: kept turns %v, seed 0 kept %v: the refs drawn decided", seed, kept, want)
		}
	}
	for seed := range uint64(10) {
		r := rand.New(rand.NewPCG(seed, 5))
		_, refs := conv(rand.New(rand.NewPCG(seed, 5)), "")
		c, _ := conv(r, "What did "+refs[1]+" show?")
		if _, err := c.Prune(lim, counter, nil); err != nil {
			t.Fatal(err)
		}
		if kept := c.earlierTurns(10); !slices.Contains(kept, 2) {
			t.Errorf("seed %d: a question naming turn 2's ref kept %v", seed, kept)
		}
	}
}
