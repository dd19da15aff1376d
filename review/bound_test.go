package review

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reviewdev/review/conversation"
	"github.com/reviewdev/review/review/llm"
	"github.com/reviewdev/review/review/result"
	"github.com/reviewdev/review/review/reviewtest"
)

// TestBoundedPlanIsExact holds the plan made with upper bounds to the one
// exact counts make: across changes of 1 to 300 files, of code, CJK and
// emoji, and windows from too small to 200k tokens, Prepare (bounds first)
// and Prepare with ExactCounts send the same first request, inline the
// same hunks, take the same units and fail alike; a plan made on bounds
// fits its budgets by the exact count, and its figures are the exact
// plan's (a figure shown is never an estimate below its count). Both
// kinds of plan must occur, or the test proves nothing.
func TestBoundedPlanIsExact(t *testing.T) {
	isolateGit(t)
	repos := map[string]string{}
	for _, n := range []int{1, 12, 300} {
		dir := t.TempDir()
		if err := reviewtest.GenerateRepo(dir, n, n/10, nil); err != nil {
			t.Fatal(err)
		}
		repos[fmt.Sprintf("%d files", n)] = dir
	}
	var cjk, emoji strings.Builder
	for i := range 300 {
		fmt.Fprintf(&cjk, "// 第%d行：这是一个用于测试的中文注释，包含一些常见的词语。\nvar v%d = \"漢字テキスト\"\n", i, i)
		fmt.Fprintf(&emoji, "s%d := \"👨‍👩‍👧 🇫🇷 ❤️ 🚀 %d\" // 👍🏽\n", i, i)
	}
	repos["cjk and emoji"] = newRepo(t, map[string]string{"a.go": "package a\n"},
		map[string]string{"a.go": "package a\n" + cjk.String(), "b.go": emoji.String()})

	windows := []int{3000, 5000, 7000, 9000, 12000, 16000, 24000, 32000, 48000, 64000, 128000, 200000}
	kinds := map[bool]int{}
	for name, dir := range repos {
		// One counter a change, as Run gives Prepare one a review: its
		// memo of the long texts (the same files and hunks at every
		// window) is exact, and spares counting them 24 times (this test
		// took 11.9 s of CPU under the race detector, 8.4 s with it).
		counter, err := conversation.NewCounter(llm.Lookup("gpt-4o").Encoding, conversation.Tiktoken)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range windows {
			b := conversation.DefaultBudget(w)
			opts := Options{Dir: dir, Base: "main", Config: result.Config{Model: "gpt-4o", Budget: b, Caps: result.Caps{Budget: result.DefaultPromptBudget}}, counter: counter}
			bounded, berr := Prepare(context.Background(), opts)
			opts.ExactCounts = true
			exact, xerr := Prepare(context.Background(), opts)
			if fmt.Sprint(berr) != fmt.Sprint(xerr) {
				t.Fatalf("%s, window %d: errors differ:\n bounds first: %v\n exact:        %v", name, w, berr, xerr)
			}
			if berr != nil {
				continue
			}
			kinds[bounded.bounded]++
			if exact.Estimated || exact.bounded || bounded.Estimated {
				t.Fatalf("%s, window %d: estimated plans", name, w)
			}
			if !reflect.DeepEqual(bounded.Messages, exact.Messages) {
				t.Errorf("%s, window %d (on bounds %v): the first requests differ", name, w, bounded.bounded)
			}
			if !reflect.DeepEqual(bounded.Units, exact.Units) || !reflect.DeepEqual(bounded.Context.Files, exact.Context.Files) {
				t.Errorf("%s, window %d: units or files differ", name, w)
			}
			if bounded.Tokens() != exact.Tokens() || !reflect.DeepEqual(bounded.Estimate, exact.Estimate) {
				t.Errorf("%s, window %d (on bounds %v): the plans' figures differ:\n%+v\n%+v", name, w, bounded.bounded, bounded.Estimate, exact.Estimate)
			}
			if bounded.bounded && (exact.Tokens() > b.Input() || exact.Context.Tokens > exact.Context.Budget) {
				t.Errorf("%s, window %d: exact first request %d of %d, context %d of %d", name, w, exact.Tokens(), b.Input(), exact.Context.Tokens, exact.Context.Budget)
			}
		}
	}
	if kinds[true] == 0 || kinds[false] == 0 {
		t.Fatalf("plans estimated/exact: %v; both must occur", kinds)
	}
	t.Logf("plans estimated/exact: %v", kinds)
}

