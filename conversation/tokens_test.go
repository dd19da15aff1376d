package conversation

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/reviewdev/review/internal/text"
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

// TestWarm: a tiktoken counter read in the background counts as one read
// at its first count, from any goroutine (the race detector watches);
// the estimate and a server's counter read no table.
func TestWarm(t *testing.T) {
	c, err := NewCounter(O200k, Tiktoken)
	if err != nil {
		t.Fatal(err)
	}
	c.Warm()
	c.Warm()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if got := c.Count("func main() {}"); got != 4 {
				t.Errorf("Count = %d, want 4", got)
			}
		})
	}
	wg.Wait()
	est, err := NewCounter(O200k, Estimate)
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServerCounter(O200k, ServerTokenizer{Name: "s", Count: func(s string) (int, error) { return len(s), nil }})
	for _, c := range []*Counter{est, srv, nil} {
		c.Warm()
		// Warm started nothing: reading the state here is no race.
		if c != nil && (c.st.enc != nil || c.st.err != nil) {
			t.Errorf("%s counter read its table", c.Mode())
		}
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
		e, x := text.EstimateTokens(s), tk.Count(s)
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
		exact := c.st.enc.count(tc.s)
		if d := got - exact; d < 0 && -d > exact/50+2 || d > exact/50+2+len(tc.s)/maxRun {
			t.Errorf("%s: Count = %d, exact %d", tc.name, got, exact)
		}
	}
	// Ordinary text is never cut.
	text := strings.Repeat("func main() { fmt.Println(\"hello, world\") }\n", 200)
	if len(cuts(text)) != 0 || c.Count(text) != c.st.enc.count(text) {
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
// cuts only on rune boundaries (as decoding finds them).
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
		// A cut falls where decoding starts a rune: each byte that is
		// not UTF-8 decodes as a U+FFFD of its own, as the encoder reads
		// it, so a cut between two is a boundary too.
		starts := map[int]bool{}
		for i := range s {
			starts[i] = true
		}
		for _, cut := range cuts(s) {
			if cut <= 0 || cut >= len(s) || !starts[cut] {
				t.Fatalf("cut at %d of %d", cut, len(s))
			}
		}
		n := c.Count(s)
		if n < 0 || (s != "" && n == 0) {
			t.Fatalf("Count = %d", n)
		}
		if b := c.bound(s); b < n {
			t.Fatalf("bound = %d < Count = %d", b, n)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// TestBoundProperty holds Bound to what budgets rely on: it is never
// below the exact count, in either encoding, on random text of every kind
// a review meets: ASCII noise, CJK, code, emoji with joiners and
// modifiers, long runs of one character, and bytes that are not UTF-8.
// The same must hold of messages and of the views.
func TestBoundProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(runes []rune) rune { return runes[rng.IntN(len(runes))] }
	cjk := []rune("的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年漢字語日本語テキストのをにはがで한국어텍스트입니다")
	emoji := []rune("😀👍🏽👨‍👩‍👧🇫🇷❤️✨🔥🚀🧪\u200d\ufe0f")
	code := []string{"func ", "if err != nil {", "\n\treturn ", "x", ":= ", "fmt.Errorf(\"%w\", err)", "}", "\n", "    ", "0x7f", "[]byte", "// TODO", "&&", "!=", "i++", "\"", "'\\''", "\t\t\t"}
	gens := map[string]func(n int) string{
		"ascii": func(n int) string {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(rng.IntN(128))
			}
			return string(b)
		},
		"printable": func(n int) string {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(32 + rng.IntN(95))
			}
			return string(b)
		},
		"cjk": func(n int) string {
			var b strings.Builder
			for range n {
				b.WriteRune(pick(cjk))
			}
			return b.String()
		},
		"code": func(n int) string {
			var b strings.Builder
			for b.Len() < n {
				b.WriteString(code[rng.IntN(len(code))])
			}
			return b.String()
		},
		"emoji": func(n int) string {
			var b strings.Builder
			for range n {
				b.WriteRune(pick(emoji))
			}
			return b.String()
		},
		"runs": func(n int) string {
			var b strings.Builder
			for b.Len() < n {
				r := pick([]rune(" \na=.漢😀\t0"))
				b.WriteString(strings.Repeat(string(r), 1+rng.IntN(3*maxRun)))
			}
			return b.String()
		},
		"bytes": func(n int) string {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(rng.IntN(256))
			}
			return string(b)
		},
		"mixed": func(n int) string {
			var b strings.Builder
			for b.Len() < n {
				switch rng.IntN(4) {
				case 0:
					b.WriteString(code[rng.IntN(len(code))])
				case 1:
					b.WriteRune(pick(cjk))
				case 2:
					b.WriteRune(pick(emoji))
				default:
					b.WriteByte(byte(rng.IntN(256)))
				}
			}
			return b.String()
		},
	}
	// A server's worst tokenizer: llama.cpp's SentencePiece with a byte
	// token for every byte of the text as JSON carries it, after the
	// space it puts first.
	spm := NewServerCounter(O200k, ServerTokenizer{Name: "spm", Count: func(s string) (int, error) {
		return 1 + len(asJSON(s)), nil
	}})
	o200k, _ := NewCounter(O200k, Tiktoken)
	cl100k, _ := NewCounter(CL100k, Tiktoken)
	// Fewer cases (cases) span the same lengths, up to 3,000 bytes.
	n := cases(150)
	step := 20 * 150 / n
	for enc, c := range map[string]*Counter{O200k: o200k, CL100k: cl100k, "server": spm} {
		for name, gen := range gens {
			for i := range n {
				s := gen(1 + rng.IntN(1+i*step))
				exact, bound := c.Count(s), c.bound(s)
				if bound < exact {
					t.Fatalf("%s %s: bound = %d < Count = %d for %q", enc, name, bound, exact, s)
				}
				if got := c.Bounds().Count(s); got != bound {
					t.Fatalf("Bounds().Count = %d, bound = %d", got, bound)
				}
				m := Message{Role: Tool, Content: s, ToolCalls: []ToolCall{{Name: "x", Arguments: s}}}
				if b, x := c.Bounds().CountMessage(m), c.CountMessage(m); b < x {
					t.Fatalf("%s %s: bounded message %d < exact %d", enc, name, b, x)
				}
			}
		}
	}
}

