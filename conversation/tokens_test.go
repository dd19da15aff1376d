package conversation

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
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

// TestCountLongRuns checks that runs too long to encode in one piece are
// counted close to the exact count (which a shorter run still gets).
func TestCountLongRuns(t *testing.T) {
	c, _ := NewCounter(O200k, Tiktoken)
	for _, tc := range []struct {
		name string
		s    string
	}{
		{"letters", strings.Repeat("a", 4000)},
		{"spaces", "x" + strings.Repeat(" ", 4000) + "y"},
		{"punctuation", strings.Repeat("=", 4000)},
		{"cjk", strings.Repeat("漢", 2000)},
		{"base64", strings.Repeat("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0", 120)},
	} {
		got := c.Count(tc.s)
		exact := c.enc.count(tc.s)
		if d := got - exact; d < 0 && -d > exact/50+2 || d > exact/50+2+len(tc.s)/maxRun {
			t.Errorf("%s: Count = %d, exact %d", tc.name, got, exact)
		}
	}
	// Ordinary text is never cut.
	text := strings.Repeat("func main() { fmt.Println(\"hello, world\") }\n", 200)
	if len(cuts(text)) != 0 || c.Count(text) != c.enc.count(text) {
		t.Errorf("ordinary text was cut")
	}
}

// BenchmarkCountRun counts a committed file of one letter, the input that
// made counting quadratic; ns/op must grow linearly with the size.
func BenchmarkCountRun(b *testing.B) {
	for _, size := range []int{20_000, 200_000, 1 << 20} {
		s := strings.Repeat("a", size)
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			c, _ := NewCounter(O200k, Tiktoken)
			c.Count("load the encoder")
			for b.Loop() {
				c.encodeLen(s) // not Count, whose memo would answer
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(size), "ns/byte")
		})
	}
}

// FuzzCount checks that counting any text terminates, never panics and
// cuts only on rune boundaries.
func FuzzCount(f *testing.F) {
	f.Add("hello world", 1)
	f.Add("漢字", 300)
	f.Add(" ", 1000)
	c, _ := NewCounter(O200k, Tiktoken)
	f.Fuzz(func(t *testing.T, s string, repeat int) {
		s = strings.Repeat(s, 1+abs(repeat)%2000)
		if len(s) > 1<<20 {
			s = s[:1<<20]
		}
		for _, cut := range cuts(s) {
			if cut <= 0 || cut >= len(s) || !utf8.RuneStart(s[cut]) {
				t.Fatalf("cut at %d of %d", cut, len(s))
			}
		}
		if n := c.Count(s); n < 0 || (s != "" && n == 0) {
			t.Fatalf("Count = %d", n)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