// TestBoundedPlanHardCaps checks that caps on tokens or cost, which every
// request is held to, are planned with exact counts.
func TestBoundedPlanHardCaps(t *testing.T) {
	dir := smallRepo(t)
	b := conversation.DefaultBudget(llm.Lookup("gpt-4o").Window)
	for _, c := range []result.Caps{{}, {MaxPromptTokens: 1_000_000}, {MaxCost: 5, Price: &llm.Price{Prompt: 1, Completion: 1}}} {
		p, err := Prepare(context.Background(), Options{Dir: dir, Base: "main", Config: result.Config{Model: "gpt-4o", Budget: b, Caps: c}})
		if err != nil {
			t.Fatal(err)
		}
		hard := c.MaxPromptTokens > 0 || c.MaxCost > 0
		if p.bounded == hard || p.Estimated {
			t.Errorf("caps %+v: on bounds %v, estimated %v", c, p.bounded, p.Estimated)
		}
	}
}

// TestBoundedServerPlanIsExact holds a plan made with bounds to the one
// the server's exact counts make, for a server tokenizer at its worst: a
// token for each byte, after a space it puts first (llama.cpp's
// SentencePiece with byte fallback). Far from every limit the server is
// asked nothing.
func TestBoundedServerPlanIsExact(t *testing.T) {
	isolateGit(t)
	dir := t.TempDir()
	if err := reviewtest.GenerateRepo(dir, 40, 4, nil); err != nil {
		t.Fatal(err)
	}
	var asked atomic.Int64
	spm := func() *conversation.Counter {
		return conversation.NewServerCounter(conversation.O200k, conversation.ServerTokenizer{Name: "spm", Count: func(s string) (int, error) {
			asked.Add(1)
			return 1 + len(strings.ToValidUTF8(s, "\ufffd")), nil
		}})
	}
	kinds := map[bool]int{}
	for _, w := range []int{9000, 16000, 32000, 64000, 128000, 200000, 400000} {
		b := conversation.DefaultBudget(w)
		opts := Options{Dir: dir, Base: "main", Config: result.Config{Model: "qwen-local", Budget: b, Caps: result.Caps{Budget: result.DefaultPromptBudget}}}
		opts.counter = spm()
		asked.Store(0)
		bounded, berr := Prepare(context.Background(), opts)
		n := asked.Load()
		opts.ExactCounts, opts.counter = true, spm()
		exact, xerr := Prepare(context.Background(), opts)
		if fmt.Sprint(berr) != fmt.Sprint(xerr) {
			t.Fatalf("window %d: errors differ:\n bounds first: %v\n exact:        %v", w, berr, xerr)
		}
		if berr != nil {
			continue
		}
		kinds[bounded.bounded]++
		if !reflect.DeepEqual(bounded.Messages, exact.Messages) || !reflect.DeepEqual(bounded.Units, exact.Units) || !reflect.DeepEqual(bounded.Context.Files, exact.Context.Files) {
			t.Errorf("window %d (on bounds %v): the plans differ", w, bounded.bounded)
		}
		// A plan made on bounds asks the server only for its figures: the
		// few texts of the first request.
		switch {
		case bounded.Tokens() != exact.Tokens():
			t.Errorf("window %d: the plans count %d and %d", w, bounded.Tokens(), exact.Tokens())
		case bounded.bounded && (exact.Tokens() > b.Input() || exact.Context.Tokens > exact.Context.Budget):
			t.Errorf("window %d: exact first request %d of %d, context %d of %d", w, exact.Tokens(), b.Input(), exact.Context.Tokens, exact.Context.Budget)
		case bounded.bounded && n > 8:
			t.Errorf("window %d: a plan far from every limit asked the server %d times", w, n)
		}
	}
	if kinds[true] == 0 || kinds[false] == 0 {
		t.Fatalf("plans estimated/exact: %v; both must occur", kinds)
	}
	t.Logf("plans estimated/exact: %v", kinds)
}

// TestAsksServer: the server is asked to count only when told to, or for
// a model whose tokenizer is not known on a server that may be
// llama.cpp: never OpenAI's, never for a model counted exactly.
func TestAsksServer(t *testing.T) {
	for _, c := range []struct {
		tokenizer, model, url string
		llama, want           bool
	}{
		{"server", "gpt-4o", "https://api.openai.com/v1", false, true},
		{"", "qwen-local", "http://127.0.0.1:8080/v1", false, true},
		{"tiktoken", "qwen2.5-coder:7b", "http://localhost:8080/v1", false, true},
		{"tiktoken", "qwen-local", "https://llm.example.com/v1", true, true},
		{"tiktoken", "qwen-local", "https://llm.example.com/v1", false, false},
		{"tiktoken", "deepseek-chat", "https://api.deepseek.com/v1", false, false},
		{"tiktoken", "gpt-4o", "http://127.0.0.1:8080/v1", true, false},
		{"estimate", "qwen-local", "http://127.0.0.1:8080/v1", true, false},
	} {
		cfg := result.Config{Tokenizer: c.tokenizer, Model: c.model, BaseURL: c.url}
		if got := AsksServer(&cfg, c.llama); got != c.want {
			t.Errorf("%+v: AsksServer = %v, want %v", c, got, c.want)
		}
	}
}