// TestCounterViews checks that the views count as their kinds say and
// share one encoder.
func TestCounterViews(t *testing.T) {
	c, _ := NewCounter(O200k, Tiktoken)
	s := "func main() { fmt.Println(\"hello\") }"
	if c.Kind() != ExactCount || c.Bounds().Kind() != UpperBound || c.Estimates().Kind() != EstimatedCount || c.Bounds().Exact().Kind() != ExactCount {
		t.Fatal("views report the wrong kinds")
	}
	if c.Count(s) != 10 || c.Bounds().Count(s) != len(s) || c.Estimates().Count(s) != text.EstimateTokens(s) {
		t.Errorf("counts: exact %d, bound %d, estimate %d", c.Count(s), c.Bounds().Count(s), c.Estimates().Count(s))
	}
	if c.Bounds().st != c.st {
		t.Error("views do not share the encoder")
	}
	e, _ := NewCounter(O200k, Estimate)
	if e.Kind() != EstimatedCount || e.bound(s) != text.EstimateTokens(s) {
		t.Error("Estimate mode counts estimates in every view")
	}
}

// TestEstimateWordAtATime holds the estimate's eight-byte fast path to a
// rune-by-rune count, around every alignment of non-ASCII text.
func TestEstimateWordAtATime(t *testing.T) {
	slow := func(s string) int {
		ascii, other := 0, 0
		for _, r := range s {
			if r < utf8.RuneSelf || unicode.IsSpace(r) {
				ascii++
			} else {
				other++
			}
		}
		return (ascii+3)/4 + other
	}
	for _, s := range []string{"", "a", "abcdefgh", "abcdefghi", "漢", "abcdefg漢", "abcdefgh漢ij", "\u00a0\u00a0abcdefghijklmnop", "\xff\xfeabcdefgh", "abcdefghijklmno\u3000"} {
		for pre := range 9 {
			x := strings.Repeat("x", pre) + s
			if got, want := text.EstimateTokens(x), slow(x); got != want {
				t.Errorf("text.EstimateTokens(%q) = %d, want %d", x, got, want)
			}
		}
	}
}

// asJSON is s as a server reads it from JSON: each byte that is not
// UTF-8 is U+FFFD.
func asJSON(s string) string {
	b, _ := json.Marshal(s)
	var out string
	_ = json.Unmarshal(b, &out)
	return out
}

