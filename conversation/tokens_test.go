package conversation

import (
	"strings"
	"testing"
)

func TestCounterTiktoken(t *testing.T) {
	c, err := NewCounter(O200k, "")
	if err != nil {
		t.Fatal(err)
	}
	// Known o200k_base counts.
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"func main() {}", 4},
	} {
		if got := c.Count(tc.s); got != tc.want {
			t.Errorf("Count(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
	old, err := NewCounter(CL100k, Tiktoken)
	if err != nil {
		t.Fatal(err)
	}
	if got := old.Count("hello world"); got != 2 {
		t.Errorf("cl100k Count(hello world) = %d, want 2", got)
	}
}

func TestCounterUnknownMode(t *testing.T) {
	if _, err := NewCounter(O200k, "words"); err == nil || !strings.Contains(err.Error(), "estimate") {
		t.Fatalf("want an error naming the valid modes, got %v", err)
	}
}

func TestEstimate(t *testing.T) {
	c, _ := NewCounter(O200k, Estimate)
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"abcd", 1},
		{"abcde", 2},
		{strings.Repeat("a", 400), 100},
		{"日本語のテキスト", 8},
		{"héllo", 2}, // 4 ASCII chars -> 1, one other-script rune -> 1
	} {
		if got := c.Count(tc.s); got != tc.want {
			t.Errorf("estimate(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}

// The estimate must stay within a sane factor of tiktoken on both code and
// CJK prose, or budgets computed with it would be useless.
func TestEstimateTracksTiktoken(t *testing.T) {
	tk, _ := NewCounter(O200k, Tiktoken)
	for _, s := range []string{
		strings.Repeat("if err != nil {\n\treturn fmt.Errorf(\"open %s: %w\", path, err)\n}\n", 50),
		strings.Repeat("这是一个用于测试的中文句子，包含一些常见的词语。", 50),
	} {
		e, x := EstimateTokens(s), tk.Count(s)
		if r := float64(e) / float64(x); r < 0.5 || r > 2.5 {
			t.Errorf("estimate %d vs tiktoken %d (ratio %.2f) for %.20q", e, x, r, s)
		}
	}
}

func TestCountMessage(t *testing.T) {
	c, _ := NewCounter(O200k, Estimate)
	m := Message{Role: Assistant, ToolCalls: []ToolCall{{ID: "1", Name: "read_file_hunk", Arguments: `{"path":"a.go"}`}}}
	if got := c.CountMessage(m); got <= 2*messageOverhead {
		t.Errorf("CountMessage counts tool calls: got %d", got)
	}
}

func BenchmarkCountTiktoken(b *testing.B) {
	c, _ := NewCounter(O200k, Tiktoken)
	s := strings.Repeat("func (s *Store) Put(run string, step int) (string, error) {\n", 200)
	c.Count("warm up")
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		c.Count(s)
	}
}