// TestServerCounter checks that a server counts exactly, once a text,
// for every view that counts exactly, and that a failing server leaves
// counts to tiktoken, says so once, and is not asked again after
// maxServerFails.
func TestServerCounter(t *testing.T) {
	var calls []string
	fail := false
	var told []error
	c := NewServerCounter("", ServerTokenizer{
		Name: "llama.cpp /tokenize",
		Count: func(s string) (int, error) {
			calls = append(calls, s)
			if fail {
				return 0, errors.New("HTTP 500")
			}
			return utf8.RuneCountInString(s), nil
		},
		Failed: func(err error) { told = append(told, err) },
	})
	if c.Mode() != Server || c.encoding != O200k || c.Source() != "llama.cpp /tokenize" || c.Kind() != ExactCount {
		t.Fatalf("mode %q, encoding %q, source %q, kind %v", c.Mode(), c.encoding, c.Source(), c.Kind())
	}
	s := "func main() { fmt.Println(\"héllo\") }"
	if got := c.Count(s); got != utf8.RuneCountInString(s) {
		t.Fatalf("Count = %d, want the server's %d", got, utf8.RuneCountInString(s))
	}
	m := Message{Content: s, ToolCalls: []ToolCall{{Name: "x", Arguments: s}}}
	if got, want := c.CountMessage(m), 2*messageOverhead+2*utf8.RuneCountInString(s)+1; got != want {
		t.Errorf("CountMessage = %d, want %d", got, want)
	}
	if len(calls) != 2 {
		t.Errorf("the server was asked %d times, want twice (once a text): %q", len(calls), calls)
	}
	if got := c.Bounds().Count(s); got != len(s)+1 {
		t.Errorf("bound = %d, want %d", got, len(s)+1)
	}
	if got := c.Estimates().Count(s); got != text.EstimateTokens(s) {
		t.Errorf("estimate = %d", got)
	}
	if c.Failed() != nil || len(told) != 0 {
		t.Fatalf("failed before failing: %v", c.Failed())
	}

	fail = true
	tik, _ := NewCounter(O200k, Tiktoken)
	for i := range maxServerFails + 2 {
		x := fmt.Sprintf("text %d", i)
		if got, want := c.Count(x), tik.Count(x); got != want {
			t.Errorf("a text the server failed on counts %d, want tiktoken's %d", got, want)
		}
	}
	if c.Failed() == nil || c.Failed().Error() != "HTTP 500" || len(told) != 1 {
		t.Errorf("Failed() = %v, told %v: want the first failure, told once", c.Failed(), told)
	}
	if len(calls) != 2+maxServerFails {
		t.Errorf("the server was asked %d times, want %d: not again after %d failures", len(calls), 2+maxServerFails, maxServerFails)
	}
	if got := c.Count(s); got != utf8.RuneCountInString(s) {
		t.Errorf("a text the server counted before it failed counts %d", got)
	}
}

// TestServerCounterUnbounded checks that bounds stay bounds for a server
// whose tokenizer counts more tokens than bytes: once one count is above
// its bound, bounds are exact counts.
func TestServerCounterUnbounded(t *testing.T) {
	c := NewServerCounter(O200k, ServerTokenizer{Name: "nfkc", Count: func(s string) (int, error) { return 6 * len(s), nil }})
	s := "\ufdfa"
	if b := c.bound(s); b != len(s)+1 {
		t.Fatalf("bound before any count = %d", b)
	}
	if n := c.Count(s); n != 6*len(s) {
		t.Fatalf("Count = %d", n)
	}
	for _, x := range []string{s, "abc", "\ufdfa\ufdfa"} {
		if b, n := c.bound(x), c.Count(x); b < n {
			t.Errorf("bound(%q) = %d < Count %d after a count above the bound", x, b, n)
		}
	}
}

// TestRefTokensConstant holds what makes two runs of one conversation
// prune alike: a ref, twelve digits, costs the same tokens whichever
// digits it draws, in each encoding, wherever a preview or stub names it.
func TestRefTokensConstant(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, enc := range []string{O200k, "cl100k_base"} {
		c, err := NewCounter(enc, Tiktoken)
		if err != nil {
			t.Fatal(err)
		}
		for _, form := range []string{
			`[output %s: 120 lines, 4,210 bytes; showing lines 1-40 and 110-120; more: read_tool_output {"ref": "%[1]s", "start_line": 41, "line_count": 80}]`,
			`[stub: read_file_hunk {"path": "a.go"} → ref %s]`,
			`"ref":"%s"`,
		} {
			want := -1
			for i := 0; i < 500; i++ {
				ref := fmt.Sprintf("%012d", r.Int64N(1_000_000_000_000))
				n := c.Count(fmt.Sprintf(form, ref))
				if want < 0 {
					want = n
				}
				if n != want {
					t.Fatalf("%s: %q counts %d tokens, another ref %d", enc, fmt.Sprintf(form, ref), n, want)
				}
			}
		}
	}
}

// BenchmarkEncodeDiff counts a diff's hunks of changed Go lines, as a
// review's plan and requests count them, without the memo: the encoder's
// own speed and allocations on ordinary code.
func BenchmarkEncodeDiff(b *testing.B) {
	var s strings.Builder
	for j := range 600 {
		fmt.Fprintf(&s, "-func handler_%d(x int) int { return x*%d - %d }\n+func handler_%d(x int) int { return x*%d + %d }\n", j, j+1, j, j, j, j)
	}
	text := s.String()
	c, _ := NewCounter(O200k, Tiktoken)
	c.Count("load the encoder")
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		c.encodeLen(text) // not Count, whose memo would answer
	}
}
